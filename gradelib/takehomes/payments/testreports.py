"""Reading a JavaScript test run test by test: node:test TAP, jest/vitest JSON, or their human output."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

CaseStatus = Literal["pass", "fail", "skip"]
Runner = Literal["node:test", "vitest", "jest"]
JSON_REPORT = ".gradelib-test-report.json"  # in the copy's root; removed before each run
NAME_SEPARATOR = " > "
MAX_TESTS = 500
MAX_NAME_CHARS = 300
# node:test finds tests on its own; NODE_OPTIONS keeps its reporter TAP whatever the script's
# arguments (an argument after `npm test --` would be taken for a test file).
NODE_TEST_ENV = {"NODE_OPTIONS": "--test-reporter=tap"}
TAP_RESULT = re.compile(r"^(?P<indent> *)(?P<ok>ok|not ok) \d+(?: - (?P<name>.*?))?(?: # (?P<directive>\w+).*)?$")
TAP_SUBTEST = re.compile(r"^(?P<indent> *)# Subtest: (?P<name>.*)$")
TAP_INDENT = 4
# A failing `before` hook: the test's body never ran (typically the module under test did not load).
TAP_ERROR = re.compile(r"^\s+error: (?P<text>.*)$")
TAP_ERROR_NAME = re.compile(r"^\s+name: '?(?P<name>\w+)'?\s*$")
TAP_HOOK_FAILED = re.compile(r"^\s+failureType: '?hookFailed'?\s*$")
HUMAN_PASS = re.compile(r"^\s*[✓✔√]\s+(?P<name>.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$")
HUMAN_FAIL = re.compile(r"^\s*[✕✖×]\s+(?P<name>.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$")  # noqa: RUF001 - jest prints a multiplication sign
TEST_SOURCE = re.compile(r"\.[cm]?[jt]sx?$")
JEST_STATUS: dict[str, CaseStatus] = {"passed": "pass", "failed": "fail"}
SCRIPT_GLUE = ("&&", "||", ";", "|", "&")
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class CaseResult:
    """One test as its runner reported it."""

    name: str  # file (when the runner names it) and titles, joined by NAME_SEPARATOR
    status: CaseStatus
    file_level: bool = False  # failed before its body ran: a test file that cannot load, a failing hook


def _unique(results: Iterable[CaseResult]) -> tuple[CaseResult, ...]:
    """The results with repeated names told apart (`name (2)`), at most MAX_TESTS."""
    seen: dict[str, int] = {}
    unique = []
    for result in results:
        name = result.name[:MAX_NAME_CHARS]
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
        unique.append(CaseResult(name, result.status, result.file_level))
    return tuple(unique[:MAX_TESTS])


def _relative(path: str, root: str) -> str:
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] if path.startswith(prefix) else path


def parse_tap(output: str, root: str = "") -> tuple[CaseResult, ...]:
    """The leaf tests of node:test TAP output (a suite's own line is left out, its tests kept).

    A top-level failure named by a test file's path is that file failing to load; a test whose
    `before` hook failed never ran either. Both are `file_level`.
    """
    stack: list[str] = []
    entries: list[tuple[int, CaseResult]] = []
    for line in output.splitlines():
        if entries and TAP_HOOK_FAILED.match(line):
            depth, last = entries[-1]
            entries[-1] = (depth, CaseResult(last.name, last.status, file_level=True))
            continue
        if match := TAP_SUBTEST.match(line):
            depth = len(match["indent"]) // TAP_INDENT
            stack[depth:] = [match["name"].strip()]
            continue
        match = TAP_RESULT.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // TAP_INDENT
        leaf = (match["name"] or "").strip()
        path = [*stack[:depth], leaf]
        directive = (match["directive"] or "").upper()
        status: CaseStatus = "skip" if directive in ("SKIP", "TODO") else "pass" if match["ok"] == "ok" else "fail"
        file_level = depth == 0 and status == "fail" and TEST_SOURCE.search(leaf) is not None and "/" in leaf
        name = NAME_SEPARATOR.join(_relative(part, root) for part in path)
        entries.append((depth, CaseResult(name, status, file_level)))
    # In TAP a parent's line follows its children's: a line right after a deeper one is a parent.
    leaves = [result for i, (depth, result) in enumerate(entries) if not (i and entries[i - 1][0] > depth)]
    return _unique(leaves)


def tap_failure(output: str) -> str | None:
    """`SyntaxError: Unexpected token` from the first failing test's YAML block in TAP output, or None."""
    lines = output.splitlines()
    for number, line in enumerate(lines):
        if not (match := TAP_ERROR.match(line)):
            continue
        text = match["text"].strip()
        if text in ("|-", "|", ">-", ">") and number + 1 < len(lines):
            text = lines[number + 1].strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            text = text[1:-1]
        if not text or text == "test failed":
            continue
        block = lines[number + 1 : number + 12]
        name = next((found["name"] for ln in block if (found := TAP_ERROR_NAME.match(ln))), None)
        return f"{name}: {text}" if name else text
    return None


def parse_jest_json(text: str, root: str = "") -> tuple[CaseResult, ...] | None:
    """The tests of a jest `--json` or vitest `--reporter=json` report; None when it is not one."""
    try:
        report: Any = json.loads(text)
    except ValueError:
        return None
    files = report.get("testResults") if isinstance(report, dict) else None
    if not isinstance(files, list):
        return None
    results = []
    for entry in files:
        if not isinstance(entry, dict):
            continue
        file = _relative(str(entry.get("name") or entry.get("testFilePath") or "?"), root)
        assertions = entry.get("assertionResults")
        assertions = [a for a in assertions if isinstance(a, dict)] if isinstance(assertions, list) else []
        if not assertions and entry.get("status") == "failed":
            results.append(CaseResult(file, "fail", file_level=True))
        for item in assertions:
            titles = [*(item.get("ancestorTitles") or []), item.get("title") or item.get("fullName") or "?"]
            status = JEST_STATUS.get(str(item.get("status")), "skip")
            results.append(CaseResult(NAME_SEPARATOR.join([file, *(str(t) for t in titles)]), status))
    return _unique(results)


def parse_human(output: str) -> tuple[CaseResult, ...]:
    """Best effort on a runner's human output: a tick before a test's name passes it, a cross fails it."""
    results = []
    for line in output.splitlines():
        if match := HUMAN_PASS.match(line):
            results.append(CaseResult(match["name"], "pass"))
        elif match := HUMAN_FAIL.match(line):
            results.append(CaseResult(match["name"], "fail"))
    return _unique(results)


def detect_runner(script: str) -> Runner | None:
    """The test runner a package.json test script calls, when it is one plain command."""
    try:
        words = shlex.split(script)
    except ValueError:
        return None
    if not words or any(word in SCRIPT_GLUE for word in words):
        return None
    while words and (ENV_ASSIGNMENT.match(words[0]) or words[0] in ("cross-env", "npx", "exec")):
        words = words[1:]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program == "node" and "--test" in words:
        return "node:test"
    if program in ("vitest", "jest"):
        return program  # type: ignore[return-value]
    return None


def reporter_args(runner: Runner | None, report_path: str) -> tuple[str, ...]:
    """Arguments that make the runner write a machine-readable report (appended after `npm test --`)."""
    if runner == "vitest":
        return ("--reporter=json", f"--outputFile={report_path}")
    if runner == "jest":
        return ("--json", f"--outputFile={report_path}")
    return ()


def read_results(output: str, report: str | None, root: str = "") -> tuple[tuple[CaseResult, ...], str]:
    """(tests, how they were read): the JSON report when there is one, else TAP, else human output."""
    if report is not None and (parsed := parse_jest_json(report, root)) is not None:
        return parsed, "json"
    if tap := parse_tap(output, root):
        return tap, "tap"
    if human := parse_human(output):
        return human, "human"
    return (), "none"


def names(results: Sequence[CaseResult], status: CaseStatus) -> list[str]:
    """The names of the results with this status."""
    return [result.name for result in results if result.status == status]
