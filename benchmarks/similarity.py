"""Similarity: does `gradelib.similarity` find planted copies, leave independent work alone, and scale?

    .venv/bin/python benchmarks/similarity.py                 # planted copies, then 100, 1,000 and 1,000 vs 10,000
    .venv/bin/python benchmarks/similarity.py --quick         # planted copies, then 100 and 1,000 (no history)
    .venv/bin/python benchmarks/similarity.py --history 2000  # a smaller history
    .venv/bin/python benchmarks/similarity.py --smoke         # two samples a take-home, 20 vs 20: does it run?

Planted copies: each sample of `submissions/<takehome>/*` is copied with one kind of obfuscation at a
time (identifiers renamed, top-level functions reordered, reformatted, JavaScript semicolons dropped,
comments changed, 10/20/30 % of the code lines edited) and with all of them together, from a fixed
seed. A copy's README/NOTE files are replaced by notes of its own (as many lines of as many words, in
other words; `--prose` drops or keeps them instead). Every original and copy is fingerprinted against
its take-home's handout (the base); a pool per take-home and kind (the originals and that kind's
copies) gets `common`, `neighbours` and `match`, as the kit would on a cohort. Reported: the recall
of the planted (original, copy) pairs and the false pairs among independent ones (two originals, or a
copy and another original or its copy) at several thresholds on `Match.share`, with and without a
minimum longest fragment.

Scale: cohorts of mutated samples (identifiers renamed and 30 % of the lines edited, each its own
seed), fingerprinted in a process pool, then every pair found (`common`, `neighbours`, `match` on
each candidate), timed apart; then the cohort of 1,000 against a history of `--history` more.

The last line: `similarity: recall R at threshold T, F false pairs among N independent pairs; all
pairs of 1000 in X s, 1000 vs 10000 in Y s`.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import keyword
import multiprocessing
import os
import random
import re
import resource
import shutil
import statistics
import sys
import tempfile
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
LOOKALIKES = HERE / "lookalikes"  # independent solutions that converge on the same structure (their README)
sys.path.insert(0, str(HERE))

import runner  # noqa: E402  (the re-exec into the repository's venv, `log`, `table`, `cores`)
from pygments.lexer import Lexer  # noqa: E402
from pygments.lexers import get_lexer_by_name  # noqa: E402
from pygments.token import Comment, Keyword, Name, Number, Operator, String, _TokenType  # noqa: E402
from runner import log  # noqa: E402

from gradelib import takehomes  # noqa: E402
from gradelib.similarity.fingerprint import Base, CodeFile, base_of, fingerprint  # noqa: E402
from gradelib.similarity.pairs import THRESHOLD, Match, common, match, neighbours  # noqa: E402
from gradelib.similarity.sources import own_files  # noqa: E402
from gradelib.similarity.tokens import language  # noqa: E402
from gradelib.similarity.winnow import Mark  # noqa: E402

TAKEHOMES = ("replay", "payments")
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
LONGEST = (0, 5, 10)  # the extra condition `Match.longest >= L` (lines)
EDIT_RATES = (0.10, 0.20, 0.30)
SCALE_EDIT_RATE = 0.30
COHORTS = (100, 1000)
HISTORY = 10_000
SEED = 20261202
# --smoke: every step at its smallest (its figures mean nothing): two samples of each take-home planted, a cohort
# of 20 against a history of 20
SMOKE_SAMPLES, SMOKE_COHORTS, SMOKE_HISTORY = 2, (20,), 20
# The last line scripts read (tests/e2e/test_benchmark_e2e.py checks that the smoke run prints it).
LAST_LINE = r"similarity: recall [\d.]+ at threshold [\d.]+, \d+ false pairs among \d+ independent pairs(; .+)?"
CODE = frozenset({"python", "javascript", "typescript", "bash"})
JS_LIKE = frozenset({"javascript", "typescript"})
PROSE_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".txt"})
WRAP_AT = 64  # characters: a reformatter wraps a line longer than this (when it can)
ORIGINAL = "original"

Piece = tuple[_TokenType, str]

# --------------------------------------------------------------------------------------------------
# Source files as Pygments tokens


@dataclass(frozen=True)
class Source:
    """One code file as Pygments tokens (their values joined are the file's text)."""

    lang: str
    pieces: tuple[Piece, ...]

    @property
    def text(self) -> str:
        """The file's text."""
        return "".join(value for _, value in self.pieces)


@cache
def _lexer(lang: str) -> Lexer:
    return get_lexer_by_name(lang, stripnl=False, ensurenl=False)


def lex(text: str, lang: str) -> Source:
    """`text` as tokens; no newline added or stripped, so the text is kept exactly."""
    return Source(lang, tuple(_lexer(lang).get_tokens(text)))


@dataclass(frozen=True)
class Lines:
    """A file's lines (with their ends) and what the tokens say about each (0-based indices)."""

    lines: list[str]
    inside: frozenset[int]  # starts inside a string or block comment: not to be touched
    commented: frozenset[int]  # holds a comment
    code: frozenset[int]  # holds code (a token that is neither whitespace nor comment)
    open_: frozenset[int]  # ends inside brackets (), []: a statement goes on


def lines_of(source: Source) -> Lines:
    """The lines of `source` and what each holds."""
    inside: set[int] = set()
    commented: set[int] = set()
    code: set[int] = set()
    open_: set[int] = set()
    line = depth = 0
    for kind, value in source.pieces:
        if value.strip():
            if kind in Comment:
                commented.add(line)
            elif kind not in String.Doc:
                code.add(line)
            if kind not in String and kind not in Comment:
                depth = max(0, depth + sum(value.count(c) for c in "([") - sum(value.count(c) for c in ")]"))
        for offset, char in enumerate(value):
            if char != "\n":
                continue
            if depth > 0:
                open_.add(line)
            line += 1
            spans = kind in String or (kind in Comment.Multiline and offset < len(value) - 1)
            if spans:
                inside.add(line)
    text = source.text
    lines = text.splitlines(keepends=True)
    return Lines(lines, frozenset(inside), frozenset(commented), frozenset(code), frozenset(open_))


def _significant(pieces: Sequence[Piece]) -> list[int]:
    """Indices of the pieces that are code: not whitespace, not comments."""
    return [i for i, (kind, value) in enumerate(pieces) if value.strip() and kind not in Comment]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


# --------------------------------------------------------------------------------------------------
# (a) Identifiers renamed consistently, throughout the submission


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


JS_GLOBALS = frozenset(
    _words(
        """process console JSON Math Date Promise Error TypeError RangeError Object Array Number String Boolean
    Symbol Map Set WeakMap Buffer URL URLSearchParams AbortController AbortSignal fetch setTimeout clearTimeout
    setInterval clearInterval setImmediate crypto globalThis require module exports __dirname __filename
    undefined NaN Infinity arguments this super import meta RegExp BigInt Intl structuredClone queueMicrotask
    TextEncoder TextDecoder Response Request Headers performance"""
    )
)
RESERVED = (
    frozenset(dir(builtins))
    | frozenset(keyword.kwlist)
    | frozenset(keyword.softkwlist)
    | JS_GLOBALS
    | frozenset({"self", "cls", "async", "await", "constructor", "of", "let", "static", "get", "set"})
)
KEPT_KINDS = (Name.Builtin, Name.Namespace, Name.Decorator, Name.Exception, Name.Label, Name.Entity)
WORDS = _words(
    """item entry record value data result payload request response client cache store handler worker
task job batch queue state config options params limit count index total delay attempt retry label answer
model prompt reply message body status error reason key token digest path file folder output source target
mode flag timer event row line chunk buffer stream charge payment amount order invoice receipt session
context helper parse load save fetch send build make check handle compute format read write apply resolve
lookup find next last first current pending done seen known raw clean safe final outcome summary detail
tally slot marker cursor window budget span"""
)
SHELL_SPECIAL = re.compile(r"^\$?(\d+|[#?@*!$-]|[A-Z][A-Z0-9_]*_(URL|KEY|HOME|PATH)|PATH|HOME|PWD|TMPDIR|LANG|TZ)$")


@dataclass
class _Scan:
    """What one file says about its names."""

    seen: set[str] = field(default_factory=set)  # named outside an attribute access
    blocked: set[str] = field(default_factory=set)  # imported, keyword arguments, object keys: kept
    defined: set[str] = field(default_factory=set)  # functions, classes, methods: renamed after `.` too


def _matching(pieces: Sequence[Piece], sig: Sequence[int]) -> dict[int, int]:
    """Position in `sig` of each `(` -> position of its `)`."""
    stack: list[int] = []
    pairs: dict[int, int] = {}
    for position, index in enumerate(sig):
        value = pieces[index][1]
        if value == "(":
            stack.append(position)
        elif value == ")" and stack:
            pairs[stack.pop()] = position
    return pairs


def _import_positions(source: Source, sig: Sequence[int]) -> set[int]:
    """Positions in `sig` of names inside import statements (and `require` calls' targets)."""
    pieces = source.pieces
    found: set[int] = set()
    line_of = _line_numbers(pieces)
    active = False
    start_line = depth = 0
    for position, index in enumerate(sig):
        kind, value = pieces[index]
        nxt = pieces[sig[position + 1]][1] if position + 1 < len(sig) else ""
        if source.lang == "python":
            if active and line_of[index] != start_line and depth == 0:
                active = False
            if kind in Keyword.Namespace and value in ("import", "from") and not active:
                active, start_line = True, line_of[index]
            if active:
                depth += value.count("(") - value.count(")")
                start_line = line_of[index] if depth else start_line
        elif source.lang in JS_LIKE:
            if value == "import" and nxt not in ("(", "."):
                active = True
            elif active and kind in String:
                active = False  # `from "x"` or `import "x"`: the statement's end
            elif value == "require" and position >= 2 and pieces[sig[position - 1]][1] == "=":
                back = position - 2
                while back >= 0 and pieces[sig[back]][1] not in ("const", "let", "var", ";"):
                    found.add(back)
                    back -= 1
        if active and kind in Name:
            found.add(position)
    return found


def _line_numbers(pieces: Sequence[Piece]) -> list[int]:
    """The line (0-based) each piece starts on."""
    numbers = []
    line = 0
    for _, value in pieces:
        numbers.append(line)
        line += value.count("\n")
    return numbers


def _scan(source: Source) -> _Scan:
    """Which names of `source` may be renamed, which must stay, which are definitions."""
    scan = _Scan()
    pieces = source.pieces
    if source.lang == "bash":
        for i, (kind, value) in enumerate(pieces):
            nxt = pieces[i + 1][1] if i + 1 < len(pieces) else ""
            if kind in Name.Variable and nxt == "=" and not SHELL_SPECIAL.match(value):
                scan.seen.add(value)
        return scan
    sig = _significant(pieces)
    imports = _import_positions(source, sig)
    closes = _matching(pieces, sig)
    depth = 0
    for position, index in enumerate(sig):
        kind, value = pieces[index]
        prev = pieces[sig[position - 1]][1] if position else ""
        nxt = pieces[sig[position + 1]][1] if position + 1 < len(sig) else ""
        if value in "([{":
            depth += 1
        elif value in ")]}":
            depth -= 1
        if kind not in Name or any(kind in kept for kept in KEPT_KINDS):
            continue
        if position in imports:
            scan.blocked.add(value)
            continue
        if prev not in (".", "?."):
            scan.seen.add(value)
        if nxt == "=" and depth > 0 and source.lang == "python":
            scan.blocked.add(value)  # a keyword argument: the callee's name for it
        if nxt == ":" and prev in ("{", ",") and source.lang in JS_LIKE:
            scan.blocked.add(value)  # an object key
        if kind in Name.Function or kind in Name.Class or prev in ("function", "class", "def"):
            scan.defined.add(value)
        close = closes.get(position + 1) if nxt == "(" else None
        if close is not None and close + 1 < len(sig) and pieces[sig[close + 1]][1] == "{":
            scan.defined.add(value)  # a JavaScript method or function definition
    return scan


def _parts(name: str) -> list[str]:
    return re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name) or [name]


