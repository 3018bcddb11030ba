"""Find volatile values (timestamps, random ids, durations, token counts, model ids) in JSON."""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

Kind = Literal["timestamp", "date", "uuid", "random_id", "duration", "token_count", "model_id"]
KINDS: tuple[Kind, ...] = get_args(Kind)
# Kinds found by how a value looks, not by what it means: volatile only when it changes between runs.
LOOKS_RANDOM: frozenset[Kind] = frozenset({"uuid", "random_id"})

ROOT_PATH = "$"
MAX_VALUE_CHARS = 120
ELLIPSIS = "..."

# Unix epoch bounds for "a plausible moment in 2001..2100", in seconds.
EPOCH_MIN_SECONDS = 978_307_200  # 2001-01-01T00:00:00Z
EPOCH_MAX_SECONDS = 4_102_444_800  # 2100-01-01T00:00:00Z

# --- key names ------------------------------------------------------------------------------

TIMESTAMP_KEY_WORDS = frozenset({"timestamp", "timestamps", "ts", "datetime", "epoch"})
TIMESTAMP_SOLE_KEYS = frozenset(
    {"time", "created", "updated", "modified", "generated", "started", "finished", "ended", "now"}
)
TIMESTAMP_KEY_SUFFIXES = frozenset({"at", "time"})
DATE_KEY_WORDS = frozenset({"date", "dates"})
DURATION_KEY_WORDS = frozenset(
    {"latency", "latencies", "elapsed", "duration", "durations", "took", "runtime", "walltime"}
)
DURATION_TIME_PREFIXES = frozenset(
    {"response", "run", "wall", "cpu", "processing", "exec", "execution", "compute", "total"}
)
DURATION_UNIT_SUFFIXES = frozenset({"ms", "msec", "millis", "milliseconds", "sec", "secs", "seconds", "ns", "us"})
TOKEN_KEY_WORDS = frozenset({"tokens", "usage"})
MODEL_KEY_PAIRS = tuple(["model", word] for word in ("id", "name", "version", "used"))
RANDOM_ID_KEY_WORDS = frozenset({"uuid", "guid", "nonce", "pid"})
RANDOM_ID_OWNERS = frozenset(
    {"run", "request", "req", "trace", "span", "session", "correlation", "execution"}
    | {"invocation", "job", "completion", "response", "process"}
)

_KEY_TOKEN_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

# --- value patterns -------------------------------------------------------------------------

_YEAR = r"(?:19|20|21)\d{2}"
_MONTH = r"(?:0[1-9]|1[0-2])"
_DAY = r"(?:0[1-9]|[12]\d|3[01])"
_HMS = r"(?:[01]\d|2[0-3]):[0-5]\d"
_WEEKDAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MON_NAME = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"

MODEL_FAMILIES: tuple[str, ...] = (
    *("gpt", "chatgpt", "text-davinci", "davinci", "claude", "llama", "codellama", "mistral"),
    *("mixtral", "codestral", "gemini", "gemma", "qwen", "deepseek", "phi", "falcon"),
    *("command-r", "o1", "o3", "o4", "gradelib-stub"),
)
# A model name without a digit still counts when one of its parts is a known tier word.
MODEL_TIER_WORDS = frozenset(
    {"latest", "pro", "turbo", "large", "small", "medium", "mini", "nano", "flash"}
    | {"opus", "sonnet", "haiku", "instant", "preview", "stub"}
)
HEX_REASON = "hex string"
DURATION_REASON = "duration in text"
TOKEN_REASON = "random-looking token"  # noqa: S105 - a finding's name, not a secret
PROVIDER_ID_PREFIXES: tuple[str, ...] = (
    *("chatcmpl", "cmpl", "msg", "req", "resp", "run", "call", "toolu", "thread", "asst"),
    *("batch", "sess"),
)


@dataclass(frozen=True)
class _Pattern:
    kind: Kind
    regex: re.Pattern[str]
    reason: str
    # Earlier patterns win a tie between overlapping matches of the same length.
    priority: int


