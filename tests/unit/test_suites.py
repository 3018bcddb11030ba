"""The candidate's suite on each variant: a run red on their code is run again, and a test that flips is flaky."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gradelib.sandbox import Isolation, RunResult
from gradelib.sandbox.connlog import Connection
from gradelib.takehomes.payments.suites import CHECKOUT, HANDOUT_PORT, WITH_STUB, run_suites

GAPS = "an outage ends after 4 attempts, with growing gaps"
ONE_KEY = "a 503 then a 200 is one payment under one key"
LATER = "after a success the next charge gets a fresh key"


def _tap(results: Mapping[str, bool]) -> str:
    lines = ["TAP version 13"]
    for number, (name, ok) in enumerate(results.items(), 1):
        lines.append(f"{'ok' if ok else 'not ok'} {number} - {name}")
    failed = sum(not ok for ok in results.values())
    lines += [f"1..{len(results)}", f"# tests {len(results)}", f"# pass {len(results) - failed}", f"# fail {failed}"]
    return "\n".join(lines) + "\n"


class FakeSuite:
    """Answers like `node --test` would: which tests pass depends on the code in place and on the run's number."""

    def __init__(self, gaps_fail_on: Sequence[int], gateway: str | None = None) -> None:
        """`gateway`: "expected", tests that need the handout's stub already listening on its address; "own",
        tests that start their own server there (a second one there breaks them)."""
        self.runs: list[str] = []  # the code in place, run after run
        self.stubbed: list[bool] = []  # whether the handout's stub listened, run after run
        self.gaps_fail_on = set(gaps_fail_on)  # the run numbers (from 1) whose timing test fails
        self.gateway = gateway

    def __call__(self, argv: Sequence[str], copy: Path, env: Mapping[str, str], stub: bool) -> RunResult:
        code = (copy / CHECKOUT).read_text(encoding="utf-8")
        self.runs.append(code)
        self.stubbed.append(stub)
        own = code == "// theirs\n"
        refused = self.gateway == "expected" and not stub
        clash = self.gateway == "own" and stub
        results = {
            ONE_KEY: (own or "minimal fix" in code) and not refused and not clash,
            GAPS: len(self.runs) not in self.gaps_fail_on and not clash,
            LATER: not refused and not clash,
        }
        tried = Connection("connect", "inet", "127.0.0.1", HANDOUT_PORT, "in progress", 7)
        found = re.search(r"--test-reporter-destination=(\S+)", env.get("NODE_OPTIONS", ""))
        assert found, env
        Path(found.group(1)).write_text(_tap(results), encoding="utf-8")
        return RunResult(
            argv=tuple(argv), cwd=str(copy), exit_code=0 if all(results.values()) else 1, timed_out=False,
            stopped=False, output_limit_hit=False, duration=0.1, stdout="", stdout_bytes=0,
            stderr=f"connect ECONNREFUSED 127.0.0.1:{HANDOUT_PORT}" if refused else "", stderr_bytes=0,
            connections=(tried,) if self.gateway else (), dns_names=(), opened=(),
            isolation=Isolation("root-namespaces", "test"),
            traced=True,
        )  # fmt: skip


def _submission(tmp_path: Path) -> Path:
    root = tmp_path / "submission"
    (root / "test").mkdir(parents=True)
    (root / CHECKOUT).write_text("// theirs\n", encoding="utf-8")
    (root / "package.json").write_text('{"scripts": {"test": "node --test"}}', encoding="utf-8")
    (root / "test" / "checkout.test.mjs").write_text("// the tests\n", encoding="utf-8")
    return root


def _copier(root: Path, tmp_path: Path) -> Callable[[str], Path]:
    def copy(label: str) -> Path:
        target = tmp_path / "copies" / label
        target.mkdir(parents=True)
        for path in root.rglob("*"):
            if path.is_file():
                (target / path.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
                (target / path.relative_to(root)).write_bytes(path.read_bytes())
        return target

    return copy


def test_a_test_that_fails_once_on_their_code_is_run_again_and_shown_as_flaky(tmp_path: Path) -> None:
    root = _submission(tmp_path)
    suite = FakeSuite(gaps_fail_on=[1, 3])  # the timing test fails on their first run and on the draft
    runs = run_suites(root, "/usr/bin/npm", _copier(root, tmp_path), suite)
    assert runs.own is not None and runs.own.flaky == (GAPS,)
    assert runs.own.first == "exit 1, 1 of 3 failed"
    assert runs.green_on_own is True
    assert runs.catching() == {ONE_KEY: ["per_call_fix", "persisted_fix"]}  # the flaky test catches nothing
    assert runs.evidence()["own"]["flaky"] == [GAPS]
    assert len(suite.runs) == 5  # own, own again, draft, both fixes


def test_a_test_red_on_both_runs_keeps_the_suite_red(tmp_path: Path) -> None:
    root = _submission(tmp_path)
    suite = FakeSuite(gaps_fail_on=[1, 2])
    runs = run_suites(root, "/usr/bin/npm", _copier(root, tmp_path), suite)
    assert runs.own is not None and runs.own.flaky == () and runs.own.first == "exit 1, 1 of 3 failed"
    assert runs.green_on_own is False
    assert runs.own.summary() == "exit 1, 1 of 3 failed"


def test_a_suite_green_on_their_code_runs_once(tmp_path: Path) -> None:
    root = _submission(tmp_path)
    suite = FakeSuite(gaps_fail_on=[])
    runs = run_suites(root, "/usr/bin/npm", _copier(root, tmp_path), suite)
    assert runs.own is not None and runs.own.first is None and runs.own.flaky == ()
    assert len(suite.runs) == 4 and suite.runs[0] == "// theirs\n"


def test_a_suite_that_expects_the_handouts_stub_running_is_run_again_with_it_and_so_is_every_variant(
    tmp_path: Path,
) -> None:
    root = _submission(tmp_path)
    suite = FakeSuite(gaps_fail_on=[], gateway="expected")
    runs = run_suites(root, "/usr/bin/npm", _copier(root, tmp_path), suite)
    assert suite.stubbed == [False, True, True, True, True]  # theirs alone, theirs with the stub, draft, 2 fixes
    assert runs.green_on_own is True and runs.red_on_draft is True
    assert runs.own is not None and runs.own.with_stub and runs.own.first is None
    assert runs.evidence()["handout_stub"] == WITH_STUB
    assert runs.evidence()["draft"]["with_handout_stub"] is True


def test_a_suite_with_its_own_server_on_the_handouts_port_keeps_its_first_run(tmp_path: Path) -> None:
    root = _submission(tmp_path)
    suite = FakeSuite(gaps_fail_on=[1], gateway="own")  # red on its first run for a reason of its own
    runs = run_suites(root, "/usr/bin/npm", _copier(root, tmp_path), suite)
    assert suite.stubbed[:2] == [False, True] and not any(suite.stubbed[2:])
    assert runs.own is not None and not runs.own.with_stub and runs.own.flaky == (GAPS,)
    assert runs.evidence()["handout_stub"] is None


def test_a_green_suite_never_meets_the_handouts_stub(tmp_path: Path) -> None:
    root = _submission(tmp_path)
    suite = FakeSuite(gaps_fail_on=[], gateway="own")
    run_suites(root, "/usr/bin/npm", _copier(root, tmp_path), suite)
    assert not any(suite.stubbed)
