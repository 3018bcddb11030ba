"""Reading a JavaScript test run test by test (node:test TAP, jest/vitest JSON, human output)."""

from __future__ import annotations

import json

import pytest

from gradelib.takehomes.payments.testreports import (
    CaseResult,
    detect_runner,
    parse_human,
    parse_jest_json,
    parse_tap,
    read_results,
    reporter_args,
    tap_failure,
)

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
    output = " ✓ charges once (3 ms)\n ✕ retries with one key (12 ms)\n × vitest style\n ✔ spec style 1.2ms\n"
    assert [(r.name, r.status) for r in parse_human(output)] == [
        ("charges once", "pass"), ("retries with one key", "fail"), ("vitest style", "fail"),
        ("spec style 1.2ms", "pass"),
    ]  # fmt: skip


def test_read_results_prefers_the_json_report_then_tap_then_human() -> None:
    assert read_results(TAP, json.dumps(JEST))[1] == "json"
    assert read_results(TAP, None)[1] == "tap"
    assert read_results("✓ ok", "garbage")[1] == "human"
    assert read_results("sh: 1: jest: not found", None) == ((), "none")


@pytest.mark.parametrize(
    ("script", "runner"),
    [
        ("node --test", "node:test"),
        ("node --test test/", "node:test"),
        ("vitest run", "vitest"),
        ("npx vitest --run", "vitest"),
        ("NODE_OPTIONS=--experimental-vm-modules jest", "jest"),
        ("cross-env CI=1 jest --coverage", "jest"),
        ("node test.mjs", None),
        ("eslint . && jest", None),  # a compound script: nothing is appended
        ("mocha", None),
        ("'unbalanced", None),
    ],
)
def test_detect_runner(script: str, runner: str | None) -> None:
    assert detect_runner(script) == runner


def test_reporter_args_only_for_a_runner_with_a_json_reporter() -> None:
    assert reporter_args("vitest", "/r.json") == ("--reporter=json", "--outputFile=/r.json")
    assert reporter_args("jest", "/r.json") == ("--json", "--outputFile=/r.json")
    assert reporter_args("node:test", "/r.json") == ()
    assert reporter_args(None, "/r.json") == ()
