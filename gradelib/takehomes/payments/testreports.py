"""Reading a JavaScript test run test by test: JSON reports, TAP, or each runner's human output.

jest and vitest write a JSON report (`testResults`), mocha its `json` reporter's (`stats`,
`tests`, `failures`); node:test and ava speak TAP, node-tap TAP 14 with one entry per assertion
under each test (the tests are the entries with a `# time=`). Without a machine report the
human output is read: ticks and crosses (jest, vitest, node:test spec, ava), mocha's numbered
failures, uvu's `FAIL "name"` and its totals (uvu never names a passing test).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gradelib.takehomes.payments.testrunners import ReportFormat, Runner

CaseStatus = Literal["pass", "fail", "skip"]
REPORT = ".gradelib-test-report"  # in the copy's root, .json or .tap; removed before each run
NAME_SEPARATOR = " > "
MAX_TESTS = 500
MAX_NAME_CHARS = 300
TAP_RESULT = re.compile(r"^(?P<indent> *)(?P<ok>ok|not ok) \d+(?: -? ?(?P<name>.*?))?(?: # (?P<directive>\w+).*)?$")
TAP_SUBTEST = re.compile(r"^(?P<indent> *)# Subtest: (?P<name>.*)$")
TAP_INDENT = 4
# A failing `before` hook: the test's body never ran (typically the module under test did not load).
TAP_ERROR = re.compile(r"^\s+error: (?P<text>.*)$")
TAP_ERROR_NAME = re.compile(r"^\s+name: '?(?P<name>\w+)'?\s*$")
TAP_HOOK_FAILED = re.compile(r"^\s+failureType: '?hookFailed'?\s*$")
TAP_NO_TESTS = re.compile(r"^\s+1\.\.0\b")
DURATION = re.compile(r"\s+(?:\(\d+(?:\.\d+)?\s*m?s\)|\d+(?:\.\d+)?\s*m?s)\s*$")
HUMAN_PASS = re.compile(r"^(?P<indent>\s*)[✓✔√]\s+(?P<name>.+?)\s*$")
HUMAN_FAIL = re.compile(r"^(?P<indent>\s*)[✕✖×✘]\s+(?:\[fail\]:\s+)?(?P<name>.+?)\s*$")  # noqa: RUF001 - the runners' crosses
BUN_RESULT = re.compile(r"^\s*\((?P<status>pass|fail)\)\s+(?P<name>.+?)(?:\s+\[\d+(?:\.\d+)?m?s\])?\s*$")  # bun test
NODE_SUITE = re.compile(r"^(?P<indent>\s*)▶\s+(?P<name>.+?)\s*$")
NODE_RECAP = re.compile(r"^\s*✖ failing tests:\s*$")
MOCHA_FAIL = re.compile(r"^\s+\d+\) (?P<name>.+?)\s*$")
MOCHA_SUMMARY = re.compile(r"^\s+\d+ (passing|failing|pending)\b")
UVU_FAIL = re.compile(r"^\s*FAIL\s+(?P<suite>\S.*?\s+)?\"(?P<name>.*)\"\s*$")
UVU_TOTAL = re.compile(r"^\s*(?P<what>Total|Passed|Skipped):\s+(?P<count>\d+)\s*$", re.M)
TEST_SOURCE = re.compile(r"\.[cm]?[jt]sx?$")
JEST_STATUS: dict[str, CaseStatus] = {"passed": "pass", "failed": "fail"}
AVA_FILE_LEVEL = re.compile(r"(exited with a non-zero exit code|^Uncaught exception|^\w*Error\b)")


@dataclass(frozen=True)
class CaseResult:
    """One test as its runner reported it."""

    name: str  # file (when the runner names it) and titles, joined by NAME_SEPARATOR
    status: CaseStatus
    file_level: bool = False  # failed before its body ran: a test file that cannot load, a failing hook


@dataclass(frozen=True)
class Counts:
    """A runner's totals, where it names only its failures (uvu)."""

    total: int
    passed: int
    skipped: int


