"""Reading a JavaScript test run test by test: JSON reports, TAP, each runner's human output (real captures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradelib.takehomes.payments import testrunners
from gradelib.takehomes.payments.testreports import (
    CaseResult,
    Counts,
    parse_human,
    parse_jest_json,
    parse_tap,
    read_results,
    tap_failure,
)
from gradelib.takehomes.payments.testrunners import ReportFormat, Runner

# Real runs of tiny suites (2 passing tests and "fails on purpose"; broken/: a file importing a missing
# module) by each runner, captured on Node 20.20 without a terminal: data/testrunners/README.md.
CAPTURES = Path(__file__).parent / "data" / "testrunners"

# Real `node --test` output (Node 20): two files, one with a describe block, one that cannot load.
TAP = """\
TAP version 13
# Subtest: passes
ok 1 - passes
  ---
  duration_ms: 0.879966
  ...
# Subtest: fails
not ok 2 - fails
  ---
  duration_ms: 0.960917
  location: '/w/03-tests-own/submission/test/a.test.mjs:4:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:
  ...
# Subtest: group
    # Subtest: inner ok
    ok 1 - inner ok
      ---
      duration_ms: 0.237703
      ...
    # Subtest: inner bad
    not ok 2 - inner bad
      ---
      duration_ms: 0.131596
      ...
    1..2
not ok 3 - group
  ---
  type: 'suite'
  failureType: 'subtestsFailed'
  ...
# Subtest: skipped one
ok 4 - skipped one # SKIP not today
# Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/w/missing.mjs' imported from /w/test/b.test.mjs
# Subtest: /w/03-tests-own/submission/test/b.test.mjs
not ok 5 - /w/03-tests-own/submission/test/b.test.mjs
  ---
  failureType: 'testCodeFailure'
  exitCode: 1
  error: 'test failed'
  ...
# Subtest: fails
ok 6 - fails
1..6
# tests 7
# pass 3
# fail 3
"""
HOOK_FAILED = """\
TAP version 13
# Subtest: charges
not ok 1 - charges
  ---
  duration_ms: 7.549909
  failureType: 'hookFailed'
  error: "Unexpected token '{'"
  code: 'ERR_TEST_FAILURE'
  name: 'SyntaxError'
  ...