def _pattern(kind: Kind, regex: str, reason: str, priority: int, flags: int = 0) -> _Pattern:
    return _Pattern(kind, re.compile(regex, flags), reason, priority)


_UUID = r"(?<![0-9A-Fa-f-])[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}(?![0-9A-Fa-f-])"
_ISO = (
    rf"(?<![\w.]){_YEAR}-{_MONTH}-{_DAY}[T ]{_HMS}(?::[0-5]\d(?:[.,]\d+)?)?"
    r"(?:\s?(?:Z|UTC|[+-](?:[01]\d|2[0-3]):?[0-5]\d))?(?![\w:])"
)
_ISO_COMPACT = rf"(?<![\w.]){_YEAR}{_MONTH}{_DAY}T(?:[01]\d|2[0-3])[0-5]\d[0-5]\dZ?(?!\w)"
_RFC2822 = (
    rf"\b{_WEEKDAY},\s+\d{{1,2}}\s+{_MON_NAME}\s+{_YEAR}\s+{_HMS}(?::[0-5]\d)?"
    r"(?:\s+(?:GMT|UTC|[A-Z]{3}|[+-]\d{4}))?(?!\w)"
)
_CTIME = rf"\b{_WEEKDAY}\s+{_MON_NAME}\s+\d{{1,2}}\s+{_HMS}:[0-5]\d\s+{_YEAR}(?!\w)"
_TIME_OF_DAY = rf"(?<![\w:.]){_HMS}:[0-5]\d(?:\.\d+)?(?![\w:])"
_DATE = rf"(?<![\w.\-/]){_YEAR}([-/]){_MONTH}\1{_DAY}(?![\w/]|-\d)"
_PROVIDER_ID = rf"(?<![\w-])(?:{'|'.join(PROVIDER_ID_PREFIXES)})[-_](?=[A-Za-z]*\d)[A-Za-z0-9]{{8,}}(?![\w-])"
# A family, then parts after a separator, or a digit glued on ("llama3", "gpt4").
_MODEL = (
    rf"(?<![\w-])(?:{'|'.join(re.escape(f) for f in MODEL_FAMILIES)})"
    r"(?:[-_:/][A-Za-z0-9][A-Za-z0-9.]*|(?<=[a-z])\d[A-Za-z0-9.]*)+"
)
_SUBSECOND = (
    r"(?<![\w.])\d+(?:\.\d+)?\s?"
    r"(?:ms|msec|millis|milliseconds?|µs|μs|microseconds?|ns|nanoseconds?)(?!\w)"
)
# Bare seconds only with a fraction: "1.5s" is a timing, "90s" may be a decade.
_SECONDS = r"(?<![\w.])\d+\.\d+\s?(?:s|secs?|seconds?)(?!\w)"
_TOOK = (
    r"\b(?:took|elapsed|latency|duration|runtime|completed in|finished in)\s*[:=]?\s*"
    r"\d+(?:\.\d+)?\s?(?:s|secs?|seconds?|mins?|minutes?)(?!\w)"
)
_HEX = r"(?<![\w-])[0-9A-Fa-f]{16,}(?![\w-])"
_TOKEN = r"(?<![\w-])[A-Za-z0-9_-]{20,}(?![\w-])"  # noqa: S105 - a pattern, not a secret

