"""The line of a program's error output that says what went wrong: not a banner, not a stack frame."""

from __future__ import annotations

import re

from gradelib import safetext

MAX_CHARS = 300
# `Error: boom`, `SyntaxError: Unexpected token`, `Error [ERR_MODULE_NOT_FOUND]: Cannot find ...`,
# `ValueError: x` (Python), `Uncaught TypeError: ...`; node:test repeats a file's stderr as `# ` lines.
ERROR_LINE = re.compile(r"^(?:#\s*)?(?:Uncaught\s+)?[A-Za-z_$][\w$.]*(?:Error|Exception)\b(?:\s*\[[\w.-]+\])?:\s*\S")
NOISE = (
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


def _noise(line: str) -> bool:
    return not line.strip() or any(pattern.search(line) for pattern in NOISE)


def first_error_line(output: str, limit: int = MAX_CHARS, *, strict: bool = False) -> str | None:
    """The first `...Error: message` line of the output; else (unless strict) its last line that is not noise.

    Noise: Node's `Node.js v20...` banner, stack frames, the location and caret lines around
    the failing source line, an error's own fields, TAP's structure. None when nothing is left.
    """
    lines = output.splitlines()
    found = next((line for line in lines if ERROR_LINE.search(line)), None)
    if found is None and not strict:
        found = next((line for line in reversed(lines) if not _noise(line)), None)
    if found is None:
        return None
    return safetext.plain(re.sub(r"^#\s*", "", found.strip()), limit)
