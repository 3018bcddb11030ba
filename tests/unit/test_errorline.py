"""errorline: the line of a failed program's output that says why (outputs as Python 3.11 and Node 20 print them)."""

from __future__ import annotations

import pytest

from gradelib.display.errorline import error_line, first_error_line, last_word

PY_IMPORT = """\
Traceback (most recent call last):
  File "<submission>/triage.py", line 4, in <module>
    import openai
ModuleNotFoundError: No module named 'openai'
"""

PY_CHAINED = """\
loading cassettes from cassettes/
Traceback (most recent call last):
  File "<submission>/clients.py", line 30, in complete
    return self._load(key)
           ^^^^^^^^^^^^^^^
clients.CassetteMissing: no fixture for 4691a2f716e6f7b3.json; run ./run.sh record

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "<submission>/clients.py", line 33, in complete
    return LiveClient().complete(prompt)  # cassette missing: ask the model
  File "<submission>/clients.py", line 41, in __init__
    self.key = os.environ["OPENAI_API_KEY"]
KeyError: 'OPENAI_API_KEY'
"""

PY_SYNTAX = """\
  File "<submission>/app.py", line 12
    def complete(self prompt):
                 ^^^^^^^^^^^
SyntaxError: invalid syntax. Perhaps you forgot a comma?
"""

PY_OWN_ERROR = """\
Traceback (most recent call last):
  File "<submission>/triage.py", line 80, in <module>
    main()
__main__.CassetteMissing: no fixture for T-003_cebecd0e5a08.json; run ./run.sh record
"""

NODE_ESM_IMPORT = """\
node:internal/modules/esm/resolve:873
  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);
        ^

Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'openai' imported from <submission>/index.mjs
    at packageResolve (node:internal/modules/esm/resolve:873:9)
    at moduleResolve (node:internal/modules/esm/resolve:946:18)
    at ModuleJob._link (node:internal/modules/esm/module_job:168:49) {
  code: 'ERR_MODULE_NOT_FOUND'
}

Node.js v20.20.2
"""

NODE_SYNTAX = """\
file://<submission>/lib/cassettes.mjs:1
const x = {;
           ^

SyntaxError: Unexpected token ';'
    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)
    at async ModuleJob._link (node:internal/modules/esm/module_job:148:19)

Node.js v20.20.2
"""

NODE_CUSTOM = """\
file://<submission>/index.mjs:2
throw new CassetteMissing("no cassette for T-003; run ./run.sh record");
      ^

CassetteMissing [Error]: no cassette for T-003; run ./run.sh record
    at file://<submission>/index.mjs:2:7
    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)

Node.js v20.20.2
"""

NODE_STRING = """\

node:internal/modules/run_main:123
    triggerUncaughtException(
    ^
plain string
(Use `node --trace-uncaught ...` to show where the exception was thrown)

Node.js v20.20.2
"""

NODE_CJS = """\
node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module 'openai'
Require stack:
- <submission>/record.cjs
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12) {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '<submission>/record.cjs' ]
}

Node.js v20.20.2
"""

NODE_CAUGHT = """\
replay failed
Error: ENOENT: no such file or directory, open 'cassettes/abc.json'
    at Object.openSync (node:fs:573:3)
    at readFileSync (node:fs:452:35) {
  errno: -2,
  code: 'ENOENT',
  path: 'cassettes/abc.json'
}
"""

CLEAN = "replay: missing cassette cassettes/T-003.json for ticket T-003; run ./run.sh record\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PY_IMPORT, "ModuleNotFoundError: No module named 'openai'"),
        (PY_CHAINED, "KeyError: 'OPENAI_API_KEY'"),
        (PY_SYNTAX, "SyntaxError: invalid syntax. Perhaps you forgot a comma?"),
        (PY_OWN_ERROR, "__main__.CassetteMissing: no fixture for T-003_cebecd0e5a08.json; run ./run.sh record"),
        (
            NODE_ESM_IMPORT,
            "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'openai' imported from <submission>/index.mjs",
        ),
        (NODE_SYNTAX, "SyntaxError: Unexpected token ';'"),
        (NODE_CUSTOM, "CassetteMissing [Error]: no cassette for T-003; run ./run.sh record"),
        (NODE_STRING, "plain string"),
        (NODE_CJS, "Error: Cannot find module 'openai'"),
        (NODE_CAUGHT, "Error: ENOENT: no such file or directory, open 'cassettes/abc.json'"),
        (CLEAN, CLEAN.strip()),
        ("", ""),
        ("\n\n", ""),
    ],
    ids=[
        "py-import",
        "py-chained",
        "py-syntax",
        "py-own-error",
        "node-esm-import",
        "node-syntax",
        "node-custom",
        "node-string",
        "node-cjs",
        "node-caught",
        "clean-message",
        "empty",
        "blank",
    ],
)
def test_error_line(text: str, expected: str) -> None:
    assert error_line(text) == expected


def test_error_line_is_never_the_node_banner_or_a_frame() -> None:
    for text in (NODE_ESM_IMPORT, NODE_SYNTAX, NODE_CUSTOM, NODE_CJS, NODE_CAUGHT):
        line = error_line(text)
        assert not line.startswith(("Node.js v", "at ", "}")), line


def test_last_word_of_a_crash_is_its_error_not_the_frames_or_what_it_handled() -> None:
    said = last_word(PY_CHAINED)
    assert said == "KeyError: 'OPENAI_API_KEY'"
    assert "cassette" not in said and "fixture" not in said and "record" not in said


def test_last_word_of_node_drops_frames_and_banner() -> None:
    said = last_word(NODE_SYNTAX)
    assert said == "SyntaxError: Unexpected token ';'"
    assert "cassettes.mjs" not in said


def test_last_word_keeps_what_was_said_after_a_logged_traceback() -> None:
    text = PY_IMPORT + "no cassette for T-003; run ./run.sh record\n"
    assert last_word(text).splitlines() == [
        "ModuleNotFoundError: No module named 'openai'",
        "no cassette for T-003; run ./run.sh record",
    ]


def test_last_word_without_a_crash_is_everything() -> None:
    text = "warming up\n" + CLEAN
    assert last_word(text) == text


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