def _styled(words: Sequence[str], like: str) -> str:
    """`words` joined in the style of `like`: UPPER_SNAKE, PascalCase, camelCase or snake_case."""
    lead = like[: len(like) - len(like.lstrip("_"))]
    bare = like.lstrip("_")
    if bare.isupper() and any(c.isalpha() for c in bare):
        joined = "_".join(w.upper() for w in words)
    elif bare[:1].isupper():
        joined = "".join(w.capitalize() for w in words)
    elif "_" not in bare and any(c.isupper() for c in bare):
        joined = words[0] + "".join(w.capitalize() for w in words[1:])
    else:
        joined = "_".join(words)
    return lead + joined


@cache
def _plain_name(name: str) -> bool:
    """Whether every language lexes `name` as an ordinary identifier (not `window`, `self`, a keyword...)."""
    for lang in ("python", "javascript", "bash"):
        kind, value = next(iter(lex(f"{name} = 1\n", lang).pieces))
        if value != name or kind not in Name or any(kind in kept for kept in KEPT_KINDS):
            return False
    return True


def new_names(names: Iterable[str], taken: set[str], rng: random.Random) -> dict[str, str]:
    """A fresh name for each of `names`, in its style, clashing with nothing in `taken`."""
    mapping: dict[str, str] = {}
    used = set(taken) | RESERVED
    for name in sorted(names):
        bare = name.lstrip("_")
        for attempt in range(100):
            if len(bare) == 1 and attempt < 20:
                candidate = rng.choice("abcdefghjkmnpqrstuvwxyz")
                candidate = candidate.upper() if bare.isupper() else candidate
            else:
                count = min(3, max(1, len(_parts(bare)) + rng.choice((-1, 0, 0, 1))))
                candidate = _styled(rng.sample(WORDS, count), name)
            if candidate not in used and candidate != name and _plain_name(candidate):
                break
        mapping[name] = candidate
        used.add(candidate)
    return mapping


def rename(files: Mapping[str, Source], rng: random.Random, kept: frozenset[str] = frozenset()) -> dict[str, Source]:
    """Every file with the submission's own identifiers renamed the same way throughout (`kept` stay)."""
    scans = {path: _scan(source) for path, source in files.items()}
    seen = set().union(*(s.seen for s in scans.values())) if scans else set()
    blocked = set().union(*(s.blocked for s in scans.values())) if scans else set()
    defined = set().union(*(s.defined for s in scans.values())) if scans else set()
    names = {n for n in seen - blocked - RESERVED - kept if not (n.startswith("__") and n.endswith("__"))}
    taken = {value for source in files.values() for kind, value in source.pieces if kind in Name}
    mapping = new_names(names, taken, rng)
    return {path: _renamed(source, mapping, defined) for path, source in files.items()}


