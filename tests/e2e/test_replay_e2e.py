"""The five replay checks, end to end: real submissions, real sandbox, real model stub."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SAMPLES
from sample_cohort import GradedCohort

from gradelib import cli
from gradelib.intake import ingest
from gradelib.result import Report
from gradelib.sandbox import Limits
from gradelib.takehomes import replay

pytestmark = pytest.mark.e2e
EXPECTED = tomllib.loads((Path(__file__).parent / "expected_replay.toml").read_text())
REPLAY_SAMPLES = SAMPLES / "replay"
LINE_IDS = ["identical", "offline", "missing_fixture", "record", "volatile"]


@pytest.fixture(scope="module")
def cohort(graded_samples: GradedCohort) -> dict[str, Report]:
    """Every sample, as the session's batch graded it (its saved JSON result)."""
    return {name: graded_samples.report("replay", name) for name in graded_samples.names("replay")}


def test_every_sample_is_listed_in_the_expectations() -> None:
    on_disk = sorted(p.name for p in REPLAY_SAMPLES.iterdir() if p.is_dir())
    assert on_disk == sorted(EXPECTED)
    assert len(on_disk) >= 7


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=str)
def test_sample_gets_exactly_its_expected_verdicts(cohort: dict[str, Report], name: str) -> None:
    report = cohort[name]
    got = {line.id: line.outcome for line in report.lines}
    assert [line.id for line in report.lines] == LINE_IDS
    assert got == EXPECTED[name], {line.id: line.message for line in report.lines}
    for line in report.lines:
        assert line.message and "\n" not in line.message


def test_clean_samples_score_100(cohort: dict[str, Report]) -> None:
    clean = [name for name, lines in EXPECTED.items() if set(lines.values()) == {"pass"}]
    assert clean
    for name in clean:
        assert cohort[name].total == 100.0
        assert cohort[name].max_total == 100.0


def test_failures_carry_the_evidence_a_reviewer_needs(cohort: dict[str, Report]) -> None:
    by_cause = {cohort[n].line("identical").evidence.get("cause") for n in cohort}
    assert {"timestamp", "random_id", "ordering"} <= by_cause
    for name, report in cohort.items():
        identical = report.line("identical")
        if identical.outcome == "fail":
            assert identical.evidence["unified_diff"].startswith("---"), name
            assert identical.evidence["json_changes"], name
        offline = report.line("offline")
        if offline.outcome == "fail":
            attempts = offline.evidence["attempts"]
            assert attempts and all(a["port"] for a in attempts)
            assert any(a["host"] for a in attempts), "the DNS name of a live call is shown"
        volatile_line = report.line("volatile")
        if volatile_line.outcome == "fail":
            assert volatile_line.evidence["findings"] or volatile_line.evidence["changed_between_runs"]


def test_report_json_has_the_stable_shape(cohort: dict[str, Report]) -> None:
    data = json.loads(cohort["amara-okafor"].to_json())
    assert set(data) == {"takehome", "submission", "lines", "facts", "environment", "total", "max_total"}
    environment = data["environment"]
    assert set(environment) == {
        "declared", "installed", "project", "lockfiles", "refused", "setup_steps", "tools", "notes", "flags",
        "error", "python", "node",
    }  # fmt: skip
    assert environment["declared"] == [] and environment["installed"] == [] and environment["error"] is None
    assert data["takehome"] == "replay" and data["submission"] == "amara-okafor"
    for line in data["lines"]:
        assert set(line) == {"id", "outcome", "points", "max_points", "tier", "message", "evidence"}
    assert data["facts"]["tickets_match_handout"] is True


def _copy_sample(name: str, dest: Path) -> Path:
    return Path(shutil.copytree(REPLAY_SAMPLES / name, dest / name, symlinks=True))


def test_a_sample_renamed_and_moved_gets_the_same_verdicts(cohort: dict[str, Report], tmp_path: Path) -> None:
    """Nothing in the checks knows the samples' names or paths."""
    copy = Path(shutil.copytree(REPLAY_SAMPLES / "gus-lindqvist", tmp_path / "candidate-42"))
    report = replay.check(copy)
    assert report.submission == "candidate-42"
    assert {line.id: line.outcome for line in report.lines} == EXPECTED["gus-lindqvist"]


def test_missing_run_sh_is_a_clear_error_on_every_line(make_submission: Callable[..., Path]) -> None:
    sub = make_submission("no-runner", {"tickets.json": "[]", "cassettes/a.json": "{}", "main.py": "print(1)"})
    report = replay.check(sub)
    assert {line.outcome for line in report.lines} == {"error"}
    assert all("no run.sh" in line.message for line in report.lines)
    assert report.total == 0.0


def test_a_hanging_replay_is_an_error_bounded_in_time(tmp_path: Path) -> None:
    sub = _copy_sample("amara-okafor", tmp_path)
    (sub / "run.sh").write_text("#!/usr/bin/env bash\nsleep 1000\n")
    short = Limits(wall_seconds=2)
    report = replay.check(sub, replay_limits=short, record_limits=short)
    identical = report.line("identical")
    assert identical.outcome == "error"
    assert "timeout" in identical.message
    assert report.line("record").outcome == "fail"  # running out of time is what (b) looks for


