"""The line of a failed program's output that says why: a traceback's error, not Node's version banner."""

from __future__ import annotations

import re

from gradelib import safetext

PY_TRACEBACK = "Traceback (most recent call last):"
# Printed last by Node for an uncaught error; says nothing about the error.
NODE_BANNER = re.compile(r"^Node\.js v\d+(\.\d+)*$")
NODE_FRAME = re.compile(r"^\s+at \S")
NODE_CARET = re.compile(r"^\s*\^+\s*$")
NODE_HINT = "(Use `node --trace-"
# `ModuleNotFoundError: ...`, `json.decoder.JSONDecodeError: ...`, `Error [ERR_MODULE_NOT_FOUND]: ...`
ERROR = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]?\w*(?:Error|Exception)(?: \[[\w.]+\])?(?::\s.*)?$")
# What follows an error and explains nothing: Node's banner and stack frames, an error's properties.
NOISE = (NODE_BANNER, NODE_FRAME, NODE_CARET, re.compile(r"^\s*[{}]\s*$"), re.compile(r"^\s+[\w$]+: .*$"))


def _noise(line: str) -> bool:
    return any(pattern.match(line) for pattern in NOISE)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _python_error(lines: list[str]) -> int | None:
    """Index of the error line of the last Python traceback (the exception of a chain that ended it)."""
    starts = [i for i, line in enumerate(lines) if line.strip() == PY_TRACEBACK]
    if not starts:
        return None
    for index in range(starts[-1] + 1, len(lines)):
        if lines[index] and not lines[index][0].isspace():
            return index
    return None


def _node_error(lines: list[str]) -> int | None:
    """Index of the error line of Node's uncaught-error report: the first line after the caret."""
    banners = [i for i, line in enumerate(lines) if NODE_BANNER.match(line)]
    if not banners:
        return None
    before = range(banners[-1])
    carets = [i for i in before if NODE_CARET.match(lines[i])]
    if carets:
        return next((i for i in range(carets[-1] + 1, banners[-1]) if lines[i].strip()), None)
    errors = [i for i in before if ERROR.match(lines[i])]
    return errors[-1] if errors else None


def _crash(lines: list[str]) -> int | None:
    found = _python_error(lines)
    return found if found is not None else _node_error(lines)


def error_line(text: str) -> str:
    """The one line that says why a program failed ("" for no output).

    Python: the error of the last traceback (`ModuleNotFoundError: No module named 'openai'`);
    Node: the error of an uncaught exception (`Error [ERR_MODULE_NOT_FOUND]: ...`), never the
    `Node.js v20...` banner nor a stack frame; otherwise the last line that is not a banner, a
    stack frame or an error's property (a caught error printed with its stack, then exit 1).
    """
    lines = _lines(text)
    crash = _crash(lines)
    if crash is not None:
        return lines[crash].strip()
    meaningful = [line for line in lines if line.strip() and not _noise(line)]
    return meaningful[-1].strip() if meaningful else ""


def last_word(text: str) -> str:
    """What a program last said itself: from an uncaught error on, or all of it when it did not crash.

    A traceback's frames show source lines and the exceptions it handled on the way (a fallback's
    "cassette missing" before the live call that crashed); only the error that ended the program,
    and what was printed after it, is the program's message. Node's stack frames and banner go too.
    """
    lines = _lines(text)
    crash = _crash(lines)
    if crash is None:
        return text
    rest = [line for line in lines[crash:] if line.strip() and not _noise(line) and NODE_HINT not in line]
    return "\n".join(rest)


# -- the first error line of test-runner and client output (node:test repeats stderr as `# ` lines) --

MAX_CHARS = 300
# `Error: boom`, `SyntaxError: Unexpected token`, `Error [ERR_MODULE_NOT_FOUND]: Cannot find ...`,
# `ValueError: x` (Python), `Uncaught TypeError: ...`; node:test repeats a file's stderr as `# ` lines.
OUTPUT_ERROR = re.compile(r"^(?:#\s*)?(?:Uncaught\s+)?[A-Za-z_$][\w$.]*(?:Error|Exception)\b(?:\s*\[[\w.-]+\])?:\s*\S")
OUTPUT_NOISE = (
    re.compile(r"^(?:#\s*)?Node\.js v\d"),  # the version banner node prints last
    re.compile(r"^(?:#\s*)?\s*at\s"),  # a JavaScript stack frame
    re.compile(r"^\s*File \".*\", line \d+"),  # a Python stack frame
    re.compile(r"^(?:#\s*)?\s*\^+\s*$"),  # the caret under the failing source line
    re.compile(r"^(?:#\s*)?\(Use `node --trace"),
    re.compile(r"^(?:#\s*)?(?:file://|node:|/)\S*:\d+(?::\d+)?\s*$"),  # the location line above the source
    re.compile(r"^Traceback \(most recent call last\):"),
    re.compile(r"^#\s*(?:tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)\b"),  # a TAP summary
    re.compile(r"^(?:TAP version|1\.\.\d+$|ok \d|not ok \d|\s+\.\.\.$|\s+---$)"),  # TAP structure
    re.compile(r"^(?:#\s*)?[{}]\s*$|^(?:#\s*)?\s+\w+: .*,?$"),  # an error's own fields: `{`, `  code: 'X',`, `}`
)


def _output_noise(line: str) -> bool:
    return not line.strip() or any(pattern.search(line) for pattern in OUTPUT_NOISE)


def first_error_line(output: str, limit: int = MAX_CHARS, *, strict: bool = False) -> str | None:
    """The first `...Error: message` line of the output; else (unless strict) its last line that is not noise.

    Noise: Node's `Node.js v20...` banner, stack frames, the location and caret lines around
    the failing source line, an error's own fields, TAP's structure. None when nothing is left.
    """
    lines = output.splitlines()
    found = next((line for line in lines if OUTPUT_ERROR.search(line)), None)
    if found is None and not strict:
        found = next((line for line in reversed(lines) if not _output_noise(line)), None)
    if found is None:
        return None
    return safetext.clipped_text(re.sub(r"^#\s*", "", found.strip()), limit)
