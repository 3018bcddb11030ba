"""The first meaningful error line of a crashed program's output."""

from __future__ import annotations

import pytest

from gradelib.errorline import first_error_line

UNCAUGHT = """\
file:///tmp/gradelib-x1/03-transient/submission/checkout.mjs:3
  throw new Error("boom while importing");
  ^

Error: boom while importing
    at file:///tmp/gradelib-x1/03-transient/submission/checkout.mjs:3:9
    at ModuleJob.run (node:internal/modules/esm/module_job:195:25)

Node.js v20.20.2
"""
SYNTAX = """\
file:///tmp/gradelib-x1/03-transient/submission/checkout.mjs:2
export async function (amount) {
                      ^

SyntaxError: Unexpected token '('
    at ModuleLoader.moduleStrategy (node:internal/modules/esm/translators:168:18)

Node.js v20.20.2
"""
THROWN_STRING = """\
node:internal/process/esm_loader:40
      internalBinding('errors').triggerUncaughtException(
                                ^
boom
(Use `node --trace-uncaught ...` to show where the exception was thrown)

Node.js v20.20.2
"""
TAP_COMMENT = """\
# node:internal/modules/esm/resolve:283
#     throw new ERR_MODULE_NOT_FOUND(
#           ^
# Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/missing.mjs' imported from /x/b.test.mjs
#     at finalizeResolution (node:internal/modules/esm/resolve:283:11)
#   code: 'ERR_MODULE_NOT_FOUND',
# Node.js v20.20.2
"""
PYTHON = """\
Traceback (most recent call last):
  File "run.py", line 3, in <module>
    main()
ValueError: no tickets
"""


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (UNCAUGHT, "Error: boom while importing"),
        (SYNTAX, "SyntaxError: Unexpected token '('"),
        (THROWN_STRING, "boom"),
        (TAP_COMMENT, "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/missing.mjs' imported from /x/b.test.mjs"),
        (PYTHON, "ValueError: no tickets"),
        ("sh: 1: vitest: not found\n", "sh: 1: vitest: not found"),
        ("\nNode.js v20.20.2\n", None),
        ("", None),
    ],
    ids=["uncaught", "syntax", "thrown-string", "tap-comment", "python", "not-found", "banner-only", "empty"],
)
def test_first_error_line(output: str, expected: str | None) -> None:
    assert first_error_line(output) == expected