def test_a_replay_that_phones_home_fails_offline_with_the_address(tmp_path: Path) -> None:
    sub = _copy_sample("amara-okafor", tmp_path)
    original = (sub / "run.sh").read_text()
    (sub / "run.sh").write_text(
        original.replace(
            "set -euo pipefail",
            "set -euo pipefail\npython3 -c \"import socket\ntry: socket.create_connection(('203.0.113.9', 8443), 1)\n"
            'except OSError: pass" || true',
            1,
        )
    )
    report = replay.check(sub, record_limits=Limits(wall_seconds=60))
    offline = report.line("offline")
    assert offline.outcome == "fail"
    assert "203.0.113.9:8443" in offline.message
    assert report.line("identical").outcome == "pass", "a swallowed attempt leaves the output identical"


def test_archives_and_bundles_grade_like_the_folder(tmp_path: Path) -> None:
    sub = _copy_sample("chen-wei", tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(sub)]
    subprocess.run(["git", "init", "-q", str(sub)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "take-home"], check=True)
    bundle = tmp_path / "chen-wei.bundle"
    subprocess.run([*git, "bundle", "create", "-q", str(bundle), "--all"], check=True)
    archive = shutil.make_archive(str(tmp_path / "zipped" / "chen-wei"), "zip", tmp_path, "chen-wei")
    for path in (bundle, Path(archive)):
        with ingest.open_submission(path) as unpacked:
            report = replay.check(unpacked.path, name=unpacked.name)
        assert {line.id: line.outcome for line in report.lines} == EXPECTED["chen-wei"], path.name


def test_cli_check_json_prints_the_stable_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "replay", str(REPLAY_SAMPLES / "gus-lindqvist"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["submission"] == "gus-lindqvist"
    assert [line["id"] for line in data["lines"]] == LINE_IDS
    assert data["lines"][0]["outcome"] == "fail" and data["total"] == 70.0


def test_cli_reports_a_missing_submission_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "replay", "/nonexistent/submission"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gradelib: ") and "does not exist" in err and "Traceback" not in err


def test_live_rerecord_spot_checks_one_fixture_against_the_reviewers_endpoint(tmp_path: Path) -> None:
    """A real second endpoint (another stub on loopback, outside the sandbox) plays the live model."""
    import socket

    from gradelib.takehomes.replay.liverecord import LiveEndpoint
    from gradelib.takehomes.replay.modelstub import ModelStub, packaged_tickets

    committed = json.loads((REPLAY_SAMPLES / "amara-okafor" / "out" / "answers.json").read_text())
    labels = {row["id"]: row["label"] for row in committed}
    tickets = packaged_tickets()
    # A "live model" that disagrees with the committed fixtures on most tickets.
    live_model = next(
        stub
        for salt in (f"live-{n}" for n in range(500))
        if sum((stub := ModelStub(tickets=tickets, salt=salt)).label_for(t["body"]) != labels[t["id"]] for t in tickets)
        == len(tickets)
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    with live_model.serve(sock):
        report = replay.check(REPLAY_SAMPLES / "amara-okafor", live=LiveEndpoint(url, "sk-reviewer-live-key"))
    record = report.line("record")
    live = record.evidence["honesty"]["live_rerecord"]
    assert live["done"] and live["live_calls"] >= 1
    assert live["live_label"] != live["committed_label"]
    assert record.outcome == "needs_review" and "live model labels" in record.message
    assert live_model.call_count == live["live_calls"], "only the chosen ticket went to the live endpoint"
    assert "sk-reviewer-live-key" not in json.dumps(report.to_dict())


def test_without_namespaces_offline_is_unverified_never_passed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gradelib.sandbox import ENV_FORCE_NO_NAMESPACES

    monkeypatch.setenv(ENV_FORCE_NO_NAMESPACES, "1")
    assert cli.main(["check", "replay", str(REPLAY_SAMPLES / "amara-okafor")]) == 0
    out = capsys.readouterr().out
    assert "WARNING: no network isolation" in out
    report = replay.check(REPLAY_SAMPLES / "amara-okafor")
    offline = report.line("offline")
    assert offline.outcome == "unverified" and offline.points is None
    assert "isolation unavailable" in offline.message
    assert report.facts["isolation"] == "none" and report.total is None


def test_git_history_is_read_in_the_sandbox_and_a_late_cassette_edit_is_flagged(tmp_path: Path) -> None:
    """History is evidence of hand-edited fixtures; the repository's own git config must not run outside."""
    sub = _copy_sample("amara-okafor", tmp_path)
    git = ["git", "-c", "user.name=c", "-c", "user.email=c@example.com", "-C", str(sub)]
    subprocess.run(["git", "init", "-q", str(sub)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "record fixtures"], check=True)
    cassette = sorted((sub / "cassettes").iterdir())[3]
    cassette.write_text(cassette.read_text().replace("justification", "justification", 1) + " ")
    subprocess.run([*git, "commit", "-qam", "tidy one fixture"], check=True)
    pwned = tmp_path / "PWNED"
    (sub / "evil.sh").write_text(f"#!/bin/sh\nid > {pwned}\n")
    (sub / "evil.sh").chmod(0o755)
    subprocess.run([*git, "config", "log.showSignature", "true"], check=True)
    subprocess.run([*git, "config", "gpg.program", str(sub / "evil.sh")], check=True)
    report = replay.check(sub)
    record = report.line("record")
    late = record.evidence["honesty"]["late_edits"]
    assert [edit["path"] for edit in late] == [f"cassettes/{cassette.name}"]
    assert late[0]["subject"] == "tidy one fixture"
    assert record.outcome == "needs_review"
    assert any("later commit" in finding for finding in record.evidence["honesty"]["findings"])
    assert not pwned.exists(), "nothing from the candidate's repository ran outside the sandbox"
