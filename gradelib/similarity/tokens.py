"""A file's code as a stream of normalised tokens: names, literals and layout no longer tell two copies apart."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Keyword, Name, Number, String

LANGUAGES = {  # file suffix -> Pygments lexer name
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".sh": "bash",
    ".bash": "bash",
}
SHEBANGS = {"python": "python", "node": "javascript", "sh": "bash", "bash": "bash"}
PLAIN = "text"  # any other text file: its words, lower-cased
NAME = "N"  # every identifier: a rename changes nothing
STRING = "S"  # every string literal, interpolations aside
NUMBER = "0"
DECLARATIONS = frozenset({"var", "let", "const"})  # one token: `let` -> `const` hides nothing
KEPT_NAMES = (Name.Builtin,)  # `print`, `len`, `self`: a copier does not rename them, and they tell code apart
CLOSING = frozenset({")", "]", "}"})
TERMINATOR = ";"  # a statement's end is layout: `a = 1;` is `a = 1` (prettier's --no-semi, a shell's newline)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Tok:
    """One normalised token and the line (1-based) it starts on."""

    text: str
    line: int


def language(path: str, text: str = "") -> str:
    """The language a file is lexed as: by its suffix, else its shebang, else plain text."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in LANGUAGES:
        return LANGUAGES[suffix]
    first = text[:200].split("\n", 1)[0]
    if first.startswith("#!"):
        words = first[2:].replace("/usr/bin/env", " ").split()
        program = PurePosixPath(words[0]).name if words else ""
        for prefix, lexer in SHEBANGS.items():
            if program.startswith(prefix):
                return lexer
    return PLAIN


@cache
def _lexer(name: str) -> Lexer:
    return get_lexer_by_name(name, stripnl=False, ensurenl=True)


def tokenize(text: str, lang: str) -> list[Tok]:
    """`text` as normalised tokens: comments, docstrings, semicolons and trailing commas dropped, identifiers `N`,
    strings `S`, numbers `0`."""
    if lang == PLAIN:
        return [
            Tok(word.group().lower(), number)
            for number, line in enumerate(text.splitlines(), 1)
            for word in _WORD.finditer(line)
        ]
    found: list[Tok] = []
    line = 1
    in_string = False  # one `S` for a whole literal: its pieces, affixes and interpolation delimiters
    for kind, value in _lexer(lang).get_tokens(text):
        start, line = line, line + value.count("\n")
        if not value.strip() or kind in Comment or kind in String.Doc or value == TERMINATOR:
            continue
        if kind in String:
            if not in_string:
                found.append(Tok(STRING, start))
            in_string = True
            continue
        in_string = False
        if value in CLOSING and found and found[-1].text == ",":
            found.pop()  # a trailing comma, as formatters add: `f(a, b,)` is `f(a, b)`
        found.append(Tok(_normal(kind, value), start))
    return found


def _normal(kind: object, value: str) -> str:
    if kind in Name and not any(kind in kept for kept in KEPT_NAMES):
        return NAME
    if kind in Number:
        return NUMBER
    if kind in Keyword and value in DECLARATIONS:
        return "var"
    return value