@dataclass(frozen=True)
class Reading:
    """What a run's reports said, test by test, and how they were read."""

    tests: tuple[CaseResult, ...]
    read_as: str  # json / tap / human / none
    counts: Counts | None = None


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
    path = path.removeprefix("file://")
    prefix = root.rstrip("/") + "/"
    return path[len(prefix) :] if root and path.startswith(prefix) else path


@dataclass(frozen=True)
class _Entry:
    depth: int
    result: CaseResult
    timed: bool  # node-tap marks tests (not assertions) with `# time=`


def _tap_entries(output: str, root: str) -> list[_Entry]:
    stack: list[str] = []
    entries: list[_Entry] = []
    for line in output.splitlines():
        if entries and TAP_HOOK_FAILED.match(line):
            last = entries[-1]
            entries[-1] = _Entry(last.depth, CaseResult(last.result.name, last.result.status, True), last.timed)
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
        entries.append(_Entry(depth, CaseResult(name, status, file_level), directive == "TIME"))
    return entries


def _leaves(entries: Sequence[_Entry]) -> list[CaseResult]:
    """In TAP a parent's line follows its children's: a line right after a deeper one is a parent."""
    return [e.result for i, e in enumerate(entries) if not (i and entries[i - 1].depth > e.depth)]


def parse_tap(output: str, root: str = "") -> tuple[CaseResult, ...]:
    """The leaf tests of TAP output (node:test, ava): a suite's own line is left out, its tests kept.

    A top-level failure named by a test file's path is that file failing to load; a test whose
    `before` hook failed never ran either. Both are `file_level`.
    """
    return _unique(_leaves(_tap_entries(output, root)))


def parse_node_tap(output: str, root: str = "") -> tuple[CaseResult, ...]:
    """node-tap's TAP 14: the tests are its timed entries (each assertion is an untimed one beneath).

    A file's own entry is a test only when its assertions are at its top level; a failing file
    with nothing beneath it (`1..0 # no tests found`) did not load.
    """
    entries = _tap_entries(output, root)
    results = []
    for index, entry in enumerate(entries):
        if entry.depth and not entry.timed and entry.result.status != "skip":
            continue  # an assertion
        beneath = _beneath(entries, index)
        if any(e.timed for e in beneath):
            continue  # a file, or a test of tests, whose tests are listed
        if entry.depth == 0:
            status = entry.result.status
            results.append(CaseResult(entry.result.name, status, file_level=status == "fail" and not beneath))
        else:
            results.append(entry.result)
    return _unique(results)


def _beneath(entries: Sequence[_Entry], index: int) -> Sequence[_Entry]:
    """The entries of one entry's children (TAP lists them before it, deeper)."""
    start = index
    while start > 0 and entries[start - 1].depth > entries[index].depth:
        start -= 1
    return entries[start:index]


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


def parse_mocha_json(text: str, root: str = "") -> tuple[CaseResult, ...] | None:
    """The tests of mocha's `json` reporter (`stats`, `tests`, `failures`, `pending`); None when it is not one.

    A failing hook (`"before all" hook for ...`) is in `failures` only: its tests never ran.
    """
    report = _json_document(text, "stats")
    if not isinstance(report, dict) or not isinstance(report.get("tests"), list):
        return None

    def key(test: Any) -> tuple[str, str]:
        return (str(test.get("file") or ""), str(test.get("fullTitle") or test.get("title") or "?"))

    failures = [t for t in report.get("failures") or [] if isinstance(t, dict)]
    failed = {key(t) for t in failures}
    pending = {key(t) for t in report.get("pending") or [] if isinstance(t, dict)}
    results = []
    for test in (t for t in report["tests"] if isinstance(t, dict)):
        status: CaseStatus = "fail" if key(test) in failed else "skip" if key(test) in pending else "pass"
        results.append(CaseResult(_mocha_name(key(test), root), status))
    listed = {key(t) for t in report["tests"] if isinstance(t, dict)}
    hooks = [t for t in failures if key(t) not in listed]
    results += [CaseResult(_mocha_name(key(t), root), "fail", file_level=True) for t in hooks]
    return _unique(results)


def _mocha_name(key: tuple[str, str], root: str) -> str:
    file, title = key
    return NAME_SEPARATOR.join([_relative(file, root), title]) if file else title