def _renamed(source: Source, mapping: Mapping[str, str], defined: set[str]) -> Source:
    pieces = list(source.pieces)
    if source.lang == "bash":
        for i, (kind, value) in enumerate(pieces):
            bare = value.removeprefix("$")
            if kind in Name.Variable and bare in mapping:
                pieces[i] = (kind, value[: len(value) - len(bare)] + mapping[bare])
        return Source(source.lang, tuple(pieces))
    sig = _significant(pieces)
    imports = _import_positions(source, sig)
    for position, index in enumerate(sig):
        kind, value = pieces[index]
        if kind not in Name or value not in mapping or position in imports:
            continue
        if any(kind in kept for kept in KEPT_KINDS):
            continue
        prev = pieces[sig[position - 1]][1] if position else ""
        if prev in (".", "?.") and value not in defined:
            continue
        pieces[index] = (kind, mapping[value])
    return Source(source.lang, tuple(pieces))


# --------------------------------------------------------------------------------------------------
# (b) Top-level functions and classes reordered

STARTS = {
    "python": re.compile(r"(async\s+def|def|class)\s|@"),
    "javascript": re.compile(
        r"(export\s+(default\s+)?)?((async\s+)?function\b|class\s)"
        r"|(export\s+)?(const|let|var)\s+\w+\s*=\s*(async\s*)?(\([^)]*\)|\w+)\s*=>"
    ),
    "bash": re.compile(r"function\s+\w+|\w+\s*\(\)\s*\{"),
}
STARTS["typescript"] = STARTS["javascript"]
COMMENT_LINE = re.compile(r"\s*(#(?!!)|//|/\*|\*)")


def _units(lines: Lines, lang: str) -> list[list[int]]:
    """The file's top-level statements as groups of line indices, a comment going with what follows it."""
    units: list[list[int]] = []
    for index, line in enumerate(lines.lines):
        top = line[:1] not in ("", " ", "\t", "\n", ")", "]", "}") and index not in lines.inside
        joins_decorator = lang == "python" and bool(units) and all(lines.lines[i].startswith("@") for i in units[-1])
        if (top and not joins_decorator) or not units:
            units.append([index])
        else:
            units[-1].append(index)
    merged: list[list[int]] = []
    pending: list[int] = []
    for unit in units:
        if all(COMMENT_LINE.match(lines.lines[i]) or not lines.lines[i].strip() for i in unit):
            pending += unit
            continue
        merged.append(pending + unit)
        pending = []
    if pending:
        merged.append(pending)
    return merged


def reorder(source: Source, rng: random.Random) -> str:
    """The text with its top-level functions and classes in another order (other statements stay put)."""
    start = STARTS.get(source.lang)
    lines = lines_of(source)
    if start is None:
        return source.text
    units = _units(lines, source.lang)

    def movable(unit: list[int]) -> bool:
        first = next((i for i in unit if not COMMENT_LINE.match(lines.lines[i]) and lines.lines[i].strip()), None)
        return first is not None and bool(start.match(lines.lines[first]))

    slots = [n for n, unit in enumerate(units) if movable(unit)]
    order = list(slots)
    for _ in range(10):
        rng.shuffle(order)
        if order != slots or len(slots) < 2:
            break
    placed = dict(zip(slots, order, strict=True))
    out: list[str] = []
    for n in range(len(units)):
        unit = units[placed.get(n, n)]
        text = "".join(lines.lines[i] for i in unit)
        if n in placed:
            text = text.rstrip("\n") + "\n" + "\n" * (2 if source.lang == "python" else 1)
        out.append(text)
    return "".join(out).rstrip("\n") + "\n"


# --------------------------------------------------------------------------------------------------
# (c) Reformatted: quotes swapped, re-indented, blank lines added and removed, long lines wrapped

SIMPLE_LITERAL = re.compile(r"""^(['"])([^'"\\\n`]*)\1$""")


def swap_quotes(source: Source) -> Source:
    """Every simple string literal with the other quotes (`'a'` <-> `"a"`); same length, same lines."""
    if source.lang not in ("python", *JS_LIKE):
        return source
    pieces = list(source.pieces)
    i = 0
    while i < len(pieces):
        kind = pieces[i][0]
        if kind not in (String.Single, String.Double):
            i += 1
            continue
        end = i
        while end + 1 < len(pieces) and pieces[end + 1][0] is kind:
            end += 1
        literal = "".join(value for _, value in pieces[i : end + 1])
        found = SIMPLE_LITERAL.match(literal)
        if found:
            other = '"' if found.group(1) == "'" else "'"
            pieces[i : end + 1] = [(kind, other + found.group(2) + other)]
        i = i + 1 if found else end + 1
    return Source(source.lang, tuple(pieces))