_PATTERNS: tuple[_Pattern, ...] = (
    _pattern("uuid", _UUID, "UUID", 0),
    _pattern("timestamp", _ISO, "ISO 8601 timestamp with time of day", 1),
    _pattern("timestamp", _ISO_COMPACT, "compact ISO 8601 timestamp", 1),
    _pattern("timestamp", _RFC2822, "RFC 2822 / HTTP date", 1),
    _pattern("timestamp", _CTIME, "ctime() timestamp", 1),
    _pattern("timestamp", _TIME_OF_DAY, "time of day (HH:MM:SS)", 2),
    _pattern("date", _DATE, "calendar date (YYYY-MM-DD)", 2),
    _pattern("random_id", _PROVIDER_ID, "provider-style request/response id", 3),
    _pattern("model_id", _MODEL, "model id", 4, re.IGNORECASE),
    _pattern("duration", _SUBSECOND, DURATION_REASON, 5),
    _pattern("duration", _SECONDS, DURATION_REASON, 5),
    _pattern("duration", _TOOK, DURATION_REASON, 5, re.IGNORECASE),
    _pattern("random_id", _HEX, HEX_REASON, 6),
    _pattern("random_id", _TOKEN, TOKEN_REASON, 7),
)

_EPOCH_TEXT_RE = re.compile(r"\d{10}(?:\.\d+)?|\d{13}(?:\.\d+)?")

_Node = tuple[str, tuple[str | int, ...], object]


@dataclass(frozen=True)
class VolatileFinding:
    """One volatile value in a JSON document, with where it is and why it counts."""

    path: str
    key: str | None
    value: str
    kind: Kind
    reason: str


@dataclass(frozen=True)
class TextMatch:
    """A volatile substring of a longer text."""

    kind: Kind
    text: str
    start: int
    end: int
    reason: str


# --- JSON paths -----------------------------------------------------------------------------

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PATH_STEP_RE = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")


def join_path(parent: str, step: str | int) -> str:
    """The JSON path of `step` (an object key or array index) below `parent`."""
    if isinstance(step, int):
        return f"{parent}[{step}]"
    if _IDENT_RE.fullmatch(step):
        return f"{parent}.{step}"
    return f"{parent}[{json.dumps(step, ensure_ascii=False)}]"


def split_path(path: str) -> list[str | int]:
    """The keys and indices of a path made by `join_path`, outermost first."""
    steps: list[str | int] = []
    for match in _PATH_STEP_RE.finditer(path, 1 if path.startswith(ROOT_PATH) else 0):
        name, index, quoted = match.groups()
        if name is not None:
            steps.append(name)
        elif index is not None:
            steps.append(int(index))
        else:
            steps.append(json.loads(quoted))
    return steps


def value_at(doc: object, path: str) -> object:
    """The value at `path` (made by `join_path`) in `doc`, or None where the path leads nowhere."""
    for step in split_path(path):
        inside = isinstance(doc, list) and isinstance(step, int) and 0 <= step < len(doc)
        inside = inside or (isinstance(doc, dict) and isinstance(step, str) and step in doc)
        if not inside:
            return None
        doc = doc[step]  # type: ignore[index]
    return doc


# --- classification -------------------------------------------------------------------------


def _key_tokens(key: str) -> list[str]:
    return [token.lower() for token in _KEY_TOKEN_RE.findall(key)]


def classify_key(key: str) -> Kind | None:
    """The kind of volatile value an object key names, or None (`createdAt` -> timestamp)."""
    tokens = _key_tokens(key)
    if not tokens:
        return None
    words = set(tokens)
    last = tokens[-1]
    if words & RANDOM_ID_KEY_WORDS or (len(tokens) >= 2 and last in {"id", "ids"} and tokens[-2] in RANDOM_ID_OWNERS):
        return "random_id"
    if words & TOKEN_KEY_WORDS or tokens[-2:] == ["token", "count"]:
        return "token_count"
    if last == "model" or tokens[:2] in MODEL_KEY_PAIRS:
        return "model_id"
    if words & TIMESTAMP_KEY_WORDS or ("at" in tokens[:-1] and last in DURATION_UNIT_SUFFIXES):
        return "timestamp"
    if (
        words & DURATION_KEY_WORDS
        or (len(tokens) >= 2 and last in DURATION_UNIT_SUFFIXES)
        or (last == "time" and tokens[0] in DURATION_TIME_PREFIXES)
    ):
        return "duration"
    if words & DATE_KEY_WORDS:
        return "date"
    if tokens[0] == "time" and tokens[1:] and tokens[1] in TIMESTAMP_SOLE_KEYS:
        return "timestamp"
    if last in TIMESTAMP_KEY_SUFFIXES and (len(tokens) > 1 or last == "time"):
        return "timestamp"
    if len(tokens) == 1 and last in TIMESTAMP_SOLE_KEYS:
        return "timestamp"
    return None