1..1
"""


def test_tap_keeps_leaf_tests_with_their_suite_and_tells_files_that_did_not_load() -> None:
    results = parse_tap(TAP, "/w/03-tests-own/submission")
    assert results == (
        CaseResult("passes", "pass"),
        CaseResult("fails", "fail"),
        CaseResult("group > inner ok", "pass"),
        CaseResult("group > inner bad", "fail"),
        CaseResult("skipped one", "skip"),
        CaseResult("test/b.test.mjs", "fail", file_level=True),
        CaseResult("fails (2)", "pass"),  # the same name in another file
    )


def test_a_failing_before_hook_means_the_test_never_ran() -> None:
    assert parse_tap(HOOK_FAILED) == (CaseResult("charges", "fail", file_level=True),)
    assert tap_failure(HOOK_FAILED) == "SyntaxError: Unexpected token '{'"
    assert tap_failure(TAP) == "Expected values to be strictly equal:"


JEST = {
    "numTotalTests": 3,
    "testResults": [
        {
            "name": "/w/04-tests-draft/submission/checkout.test.js",
            "status": "failed",
            "assertionResults": [
                {"ancestorTitles": ["chargeWithRetry"], "title": "retries with one key", "status": "failed"},
                {"ancestorTitles": ["chargeWithRetry"], "title": "charges", "status": "passed"},
                {"ancestorTitles": [], "title": "later", "status": "pending"},
            ],
        },
        {"name": "/w/04-tests-draft/submission/broken.test.js", "status": "failed", "assertionResults": []},
    ],
}


def test_jest_and_vitest_json_reports() -> None:
    results = parse_jest_json(json.dumps(JEST), "/w/04-tests-draft/submission")
    assert results == (
        CaseResult("checkout.test.js > chargeWithRetry > retries with one key", "fail"),
        CaseResult("checkout.test.js > chargeWithRetry > charges", "pass"),
        CaseResult("checkout.test.js > later", "skip"),
        CaseResult("broken.test.js", "fail", file_level=True),
    )
    assert parse_jest_json("not json") is None
    assert parse_jest_json('{"tests": []}') is None


def test_human_output_as_a_fallback() -> None:
    output = " ✓ charges once (3 ms)\n ✕ retries with one key (12 ms)\n × vitest style 8ms\n ✔ spec style (1.2ms)\n"
    assert [(r.name, r.status) for r in parse_human(output)] == [
        ("charges once", "pass"), ("retries with one key", "fail"), ("vitest style", "fail"),
        ("spec style", "pass"),
    ]  # fmt: skip


def test_read_results_prefers_the_report_then_tap_then_human() -> None:
    assert read_results(TAP, json.dumps(JEST), "jest-json").read_as == "json"
    assert read_results(TAP, None, "jest-json").read_as == "tap"
    assert read_results("✓ ok", "garbage", "jest-json").read_as == "human"
    assert read_results("sh: 1: jest: not found", None).tests == ()


def _capture(name: str) -> tuple[str, str | None, str]:
    """(output, the report file's contents if the capture has one, the suite's folder as the run saw it)."""
    header, _, body = (CAPTURES / name).read_text(encoding="utf-8").partition("\n")
    output, _, report = body.partition("--- contents of ")
    suite = header.split("cd ", 1)[1].split(" ", 1)[0]
    return output, report.partition("\n")[2] if report else None, f"/tmp/rf/{suite}"


PASSED = ["adds two numbers", "greets by name"]
FAILED = ["fails on purpose"]


@pytest.mark.parametrize(
    ("capture", "form", "runner", "prefix"),
    [
        ("mocha10-fail-json-outputfile.txt", "mocha-json", "mocha", "test/math.test.mjs > math "),
        ("mocha11-fail-json-outputfile.txt", "mocha-json", "mocha", "test/math.test.mjs > math "),
        ("mocha11-fail-json.txt", "mocha-json", "mocha", "test/math.test.mjs > math "),  # JSON on stdout
        ("mocha11-fail-default.txt", "human", "mocha", ""),
        ("ava6-fail-tap.txt", "tap", "ava", ""),
        ("ava6-fail-default.txt", "human", "ava", ""),
        ("tap18-fail-R-tap.txt", "node-tap", "tap", "test/math.test.mjs > "),
        ("tap21-fail-R-tap.txt", "node-tap", "tap", "test/math.test.mjs > "),
        ("tap21-fail-default-notty.txt", "node-tap", "tap", "test/math.test.mjs > "),
        ("nodetest-fail-tap.txt", "tap", "node:test", ""),
        ("nodetest-fail-spec.txt", "tap", "node:test", ""),  # no report file: the spec output is read
        ("nodetest-nodeoptions-tap-destfile-stdout-cli-spec.txt", "tap", "node:test", ""),
        ("vitest4-fail-json-outputfile.txt", "jest-json", "vitest", "test/math.test.mjs > math > "),
        ("vitest4-fail-default.txt", "human", "vitest", ""),
        ("jest30-fail-json-outputfile.txt", "jest-json", "jest", "test/math.test.mjs > math > "),
    ],
)
def test_each_runner_is_read_test_by_test(capture: str, form: ReportFormat, runner: Runner, prefix: str) -> None:
    output, report, root = _capture(capture)
    reading = read_results(output, report, form, runner, root)
    got = {(test.name.removeprefix(prefix), test.status) for test in reading.tests if not test.file_level}
    assert got == {*((name, "pass") for name in PASSED), *((name, "fail") for name in FAILED)}, reading


def test_uvu_names_only_its_failures_and_gives_totals() -> None:
    output, _, root = _capture("uvu-fail-default.txt")
    reading = read_results(output, None, "human", "uvu", root)
    assert reading.tests == (CaseResult("fails on purpose", "fail"),)
    assert reading.counts == Counts(total=3, passed=2, skipped=0)


@pytest.mark.parametrize(
    ("capture", "form", "runner", "loaded"),
    [
        ("ava6-importerror-tap.txt", "tap", "ava", ["ok › adds two numbers", "ok › greets by name"]),
        ("tap21-importerror-R-tap.txt", "node-tap", "tap", ["broken/ok.test.mjs > adds two numbers",
                                                             "broken/ok.test.mjs > greets by name"]),
        ("nodetest-importerror-tap.txt", "tap", "node:test", PASSED),
        ("jest30-importerror-json-outputfile.txt", "jest-json", "jest", ["broken/ok.test.mjs > adds two numbers",
                                                                         "broken/ok.test.mjs > greets by name"]),
        ("mocha11-importerror-default.txt", "human", "mocha", []),  # mocha runs nothing at all
    ],
)  # fmt: skip
def test_a_test_file_that_cannot_load_is_a_file_level_failure(
    capture: str, form: ReportFormat, runner: Runner, loaded: list[str]
) -> None:
    output, report, root = _capture(capture)
    reading = read_results(output, report, form, runner, root)
    assert [t.name for t in reading.tests if not t.file_level and t.status == "pass"] == loaded
    assert not [t for t in reading.tests if not t.file_level and t.status == "fail"]
    assert bool([t for t in reading.tests if t.file_level]) == bool(loaded)


@pytest.mark.parametrize(
    ("script", "runner", "last"),
    [
        ("node --test", "node:test", True),
        ("node --test --test-reporter=spec test/", "node:test", True),
        ("vitest run", "vitest", True),
        ("npx vitest --run", "vitest", True),
        ("pnpm vitest run", "vitest", True),
        ("pnpm exec vitest run", "vitest", True),
        ("NODE_OPTIONS=--experimental-vm-modules jest", "jest", True),
        ("node --experimental-vm-modules node_modules/jest/bin/jest.js", "jest", True),
        ("cross-env CI=1 jest --coverage", "jest", True),
        ("mocha", "mocha", True),
        ("npx --no-install mocha --reporter dot", "mocha", True),
        ("yarn mocha --reporter spec", "mocha", True),
        ("c8 --reporter=text mocha 'test/**/*.mjs'", "mocha", True),
        ("ava", "ava", True),
        ("tap", "tap", True),
        ("uvu test", "uvu", True),
        ("eslint . && jest", "jest", True),
        ("jest && echo done", "jest", False),  # arguments after `npm test --` would reach echo
        ("node test.mjs", None, False),
        ("'unbalanced", None, False),
    ],
)
def test_the_runner_a_test_script_calls(script: str, runner: str | None, last: bool) -> None:
    call = testrunners.detect(script)
    assert (call.runner, call.last) == (runner, last)


def test_machine_reports_per_runner() -> None:
    def report(script: str, version: str | None = None) -> testrunners.MachineReport:
        return testrunners.machine_report(testrunners.detect(script), "/r", version)

    assert report("vitest run").args == ("--reporter=json", "--outputFile=/r")
    assert report("jest").args == ("--json", "--outputFile=/r")
    assert report("mocha").args == ("--reporter", "json", "--reporter-option", "output=/r")
    assert report("ava").args == ("--tap",)
    assert report("tap", "21.8.0").args == ("-R", "tap", "--allow-incomplete-coverage")
    assert report("tap", "16.3.0").args == ("-R", "tap", "--no-check-coverage")
    assert report("uvu test").args == ()
    assert report("jest && echo done").args == ()


@pytest.mark.parametrize(
    ("script", "node_options"),
    [
        # no reporter of its own: TAP to the file, and TAP on stdout as node --test prints it without a terminal
        ("node --test", "--test-reporter=tap --test-reporter-destination=/r"
                        " --test-reporter=tap --test-reporter-destination=stdout"),
        # its spec reporter pairs with a destination of stdout (Node refuses unequal counts)
        ("node --test --test-reporter=spec test/", "--test-reporter=tap --test-reporter-destination=/r"
                                                   " --test-reporter-destination=stdout"),
        ("node --test --test-reporter=spec --test-reporter-destination=stdout",
         "--test-reporter=tap --test-reporter-destination=/r"),
    ],
)  # fmt: skip
def test_node_test_reports_tap_to_a_file_beside_its_own_reporters(script: str, node_options: str) -> None:
    report = testrunners.machine_report(testrunners.detect(script), "/r")
    assert report.args == () and report.env == {"NODE_OPTIONS": node_options} and report.file


def test_bun_tests_are_read_from_their_pass_and_fail_lines() -> None:
    """`bun test` has no reporter the kit asks for: its `(pass)` / `(fail)` lines name every test."""
    output = (
        "bun test v1.4.5 (a7733435c)\n\ntest/checkout.test.ts:\n"
        "(pass) chargeWithRetry > retries a 503 with the same key [61.79ms]\n"
        "(fail) chargeWithRetry > one key per call [0.50ms]\n\n 1 pass\n 1 fail\nRan 2 tests across 1 file. [1.05s]\n"
    )
    assert testrunners.detect("bun test --timeout 20000").runner == "bun:test"
    form = testrunners.machine_report(testrunners.detect("bun test"), "r.tap").format
    reading = read_results(output, None, form, "bun:test")
    assert reading.read_as == "human"
    assert [(case.name, case.status) for case in reading.tests] == [
        ("chargeWithRetry > retries a 503 with the same key", "pass"),
        ("chargeWithRetry > one key per call", "fail"),
    ]


def test_a_script_that_runs_other_scripts_is_read_through() -> None:
    """`run-s test:*` (npm-run-all), `npm run unit`: the runner is in a script the test script calls; arguments
    after `npm test --` reach the caller, so only NODE_OPTIONS' report (node:test) still does."""
    scripts = {"test:syntax": "node --check checkout.mjs", "test:unit": "node --test test/", "unit": "vitest run"}
    through = testrunners.detect("run-s test:syntax test:unit", scripts)
    assert (through.runner, through.last) == ("node:test", False)
    assert testrunners.machine_report(through, "r.tap").env  # NODE_OPTIONS carries the report
    assert testrunners.detect("npm run unit", scripts).runner == "vitest"
    assert testrunners.detect("run-s test:*", scripts).runner == "node:test"
    assert testrunners.detect("npm run unit").runner is None, "without the package's scripts nothing is read through"