def wrap(line: str, unit: str) -> list[str] | None:
    """`line` with its first bracketed list of two or more items one item a line, trailing comma added."""
    body = line.rstrip("\n")
    lead = _indent(body)
    depth, quote, start = 0, "", -1
    commas: list[int] = []
    i = 0
    while i < len(body):
        char = body[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char in "([{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0 and start >= 0:
                items = [body[a + 1 : b].strip() for a, b in zip([start, *commas], [*commas, i], strict=True)]
                items = [item for item in items if item]
                if len(items) >= 2:
                    head = body[: start + 1]
                    return [head + "\n", *(lead + unit + item + ",\n" for item in items), lead + body[i:] + "\n"]
                start = -1
            depth = max(depth, 0)
        elif char == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _indent_unit(lines: Lines) -> int:
    widths = [len(_indent(lines.lines[i])) for i in lines.code if lines.lines[i].startswith(" ")]
    return min(widths, default=4) or 4


def reformat(source: Source, rng: random.Random) -> str:
    """The text as another formatter would leave it (the same tokens, save wrapped lists' trailing commas)."""
    swapped = swap_quotes(source)
    lines = lines_of(swapped)
    unit = _indent_unit(lines)
    new_unit = unit if source.lang == "python" else (4 if unit == 2 else 2)
    out: list[str] = []
    for index, line in enumerate(lines.lines):
        if index in lines.inside:
            out.append(line)
            continue
        if not line.strip():
            if rng.random() < 0.5:
                out.append("\n")
            continue
        lead = _indent(line)
        spaces = len(lead.expandtabs(unit))
        line = " " * ((spaces // unit) * new_unit + spaces % unit) + line.lstrip(" \t")
        wrapped = None
        wrappable = source.lang != "bash" and index not in lines.commented and not line.rstrip().endswith("\\")
        if wrappable and len(line.rstrip()) > WRAP_AT and index not in lines.open_:
            wrapped = wrap(line, " " * new_unit)
        out += wrapped or [line if line.endswith("\n") else line + "\n"]
        breaks = line.rstrip().endswith("\\")
        if index in lines.code and index not in lines.open_ and not breaks and rng.random() < 0.1:
            out.append("\n")
    return "".join(out)


def drop_semicolons(source: Source, rng: random.Random) -> str:
    """JavaScript without the semicolons that end lines (the `standard` / `prettier --no-semi` style)."""
    if source.lang not in JS_LIKE:
        return source.text
    pieces = list(source.pieces)
    depth = 0
    for i, (kind, value) in enumerate(pieces):
        if kind in String or kind in Comment:
            continue
        depth += value.count("(") - value.count(")")
        if value != ";" or depth != 0:
            continue
        after = pieces[i + 1 :]
        nxt = next((n for n, (k, v) in enumerate(after) if v.strip() and k not in Comment), len(after))
        ends_line = any("\n" in v for _, v in after[:nxt]) or nxt == len(after)
        hazard = nxt < len(after) and after[nxt][1][:1] in ("(", "[", "`", "+", "-", "/")
        if ends_line and not hazard:
            pieces[i] = (kind, "")
    return "".join(value for _, value in pieces)


# --------------------------------------------------------------------------------------------------
# (d) Comments removed, reworded and added

PHRASES = """make sure the input is valid|TODO: clean this up later|handle the edge case here|retry on
failure|keep this simple for now|main loop|see the README for details|parse the response|write the output
once at the end|guard against empty input|note: the order matters here|this is the important part|not
pretty but it works|helper for the step below|fail loudly, never silently|stable output please|the
contract says so|one request per item|FIXME: check with the spec|cheap check first""".replace("\n", " ").split("|")
REMOVED = "\x00"


def _comment(value: str, phrase: str) -> str:
    """A comment token's text with `phrase` as its words, its markers kept."""
    end = "\n" if value.endswith("\n") else ""
    if value.startswith("#"):
        return "# " + phrase + end
    if value.startswith("//"):
        return "// " + phrase + end
    if value.startswith("/**"):
        return "/** " + phrase + " */" + end
    return "/* " + phrase + " */" + end


def _docstring(value: str, phrase: str) -> str:
    found = re.match(r"""^([rRuU]?)('''|\"\"\"|'|")""", value)
    if not found:
        return value
    quote = found.group(2)
    return found.group(0) + phrase[:1].upper() + phrase[1:] + "." + quote


def comments(source: Source, rng: random.Random) -> str:
    """The text with about a third of its comments removed, a third reworded, and some added."""
    pieces = list(source.pieces)
    for i, (kind, value) in enumerate(pieces):
        if kind in Comment.Hashbang or (kind in Comment and value.startswith("#!")):
            continue
        if kind in Comment:
            draw = rng.random()
            if draw < 0.35:
                pieces[i] = (kind, REMOVED + ("\n" if value.endswith("\n") else ""))
            elif draw < 0.65:
                pieces[i] = (kind, _comment(value, rng.choice(PHRASES)))
        elif kind in String.Doc and rng.random() < 0.6:
            pieces[i] = (kind, _docstring(value, rng.choice(PHRASES)))
    text = "".join(value for _, value in pieces)
    text = "".join(
        line.replace(REMOVED, "")
        for line in text.splitlines(keepends=True)
        if not (REMOVED in line and not line.replace(REMOVED, "").strip())
    )
    return _add_comments(lex(text, source.lang), rng)


def _add_comments(source: Source, rng: random.Random) -> str:
    lines = lines_of(source)
    marker = "//" if source.lang in JS_LIKE else "#"
    out: list[str] = []
    for index, line in enumerate(lines.lines):
        if index in lines.code and index not in lines.inside and rng.random() < 0.08:
            out.append(f"{_indent(line)}{marker} {rng.choice(PHRASES)}\n")
        out.append(line)
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# (e) A share of the code lines edited: deleted, a plausible line inserted, a literal or operator changed

SWAPS = {
    "python": {
        "==": "!=",
        "!=": "==",
        "<": "<=",
        "<=": "<",
        ">": ">=",
        ">=": ">",
        "+": "-",
        "-": "+",
        "and": "or",
        "or": "and",
        "+=": "-=",
        "*": "//",
        "in": "not in",
    },
    "javascript": {
        "===": "!==",
        "!==": "===",
        "==": "!=",
        "!=": "==",
        "<": "<=",
        "<=": "<",
        ">": ">=",
        ">=": ">",
        "+": "-",
        "-": "+",
        "&&": "||",
        "||": "&&",
        "??": "||",
        "+=": "-=",
        "++": "--",
        "*": "/",
    },
}
SWAPS["typescript"] = SWAPS["javascript"]
INSERTS = {
    "python": (
        "{a} = {b}",
        "{a} = len({b})",
        "{a} = {b} or {{}}",
        "{a} = [x for x in {b} if x]",
        "{a} += {n}",
        'print("{w}", {a}, file=sys.stderr)',
        "assert {a} is not None, '{w}'",
        "{a} = {b}.get('{w}', {n})",
        "{a} = str({b}).strip()",
        "{a}.append({b})",
        "if not {a}:",
        "return {a}",
    ),
    "javascript": (
        "const {a} = {b};",
        "let {a} = {n};",
        "const {a} = {b}.length;",
        "if (!{a}) return null;",
        'console.debug("{w}", {a});',
        "{a} += {n};",
        "const {a} = Date.now();",
        "{b}.push({a});",
        "const {a} = {b} ?? {n};",
        "const {a} = JSON.stringify({b});",
        "if ({a} > {n}) return {b};",
    ),
    "bash": ('echo "{w}" >&2', "{A}={n}", ': "${{{A}:={w}}}"', 'export {A}="{w}"', "sleep 0.{n}"),
}
INSERTS["typescript"] = INSERTS["javascript"]


def _line_tokens(source: Source) -> dict[int, list[tuple[int, int, Piece]]]:
    """Each line's tokens as (column, piece index, piece), for tokens that start and end on that line."""
    found: dict[int, list[tuple[int, int, Piece]]] = {}
    line = column = 0
    for index, piece in enumerate(source.pieces):
        value = piece[1]
        if "\n" not in value:
            found.setdefault(line, []).append((column, index, piece))
            column += len(value)
        else:
            line += value.count("\n")
            column = len(value) - value.rindex("\n") - 1
    return found


def _changed(line: str, tokens: Sequence[tuple[int, int, Piece]], lang: str, rng: random.Random) -> str | None:
    """`line` with one operator swapped or one literal changed, or None when it has neither."""
    swaps = SWAPS.get(lang, {})
    operators = [(c, v) for c, _, (k, v) in tokens if (k in Operator or k in Keyword) and v in swaps]
    literals = [(c, k, v) for c, _, (k, v) in tokens if k in Number or _is_text(k, v)]
    if operators and (not literals or rng.random() < 0.5):
        column, value = rng.choice(operators)
        return line[:column] + swaps[value] + line[column + len(value) :]
    if not literals:
        return None
    column, kind, value = rng.choice(literals)
    if kind in Number:
        new = str(rng.randint(0, 120))
    elif value[:1] in ("'", '"', "`") and len(value) > 1 and value[0] == value[-1]:
        new = value[0] + rng.choice(WORDS) + value[-1]  # a whole literal in one token (JavaScript)
    else:
        new = rng.choice(WORDS)  # a literal's words (Python lexes the quotes apart)
    return line[:column] + new + line[column + len(value) :]


def _is_text(kind: _TokenType, value: str) -> bool:
    """A string literal's token with words in it (not a lone quote, prefix, escape or interpolation)."""
    plain = kind in String and not any(kind in k for k in (String.Doc, String.Affix, String.Interpol, String.Escape))
    return plain and len(value.strip("'\"`")) > 1 and "\n" not in value


def _inserted(line: str, lang: str, names: Sequence[str], rng: random.Random) -> str:
    """A plausible new line of code, indented to follow `line`."""
    lead = _indent(line)
    stripped = line.rstrip()
    if stripped.endswith(":" if lang == "python" else "{"):
        lead += "    " if lang == "python" else "  "
    template = rng.choice(INSERTS.get(lang, ("{a} = {n}",)))
    pool = list(names) or WORDS
    body = template.format(
        a=rng.choice(pool),
        b=rng.choice(pool),
        n=rng.randint(1, 99),
        w=rng.choice(WORDS),
        A=rng.choice(WORDS).upper(),
    )
    if body.endswith(":") and lang == "python":
        body += " " + ("pass" if rng.random() < 0.5 else "return None")
    return lead + body + "\n"


def edit(source: Source, rate: float, rng: random.Random) -> str:
    """The text with `rate` of its code lines edited: a third deleted, a third followed by a new line,
    a third with an operator or literal changed (a new line where there is neither)."""
    if rate <= 0:
        return source.text
    lines = lines_of(source)
    tokens = _line_tokens(source)
    candidates = sorted(lines.code - lines.inside)
    chosen = set(rng.sample(candidates, round(rate * len(candidates))))
    names = sorted(
        {
            v
            for k, v in source.pieces
            if k in Name and not any(k in kept for kept in KEPT_KINDS) and v not in RESERVED and v.isidentifier()
        }
    )
    out: list[str] = []
    for index, line in enumerate(lines.lines):
        if index not in chosen:
            out.append(line)
            continue
        draw = rng.random()
        if draw < 1 / 3:
            continue
        if draw < 2 / 3:
            changed = _changed(line, tokens.get(index, []), source.lang, rng)
            if changed is not None:
                out.append(changed)
                continue
        out.append(line)
        if index not in lines.open_:
            out.append(_inserted(line, source.lang, names, rng))
    return "".join(out)


# --------------------------------------------------------------------------------------------------
# The kinds of copy

FileStep = Callable[[Source, random.Random], str]


@dataclass(frozen=True)
class Kind:
    """One way of disguising a copy: identifiers renamed first (or not), then the steps, in order."""

    name: str
    renamed: bool = False
    steps: tuple[FileStep, ...] = ()


def _edit_step(rate: float) -> FileStep:
    return lambda source, rng: edit(source, rate, rng)


ALL_STEPS: tuple[FileStep, ...] = (reorder, comments)
AFTER_EDITS: tuple[FileStep, ...] = (reformat, drop_semicolons)
KINDS = (
    Kind("rename", renamed=True),
    Kind("reorder", steps=(reorder,)),
    Kind("reformat", steps=(reformat,)),
    Kind("semicolons (JS)", steps=(drop_semicolons,)),
    Kind("comments", steps=(comments,)),
    *(Kind(f"edit {rate:.0%}", steps=(_edit_step(rate),)) for rate in EDIT_RATES),
    Kind("all", renamed=True, steps=ALL_STEPS + AFTER_EDITS),
    *(
        Kind(f"all + {rate:.0%}", renamed=True, steps=(*ALL_STEPS, _edit_step(rate), *AFTER_EDITS))
        for rate in EDIT_RATES
    ),
)


def disguise(original: Original, kind: Kind, rng: random.Random) -> dict[str, str]:
    """The code files' texts after `kind`'s steps."""
    current = rename(original.code, rng, original.kept) if kind.renamed else dict(original.code)
    texts = {path: source.text for path, source in current.items()}
    for step in kind.steps:
        texts = {path: step(current[path], rng) for path in sorted(current)}
        current = {path: lex(text, current[path].lang) for path, text in texts.items()}
    return texts


def mutate(original: Original, rng: random.Random) -> dict[str, str]:
    """A synthetic submission for the scale runs: renamed, `SCALE_EDIT_RATE` of its lines edited."""
    renamed = rename(original.code, rng, original.kept)
    return {path: edit(source, SCALE_EDIT_RATE, rng) for path, source in sorted(renamed.items())}


# --------------------------------------------------------------------------------------------------
# Samples, the base, copies on disk


@dataclass(frozen=True)
class Original:
    """A sample submission: where it is, its own code files as tokens, its prose files."""

    takehome: str
    name: str
    folder: Path
    code: dict[str, Source]
    prose: tuple[str, ...]
    kept: frozenset[str] = frozenset()  # names never renamed: the handout's


def handout_base(takehome: str) -> Base:
    """The base of a take-home: every handout file, folders walked (caches skipped)."""
    plugin = takehomes.load(takehome)
    data = plugin.data()
    files: list[tuple[str, bytes]] = []
    for source_name, target_name in plugin.handout_files:
        files += list(_walk_traversable(data.joinpath(source_name), target_name))
    return base_of(files)


def _walk_traversable(node: Traversable, relative: str) -> Iterator[tuple[str, bytes]]:
    if node.is_file():
        yield relative, node.read_bytes()
    elif node.is_dir():
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.name != "__pycache__":
                yield from _walk_traversable(child, f"{relative}/{child.name}")


def handout_names(takehome: str) -> frozenset[str]:
    """Functions and classes the handout's code defines (the draft's API): a copier keeps those names."""
    plugin = takehomes.load(takehome)
    names: set[str] = set()
    for source_name, target_name in plugin.handout_files:
        for path, data in _walk_traversable(plugin.data().joinpath(source_name), target_name):
            text = data.decode("utf-8", errors="replace")
            if (lang := language(path, text)) in CODE:
                names |= _scan(lex(text, lang)).defined
    return frozenset(names)


def load_original(takehome: str, folder: Path, base: Base, kept: frozenset[str] = frozenset()) -> Original:
    """A sample as the copies start from it: its own files (the base's left out)."""
    own, _ = own_files(folder, base.digests)
    code: dict[str, Source] = {}
    prose: list[str] = []
    for file in own:
        lang = language(file.path, file.text)
        if lang in CODE:
            code[file.path] = lex(file.text, lang)
        elif PurePosixPath(file.path).suffix.lower() in PROSE_SUFFIXES:
            prose.append(file.path)
    return Original(takehome, folder.name, folder, code, tuple(prose), kept)


def originals(takehome: str, base: Base) -> list[Original]:
    """The take-home's samples, in name order."""
    folder = runner.SAMPLES / takehome
    kept = handout_names(takehome)
    return [load_original(takehome, p, base, kept) for p in sorted(folder.iterdir()) if p.is_dir()]


def lookalike_folders(takehome: str) -> list[Path]:
    """Independent solutions written to converge on the samples' structure (benchmarks/lookalikes/)."""
    folder = LOOKALIKES / takehome
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def write_copy(original: Original, texts: Mapping[str, str], dest: Path, prose: Mapping[str, bytes | None]) -> None:
    """The sample's folder at `dest`, hard-linked, with `texts` written over its code and its prose files
    replaced as `prose` says (path -> new bytes, or None: left out; a path not in it is kept)."""
    for root, dirs, names in os.walk(original.folder):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        relative = Path(root).relative_to(original.folder)
        (dest / relative).mkdir(parents=True, exist_ok=True)
        for name in names:
            path = (relative / name).as_posix()
            target = dest / relative / name
            if path in texts:
                target.write_text(texts[path], encoding="utf-8")
            elif path not in prose:
                _link(Path(root) / name, target)
            elif (data := prose[path]) is not None:
                target.write_bytes(data)


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:
        shutil.copy2(source, target, follow_symlinks=False)


# --------------------------------------------------------------------------------------------------
# Planted copies: measured


@dataclass(frozen=True)
class Entry:
    """One fingerprinted submission of a pool: an original (kind `original`) or a copy of one."""

    key: str
    family: str
    kind: str
    files: tuple[CodeFile, ...]
    hashes: frozenset[int]


@dataclass(frozen=True)
class Scored:
    """A pair measured: planted (an original and its copy) or independent."""

    takehome: str
    kind: str
    planted: bool
    share: float
    longest: int
    candidate: bool  # found by `neighbours`: a pair it does not find is never shown


def entry(key: str, family: str, kind: str, folder: Path, base: Base) -> Entry:
    """`folder` fingerprinted against `base`."""
    prints = fingerprint(folder, base)
    return Entry(key, family, kind, prints.files, prints.hashes)


def measure_pool(entries: Sequence[Entry]) -> tuple[frozenset[int], dict[tuple[str, str], Match]]:
    """What the kit does with a pool: the idioms, the candidate pairs, each measured."""
    hashes = {e.key: e.hashes for e in entries}
    ignore = common(hashes)
    by_key = {e.key: e for e in entries}
    found = neighbours(hashes, ignore)
    return ignore, {pair: match(by_key[pair[0]].files, by_key[pair[1]].files, ignore) for pair in found}


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def score_pool(takehome: str, kind: str, entries: Sequence[Entry], independent: bool) -> list[Scored]:
    """Every planted pair of the pool, and (when `independent`) every pair of different families with a copy."""
    ignore, found = measure_pool(entries)
    originals_ = {e.family: e for e in entries if e.kind == ORIGINAL}
    scored: list[Scored] = []
    for copy in (e for e in entries if e.kind != ORIGINAL):
        source = originals_[copy.family]
        pair = _pair(source.key, copy.key)
        result = found.get(pair) or match(source.files, copy.files, ignore)
        scored.append(Scored(takehome, kind, True, result.share, result.longest, pair in found))
    if not independent:
        return scored
    for position, a in enumerate(entries):
        for b in entries[position + 1 :]:
            if a.family == b.family or (a.kind == ORIGINAL and b.kind == ORIGINAL and kind != ORIGINAL):
                continue
            result = found.get(_pair(a.key, b.key))
            share, longest = (result.share, result.longest) if result else (0.0, 0)
            scored.append(Scored(takehome, kind, False, share, longest, result is not None))
    return scored


@dataclass
class Planted:
    """Everything the planted-copies part measured."""

    scored: list[Scored] = field(default_factory=list)
    one_pool: list[tuple[str, int, int, float, float]] = field(default_factory=list)
    copies: int = 0


def make_copies(original: Original, folder: Path, seed: int, prose: Mapping[str, bytes | None]) -> dict[str, Path]:
    """Each kind's copy of `original` under `folder` (a kind that changes nothing makes none)."""
    made: dict[str, Path] = {}
    unchanged = {path: source.text for path, source in original.code.items()}
    for kind in KINDS:
        rng = random.Random(f"{seed}:{original.takehome}:{original.name}:{kind.name}")
        texts = disguise(original, kind, rng)
        if texts == unchanged:
            continue
        dest = folder / _slug(kind.name) / original.name
        write_copy(original, texts, dest, prose)
        made[kind.name] = dest
    return made


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def prose_plan(sample: Original, mode: str, rng: random.Random) -> dict[str, bytes | None]:
    """What a copy gets instead of the sample's README/NOTE files: nothing (`drop`), the same (`keep`), or
    (`replace`) notes of its own: as many lines of as many words, words that no other copy shares."""
    if mode == "keep":
        return {}
    if mode == "drop":
        return dict.fromkeys(sample.prose)
    return {path: own_notes((sample.folder / path).read_text(encoding="utf-8"), rng) for path in sample.prose}


NOTE_WORDS = _words(" ".join(PHRASES).lower().replace(":", "").replace(",", "")) + WORDS


def own_notes(text: str, rng: random.Random) -> bytes:
    """Prose the length of `text` (line by line, word for word) in other words, in no other copy's order."""
    out = []
    for line in text.splitlines():
        count = len(line.split())
        out.append(" ".join(rng.choice(NOTE_WORDS) for _ in range(count)))
    return ("\n".join(out) + "\n").encode()


def planted(work: Path, seed: int, prose: str, limit: int | None = None) -> Planted:
    """Copies made, fingerprinted and measured, pool by pool (of the first `limit` samples of each take-home)."""
    result = Planted()
    for takehome in TAKEHOMES:
        base = handout_base(takehome)
        samples = originals(takehome, base)[:limit]
        log(f"{takehome}: {len(samples)} samples, copies of {len(KINDS)} kinds")
        base_entries = [entry(s.name, s.name, ORIGINAL, s.folder, base) for s in samples]
        # the look-alikes are independent of every sample and of each other: only in the originals' pool
        alike = [entry(f.name, f.name, ORIGINAL, f, base) for f in lookalike_folders(takehome)]
        log(f"{takehome}: {len(alike)} independent look-alikes")
        result.scored += score_pool(takehome, ORIGINAL, base_entries + alike, independent=True)
        copies: dict[str, list[Entry]] = {kind.name: [] for kind in KINDS}
        for sample in samples:
            plan = prose_plan(sample, prose, random.Random(f"{seed}:{takehome}:{sample.name}:notes"))
            for kind_name, folder in make_copies(sample, work / takehome, seed, plan).items():
                copies[kind_name].append(entry(f"{sample.name}~{kind_name}", sample.name, kind_name, folder, base))
        for kind in KINDS:
            families = {e.family for e in copies[kind.name]}
            pool = [e for e in base_entries if e.family in families] + copies[kind.name]
            result.scored += score_pool(takehome, kind.name, pool, independent=True)
            result.copies += len(copies[kind.name])
        everything = base_entries + [e for kind in KINDS for e in copies[kind.name]]
        result.one_pool.append(_one_pool(takehome, everything))
    return result


def _one_pool(takehome: str, entries: Sequence[Entry]) -> tuple[str, int, int, float, float]:
    """Every copy in one pool with the originals: (take-home, pool, idioms ignored, recall, median share)."""
    hashes = {e.key: e.hashes for e in entries}
    ignore = common(hashes)
    scored = score_pool(takehome, "one pool", entries, independent=False)
    flagged = sum(s.candidate and s.share >= THRESHOLD for s in scored)
    return takehome, len(entries), len(ignore), flagged / len(scored), statistics.median(s.share for s in scored)


# --------------------------------------------------------------------------------------------------
# Planted copies: reported


def _flagged(s: Scored, threshold: float, longest: int) -> bool:
    return s.candidate and s.share >= threshold and s.longest >= longest


def threshold_rows(scored: Sequence[Scored]) -> list[list[object]]:
    """Per take-home and overall, per threshold: recall and false pairs for each minimum longest fragment."""
    rows: list[list[object]] = []
    for scope in (*TAKEHOMES, "overall"):
        chosen = [s for s in scored if scope in ("overall", s.takehome)]
        plant = [s for s in chosen if s.planted]
        indep = [s for s in chosen if not s.planted]
        for threshold in THRESHOLDS:
            row: list[object] = [scope, f"{threshold:.1f}", len(plant), len(indep)]
            for longest in LONGEST:
                row.append(sum(_flagged(s, threshold, longest) for s in plant) / len(plant))
                row.append(sum(_flagged(s, threshold, longest) for s in indep))
            rows.append(row)
    return rows


def kind_rows(scored: Sequence[Scored], scope: str) -> list[list[object]]:
    """Per kind: the planted pairs' shares and recall at the kit's threshold, and the independent maximum."""
    rows: list[list[object]] = []
    chosen = [s for s in scored if scope in ("overall", s.takehome)]
    for kind in (ORIGINAL, *(k.name for k in KINDS)):
        plant = [s for s in chosen if s.kind == kind and s.planted]
        indep = [s for s in chosen if s.kind == kind and not s.planted]
        shares = [s.share for s in plant]
        rows.append(
            [
                "independent originals" if kind == ORIGINAL else kind,
                len(plant) or None,
                statistics.median(shares) if shares else None,
                min(shares) if shares else None,
                float(statistics.median(s.longest for s in plant)) if plant else None,
                sum(_flagged(s, THRESHOLD, 0) for s in plant) / len(plant) if plant else None,
                sum(not s.candidate for s in plant) if plant else None,
                len(indep),
                max((s.share for s in indep), default=0.0),
            ]
        )
    return rows


def report_planted(result: Planted) -> None:
    """The planted-copies tables, on stdout."""
    scored = result.scored
    print(f"\nPLANTED COPIES: {result.copies} copies of {len(TAKEHOMES)} take-homes' samples")
    headers = ["kind", "pairs", "share median", "share min", "longest median", f"recall@{THRESHOLD}"]
    headers += ["not candidates", "independent pairs", "independent max"]
    for scope in (*TAKEHOMES, "overall"):
        print(f"\n{scope}")
        print(runner.table(headers, kind_rows(scored, scope)))
    headers = ["scope", "threshold", "planted", "independent"]
    for longest in LONGEST:
        headers += [f"recall L>={longest}", f"false L>={longest}"]
    print("\nTHRESHOLDS: flagged = found by neighbours, share >= threshold and longest >= L lines")
    print(runner.table(headers, threshold_rows(scored)))
    print("\nONE POOL: every copy of every kind in one pool with the originals (a sample copied many times)")
    rows = [[t, n, ignored, recall, median] for t, n, ignored, recall, median in result.one_pool]
    print(runner.table(["take-home", "pool", "idioms ignored", f"recall@{THRESHOLD}", "share median"], rows))


def recommend(scored: Sequence[Scored]) -> tuple[float, float, int, int]:
    """The lowest threshold with the fewest false pairs (L = 0): (threshold, recall, false pairs, independent)."""
    plant = [s for s in scored if s.planted]
    indep = [s for s in scored if not s.planted]
    options = []
    for threshold in THRESHOLDS:
        recall = sum(_flagged(s, threshold, 0) for s in plant) / len(plant)
        false = sum(_flagged(s, threshold, 0) for s in indep)
        options.append((false, -recall, threshold))
    false, negative, threshold = min(options)
    return threshold, -negative, false, len(indep)


def margin_line(scored: Sequence[Scored]) -> str:
    """The weakest planted copy against the strongest independent pair (look-alikes included): the room the
    default threshold sits in."""
    plant = [s for s in scored if s.planted and s.kind != "one pool"]
    indep = [s for s in scored if not s.planted]
    weakest = min(plant, key=lambda s: s.share)
    strongest = max(indep, key=lambda s: s.share)
    room = weakest.share - strongest.share
    return (
        f"\nMARGIN: weakest planted copy {weakest.share:.2f} ({weakest.takehome}, {weakest.kind}); strongest "
        f"independent pair {strongest.share:.2f} ({strongest.takehome}); margin {room:+.2f}; "
        f"the default threshold {THRESHOLD} flags {sum(_flagged(s, THRESHOLD, 0) for s in plant)} of {len(plant)} "
        f"planted pairs and {sum(_flagged(s, THRESHOLD, 0) for s in indep)} of {len(indep)} independent ones"
    )


# --------------------------------------------------------------------------------------------------
# Scale: synthetic cohorts and a history

_SCALE_ORIGINALS: list[Original] = []  # set before the pools fork, read by their workers
_SCALE_BASES: dict[str, Base] = {}


@dataclass(frozen=True)
class Compact:
    """A fingerprinted submission, small: per file its path and its marks as arrays (no text)."""

    files: tuple[tuple[str, bytes, bytes, bytes], ...]

    @property
    def hashes(self) -> frozenset[int]:
        """Every distinct fingerprint."""
        return frozenset(value for _, hashes, _, _ in self.files for value in array("q", hashes))

    def code_files(self) -> tuple[CodeFile, ...]:
        """The files as `match` takes them."""
        out = []
        for path, hashes, firsts, lasts in self.files:
            marks = tuple(map(Mark, array("q", hashes), array("i", firsts), array("i", lasts)))
            out.append(CodeFile(path, "", marks))
        return tuple(out)


def _generate_one(task: tuple[int, str, int]) -> None:
    index, dest, seed = task
    original = _SCALE_ORIGINALS[index % len(_SCALE_ORIGINALS)]
    rng = random.Random(f"{seed}:synthetic:{index}")
    write_copy(original, mutate(original, rng), Path(dest), {})


def _fingerprint_one(task: tuple[str, str]) -> Compact:
    folder, takehome = task
    prints = fingerprint(Path(folder), _SCALE_BASES[takehome])
    files = []
    for file in prints.files:
        hashes = array("q", (m.hash for m in file.marks)).tobytes()
        firsts = array("i", (m.first for m in file.marks)).tobytes()
        lasts = array("i", (m.last for m in file.marks)).tobytes()
        files.append((file.path, hashes, firsts, lasts))
    return Compact(tuple(files))


def _pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))


@dataclass(frozen=True)
class Synthetic:
    """A synthetic submission on disk: its key, folder and take-home."""

    key: str
    folder: Path
    takehome: str


def generate(count: int, start: int, folder: Path, seed: int, jobs: int) -> list[Synthetic]:
    """`count` mutated samples numbered from `start`, the samples taken in turn."""
    made = []
    tasks = []
    for index in range(start, start + count):
        original = _SCALE_ORIGINALS[index % len(_SCALE_ORIGINALS)]
        dest = folder / f"{index:05d}-{original.name}"
        made.append(Synthetic(dest.name, dest, original.takehome))
        tasks.append((index, str(dest), seed))
    with _pool(jobs) as pool:
        list(pool.map(_generate_one, tasks, chunksize=32))
    return made


def fingerprint_all(subs: Sequence[Synthetic], jobs: int) -> tuple[float, float, dict[str, Compact]]:
    """Every submission fingerprinted in a pool of `jobs`: (wall s, CPU s of the workers, prints by key)."""
    cpu = runner.children_cpu()
    started = time.perf_counter()
    with _pool(jobs) as pool:
        prints = list(pool.map(_fingerprint_one, [(str(s.folder), s.takehome) for s in subs], chunksize=16))
    wall = time.perf_counter() - started
    return wall, runner.children_cpu() - cpu, {s.key: p for s, p in zip(subs, prints, strict=True)}


@dataclass(frozen=True)
class Pairing:
    """All pairs found in a pool: the stages' seconds, what they found, the memory they took."""

    label: str
    pool: int
    fingerprint_wall: float
    fingerprint_cpu: float
    common: float
    neighbours: float
    match: float
    cpu: float  # CPU seconds of common + neighbours + match (the machine may be shared: wall is not all ours)
    ignored: int
    candidates: int
    flagged: int
    rss_before: float  # MiB
    rss_index: float  # MiB, peak up to the end of `neighbours` (its inverted index), the peak reset before it
    rss_peak: float  # MiB, peak to the end (with every matched submission's marks as `match` takes them)

    @property
    def seconds(self) -> float:
        """Time to find all pairs once the submissions are fingerprinted."""
        return self.common + self.neighbours + self.match


def _rss() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MiB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            found[line.split(":")[0]] = int(line.split()[1]) / 1024
    if not found:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak
    return found["VmRSS"], found["VmHWM"]


def _reset_peak() -> None:
    with contextlib.suppress(OSError):  # resets VmHWM (Linux)
        Path("/proc/self/clear_refs").write_text("5")


def pairing(
    label: str, prints: Mapping[str, Compact], keys: Sequence[str] | None, fingerprint_s: tuple[float, float]
) -> Pairing:
    """`common`, `neighbours` (from `keys`, or all pairs) and `match` on every candidate, timed apart."""
    hashes = {key: value.hashes for key, value in prints.items()}
    _reset_peak()
    rss_before = _rss()[0]
    cpu_started = time.process_time()
    started = time.perf_counter()
    ignore = common(hashes)
    after_common = time.perf_counter()
    found = neighbours(hashes, ignore, keys)
    after_neighbours = time.perf_counter()
    rss_index = _rss()[1]
    files: dict[str, tuple[CodeFile, ...]] = {}
    flagged = 0
    for a, b in found:
        for key in (a, b):
            if key not in files:
                files[key] = prints[key].code_files()
        flagged += match(files[a], files[b], ignore).share >= THRESHOLD
    done = time.perf_counter()
    cpu = time.process_time() - cpu_started
    rss_peak = _rss()[1]
    return Pairing(
        label,
        len(prints),
        *fingerprint_s,
        after_common - started,
        after_neighbours - after_common,
        done - after_neighbours,
        cpu,
        len(ignore),
        len(found),
        flagged,
        rss_before,
        rss_index,
        rss_peak,
    )


def scale(work: Path, seed: int, cohorts: Sequence[int], history: int, jobs: int) -> list[Pairing]:
    """The cohorts, each all pairs; then the largest against a history of `history` more."""
    _SCALE_ORIGINALS.clear()
    for takehome in TAKEHOMES:
        _SCALE_BASES[takehome] = handout_base(takehome)
        _SCALE_ORIGINALS.extend(originals(takehome, _SCALE_BASES[takehome]))
    runs: list[Pairing] = []
    largest = max(cohorts)
    started = time.perf_counter()
    subs = generate(largest, 0, work / "cohort", seed, jobs)
    log(f"generated {largest} synthetic submissions in {time.perf_counter() - started:.1f} s")
    prints: dict[str, Compact] = {}
    for size in sorted(cohorts):
        wall, cpu, prints = fingerprint_all(subs[:size], jobs)
        log(f"fingerprinted {size} in {wall:.1f} s ({cpu:.1f} s CPU, {jobs} workers)")
        runs.append(pairing(f"all pairs of {size}", prints, None, (wall, cpu)))
        log(f"  {runs[-1].label}: {runs[-1].seconds:.1f} s, {runs[-1].candidates} candidates")
    if history > 0:
        started = time.perf_counter()
        past = generate(history, largest, work / "history", seed, jobs)
        log(f"generated a history of {history} in {time.perf_counter() - started:.1f} s")
        h_wall, h_cpu, h_prints = fingerprint_all(past, jobs)
        log(f"fingerprinted the history in {h_wall:.1f} s ({h_cpu:.1f} s CPU)")
        pool = {**h_prints, **prints}
        runs.append(pairing(f"{largest} vs history of {history}", pool, [s.key for s in subs], (h_wall, h_cpu)))
        log(f"  {runs[-1].label}: {runs[-1].seconds:.1f} s, {runs[-1].candidates} candidates")
    return runs


def report_scale(runs: Sequence[Pairing], jobs: int) -> None:
    """The scale tables, on stdout."""
    print(f"\nSCALE: synthetic submissions (samples renamed, {SCALE_EDIT_RATE:.0%} of lines edited), {jobs} workers")
    headers = ["run", "pool", "fingerprint wall s", "fingerprint CPU s", "common s", "neighbours s", "match s"]
    headers += ["all pairs s", "all pairs CPU s"]
    rows: list[list[object]] = [
        [r.label, r.pool, r.fingerprint_wall, r.fingerprint_cpu, r.common, r.neighbours, r.match, r.seconds, r.cpu]
        for r in runs
    ]
    print(runner.table(headers, rows))
    print("(the history row's fingerprint columns are the history's; the cohort's are on the row of its size)")
    headers = ["run", "idioms ignored", "candidates", f"share>={THRESHOLD}", "RSS before MiB", "RSS neighbours MiB"]
    headers += ["RSS peak MiB"]
    rows = [[r.label, r.ignored, r.candidates, r.flagged, r.rss_before, r.rss_index, r.rss_peak] for r in runs]
    print()
    print(runner.table(headers, rows))
    print("(RSS neighbours: peak to the end of `neighbours`; RSS peak: to the end, with the marks `match` needs)")


# --------------------------------------------------------------------------------------------------


def last_line(scored: Sequence[Scored], runs: Sequence[Pairing], history: int, largest: int = max(COHORTS)) -> str:
    """The line scripts read (`largest`: the largest cohort of the scale runs)."""
    plant = [s for s in scored if s.planted]
    indep = [s for s in scored if not s.planted]
    recall = sum(_flagged(s, THRESHOLD, 0) for s in plant) / len(plant)
    false = sum(_flagged(s, THRESHOLD, 0) for s in indep)
    line = f"similarity: recall {recall:.2f} at threshold {THRESHOLD}, {false} false pairs among {len(indep)} "
    line += "independent pairs"
    by_label = {r.label: r for r in runs}
    cohort = by_label.get(f"all pairs of {largest}")
    if cohort:
        line += f"; all pairs of {cohort.pool} in {cohort.seconds:.1f} s"
    past = next((r for r in runs if "history" in r.label), None)
    if past:
        line += f", {largest} vs {history} in {past.seconds:.1f} s"
    elif runs:
        line += ", no history run"
    return line


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="cohorts of 100 and 1,000 only, no history")
    parser.add_argument("--history", type=int, default=HISTORY, help=f"history size (default {HISTORY}; 0: none)")
    parser.add_argument("--no-scale", action="store_true", help="the planted copies only")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    parser.add_argument("--jobs", type=int, default=runner.cores(), help="workers for the scale runs (default: cores)")
    parser.add_argument(
        "--prose",
        choices=("replace", "drop", "keep"),
        default="replace",
        help="a copy's README/NOTE: notes of its own, same length (default), left out, or kept as is",
    )
    parser.add_argument("--keep", type=Path, help="write the copies here (kept) instead of a temporary folder")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help=f"{SMOKE_SAMPLES} samples of each take-home planted, {SMOKE_COHORTS[0]} against a history of"
        f" {SMOKE_HISTORY}, one worker: does the benchmark run? (figures mean nothing)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the tables and the last line."""
    args = parse_args(argv)
    history = 0 if args.quick else args.history
    limit, cohorts, jobs = None, COHORTS, args.jobs
    if args.smoke:
        limit, cohorts, history, jobs = SMOKE_SAMPLES, SMOKE_COHORTS, SMOKE_HISTORY, 1
    with tempfile.TemporaryDirectory(prefix="similarity-") as temporary:
        work = args.keep or Path(temporary)
        for ours in ("planted", "scale"):  # this script's own folders, replaced
            shutil.rmtree(work / ours, ignore_errors=True)
        started = time.perf_counter()
        result = planted(work / "planted", args.seed, args.prose, limit)
        log(f"planted copies: {time.perf_counter() - started:.1f} s")
        report_planted(result)
        runs: list[Pairing] = []
        if not args.no_scale:
            runs = scale(work / "scale", args.seed, cohorts, history, jobs)
            report_scale(runs, jobs)
        print(margin_line(result.scored))
        threshold, recall, false, total = recommend(result.scored)
        print(
            f"\nlowest threshold with the fewest false pairs: {threshold} (recall {recall:.2f}, "
            f"{false} false of {total})"
        )
        print(last_line(result.scored, runs, history, max(cohorts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