def _looks_random(token: str) -> bool:
    """Whether a 20+ character token mixes letters and digits like a generated id does."""
    if not (re.search(r"[A-Za-z]", token) and re.search(r"\d", token)):
        return False
    segments = re.split(r"[-_]", token)
    if max(len(segment) for segment in segments) >= 20:
        return True
    switches = 0
    for segment in segments:
        for left, right in itertools.pairwise(segment):
            if left.isdigit() != right.isdigit():
                switches += 1
    return switches >= 3


def _model_id_ok(text: str) -> bool:
    parts = re.split(r"[-_:/.]", text.lower())
    return bool(re.search(r"\d", text)) or any(part in MODEL_TIER_WORDS for part in parts[1:])


def _accept(pattern: _Pattern, text: str) -> tuple[Kind, str, str] | None:
    """The (kind, text, reason) of a raw regex hit after checks a regex cannot express."""
    if pattern.kind == "model_id":
        text = text.rstrip(".")
        if not _model_id_ok(text):
            return None
        family = max((f for f in MODEL_FAMILIES if text.lower().startswith(f)), key=len)
        return "model_id", text, f"model id of the '{family}' family"
    if pattern.kind == "uuid":
        version = text[14]
        return "uuid", text, f"UUID (version {version})" if version.isdigit() else "UUID"
    if pattern.reason == HEX_REASON:
        if not (re.search(r"[A-Fa-f]", text) and re.search(r"\d", text)):
            return None
        if len(text) == 32:
            return "uuid", text, "32 hex digits: a UUID without hyphens"
        return "random_id", text, f"hex string of {len(text)} characters"
    if pattern.reason == TOKEN_REASON:
        if not _looks_random(text):
            return None
        return "random_id", text, f"random-looking token of {len(text)} characters"
    if pattern.kind == "date" and "/" in text:
        return "date", text, "calendar date (YYYY/MM/DD)"
    return pattern.kind, text, pattern.reason


def find_in_text(text: str) -> list[TextMatch]:
    """Every volatile substring of `text`, longest first where they overlap, in text order."""
    candidates: list[tuple[int, int, int, TextMatch]] = []
    for pattern in _PATTERNS:
        for hit in pattern.regex.finditer(text):
            accepted = _accept(pattern, hit.group(0))
            if accepted is None:
                continue
            kind, found, reason = accepted
            end = hit.start() + len(found)
            match = TextMatch(kind, found, hit.start(), end, reason)
            candidates.append((-(end - hit.start()), pattern.priority, hit.start(), match))
    stripped = text.strip()
    if _EPOCH_TEXT_RE.fullmatch(stripped):
        epoch_reason = _epoch_reason(float(stripped))
        if epoch_reason is not None:
            start = text.index(stripped)
            match = TextMatch("timestamp", stripped, start, start + len(stripped), epoch_reason)
            candidates.append((-len(stripped), -1, start, match))
    chosen: list[TextMatch] = []
    for _, _, _, match in sorted(candidates, key=lambda c: c[:3]):
        if all(match.end <= kept.start or match.start >= kept.end for kept in chosen):
            chosen.append(match)
    return sorted(chosen, key=lambda m: m.start)


def _epoch_reason(number: float) -> str | None:
    if not math.isfinite(number) or number <= 0:
        return None
    digits = len(str(int(number)))
    if digits == 10 and EPOCH_MIN_SECONDS <= number < EPOCH_MAX_SECONDS:
        return "Unix time in seconds (2001..2100)"
    if digits == 13 and EPOCH_MIN_SECONDS * 1000 <= number < EPOCH_MAX_SECONDS * 1000:
        return "Unix time in milliseconds (2001..2100)"
    return None