def _json_document(text: str, key: str) -> Any:
    """The first JSON object in `text` that has `key` (a report file, or a reporter's output after npm's banner)."""
    start = text.find("{")
    for _ in range(1000):
        if start == -1:
            return None
        try:
            document, _ = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            document = None
        if isinstance(document, dict) and key in document:
            return document
        start = text.find("{", start + 1)
    return None


def parse_human(output: str, runner: Runner | None = None) -> tuple[CaseResult, ...]:
    """Best effort on a runner's human output: ticks pass, crosses fail, mocha's `N) name` fails, bun's
    `(pass) name` and `(fail) name` say so.

    node:test's spec recap (`✖ failing tests:`) repeats the failures and is not read; a suite's
    own closing line (`▶ suite` ... `✔ suite`) is not a test; durations are not part of a name.
    """
    results = []
    suites: set[tuple[str, str]] = set()
    summary_seen = False
    for line in output.splitlines():
        if NODE_RECAP.match(line):
            break
        if match := NODE_SUITE.match(line):
            suites.add((match["indent"], DURATION.sub("", match["name"])))
            continue
        if MOCHA_SUMMARY.match(line):
            summary_seen = True  # what follows is mocha's recap of the failures, numbered again
            continue
        if match := BUN_RESULT.match(line):
            results.append(CaseResult(match["name"], match["status"]))  # type: ignore[arg-type]
            continue
        for pattern, status in ((HUMAN_PASS, "pass"), (HUMAN_FAIL, "fail")):
            if match := pattern.match(line):
                name = DURATION.sub("", match["name"])
                if (match["indent"], name) not in suites:
                    results.append(CaseResult(name, status))  # type: ignore[arg-type]
                break
        else:
            if runner in ("mocha", None) and not summary_seen and (match := MOCHA_FAIL.match(line)):
                results.append(CaseResult(match["name"], "fail"))
    return _unique(results)


def parse_uvu(output: str) -> tuple[tuple[CaseResult, ...], Counts | None]:
    """uvu's failures (`FAIL  suite  "name"`) and its totals; it never names a passing test."""
    failures = [
        CaseResult(NAME_SEPARATOR.join(p for p in ((m["suite"] or "").strip(), m["name"]) if p), "fail")
        for line in output.splitlines()
        if (m := UVU_FAIL.match(line))
    ]
    totals = {m["what"]: int(m["count"]) for m in UVU_TOTAL.finditer(output)}
    counts = Counts(totals["Total"], totals.get("Passed", 0), totals.get("Skipped", 0)) if "Total" in totals else None
    return _unique(failures), counts


def read_results(
    output: str, report: str | None, form: ReportFormat = "tap", runner: Runner | None = None, root: str = ""
) -> Reading:
    """The run's tests, from the machine report asked for when there is one, else TAP, else human output."""
    if form == "jest-json" and report is not None and (parsed := parse_jest_json(report, root)) is not None:
        return Reading(parsed, "json")
    if form == "mocha-json" and (parsed := parse_mocha_json(report or output, root)) is not None:
        return Reading(parsed, "json")
    if form == "node-tap" and (tap := parse_node_tap(output, root)):
        return Reading(tap, "tap")
    if form == "tap" and report is not None and (tap := parse_tap(report, root)):
        return Reading(_ava(tap) if runner == "ava" else tap, "tap")
    if runner == "uvu":
        failures, counts = parse_uvu(output)
        return Reading(failures, "human" if counts or failures else "none", counts)
    if tap := (parse_node_tap(output, root) if runner == "tap" else parse_tap(output, root)):
        return Reading(_ava(tap) if runner == "ava" else tap, "tap")
    if human := parse_human(output, runner):
        return Reading(human, "human")
    return Reading((), "none")


def _ava(results: tuple[CaseResult, ...]) -> tuple[CaseResult, ...]:
    """ava's TAP reports a file that did not load as a failing entry named by its error or its exit."""
    return tuple(
        CaseResult(r.name, r.status, True) if r.status == "fail" and AVA_FILE_LEVEL.search(r.name) else r
        for r in results
    )


def names(results: Sequence[CaseResult], status: CaseStatus) -> list[str]:
    """The names of the results with this status."""
    return [result.name for result in results if result.status == status]