def _number_match(value: object) -> tuple[Kind, str] | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    reason = _epoch_reason(float(value))
    return ("timestamp", reason) if reason is not None else None


def classify_value(value: object) -> Kind | None:
    """The kind of volatile data a JSON value is or contains (first match in a text), or None."""
    number = _number_match(value)
    if number is not None:
        return number[0]
    if isinstance(value, str):
        matches = find_in_text(value)
        return matches[0].kind if matches else None
    return None


# --- scanning -------------------------------------------------------------------------------


def short_text(value: object, limit: int = MAX_VALUE_CHARS) -> str:
    """A value as one line of text: strings as they are, the rest as compact JSON, truncated."""
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    if len(text) > limit:
        return text[: limit - len(ELLIPSIS)] + ELLIPSIS
    return text


def _key_reason(key: str, kind: Kind) -> str:
    names = {
        "timestamp": "a timestamp",
        "date": "a date",
        "uuid": "a UUID",
        "random_id": "a random id",
        "duration": "a duration",
        "token_count": "a token count",
        "model_id": "a model id",
    }
    return f"key {key!r} names {names[kind]}"


def _walk(doc: object, path: str, steps: tuple[str | int, ...]) -> Iterator[_Node]:
    yield path, steps, doc
    if isinstance(doc, dict):
        for child_key, child in doc.items():
            name = str(child_key)
            yield from _walk(child, join_path(path, name), (*steps, name))
    elif isinstance(doc, list):
        for index, child in enumerate(doc):
            yield from _walk(child, join_path(path, index), (*steps, index))


def _sort_key(steps: tuple[str | int, ...]) -> tuple[tuple[int, int, str], ...]:
    # Natural order: $[2] before $[10], and indices before keys at the same depth.
    return tuple((0, step, "") if isinstance(step, int) else (1, 0, step) for step in steps)


def scan(doc: object, *, known_text: Sequence[str] = ()) -> list[VolatileFinding]:
    """Volatile values in a parsed JSON document, one finding per (path, kind), by path.

    A key that names volatile data is reported whatever its value. A value match that
    also appears verbatim in `known_text` (input a justification may quote) is not.
    """
    ranked: list[tuple[tuple[tuple[int, int, str], ...], int, VolatileFinding]] = []
    for path, steps, value in _walk(doc, ROOT_PATH, ()):
        key = steps[-1] if steps and isinstance(steps[-1], str) else None
        key_kind = classify_key(key) if key is not None else None
        hits: dict[Kind, tuple[str, str]] = {}
        for kind, text, reason in _value_hits(value, known_text):
            hits.setdefault(kind, (text, reason))
        if key is not None and key_kind is not None:
            reason = _key_reason(key, key_kind)
            if key_kind in hits:
                value_reason = hits.pop(key_kind)[1]
                reason = f"{reason}; value: {value_reason}"
            finding = VolatileFinding(path, key, short_text(value), key_kind, reason)
            ranked.append((_sort_key(steps), KINDS.index(key_kind), finding))
        for kind, (text, reason) in hits.items():
            finding = VolatileFinding(path, key, short_text(text), kind, reason)
            ranked.append((_sort_key(steps), KINDS.index(kind), finding))
    ranked.sort(key=lambda item: item[:2])
    return [finding for _, _, finding in ranked]


def _value_hits(value: object, known_text: Sequence[str]) -> list[tuple[Kind, str, str]]:
    number = _number_match(value)
    if number is not None:
        return [(number[0], short_text(value), number[1])]
    if not isinstance(value, str):
        return []
    return [
        (match.kind, match.text, match.reason)
        for match in find_in_text(value)
        if not any(match.text in known for known in known_text)
    ]
