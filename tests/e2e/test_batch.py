"""Batch grading as a lead runs it: parallel, blind, up to date on a rerun, resumable after kill -9."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLES

from gradelib import batch, cli
from gradelib.gradebook import Gradebook

pytestmark = pytest.mark.e2e
QUICK = ("amara-okafor", "chen-wei", "gus-lindqvist", "dana-kowalski")


def _cohort(tmp_path: Path, names: tuple[str, ...] = QUICK) -> Path:
    cohort = tmp_path / "cohort"
    cohort.mkdir()
    for name in names:
        shutil.copytree(SAMPLES / "replay" / name, cohort / name)
    return cohort


def test_blind_reports_then_everything_up_to_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cohort = _cohort(tmp_path, QUICK[:2])
    reports = tmp_path / "reports"
    assert cli.main(["grade", str(cohort), "--reports", str(reports), "--jobs", "2"]) == 0
    first = capsys.readouterr()
    assert "graded 2, up to date 0, errors 0" in first.out
    files = sorted(p.name for p in (reports / "replay").iterdir() if not p.name.startswith("."))
    assert files == [f"submission-0{n}.{ext}" for n in (1, 2) for ext in ("html", "ipynb", "json")]
    for html in (reports / "replay").glob("*.html"):
        text = html.read_text()
        assert "amara-okafor" not in text and "chen-wei" not in text, "names are hidden in blind reports"
    with Gradebook(reports / "gradebook.sqlite") as book:
        rows = {row.name: row for row in book.submissions("replay")}
        assert {row.blind_label for row in rows.values()} == {"Submission #1", "Submission #2"}
        assert book.latest_lines("replay", "amara-okafor")[0].outcome == "pass"
    assert cli.main(["grade", str(cohort), "--reports", str(reports)]) == 0
    assert "all 2 submissions are up to date" in capsys.readouterr().out
    (cohort / "chen-wei" / "NOTES.txt").write_text("a late change")
    outcomes = {o.submission: o.status for o in batch.grade([cohort], reports=reports)}
    assert outcomes == {"amara-okafor": "up_to_date", "chen-wei": "graded"}


def test_reveal_names_reports_after_candidates(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path, QUICK[:1])
    outcomes = batch.grade([cohort], reports=tmp_path / "reports", reveal=True)
    assert outcomes[0].status == "graded"
    assert (tmp_path / "reports" / "replay" / "amara-okafor.html").exists()


def test_a_batch_killed_midway_resumes_and_keeps_what_was_graded(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path)
    reports = tmp_path / "reports"
    book_path = reports / "gradebook.sqlite"
    command = [sys.executable, "-m", "gradelib", "grade", str(cohort), "--reports", str(reports), "--jobs", "1"]
    proc = subprocess.Popen(
        command, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    graded_before: dict[str, tuple[int, str | None]] = {}
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            if not book_path.exists():
                continue
            with Gradebook(book_path) as book:
                runs = [book.latest_run("replay", name, graded_only=True) for name in QUICK]
            done = {name: (run.id, run.finished_at) for name, run in zip(QUICK, runs, strict=True) if run}
            if 1 <= len(done) < len(QUICK):
                graded_before = done
                os.killpg(proc.pid, signal.SIGKILL)
                break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert graded_before, "the batch was not caught midway"
    outcomes = {o.submission: o.status for o in batch.grade([cohort], reports=reports)}
    assert all(outcomes[name] == "up_to_date" for name in graded_before)
    assert {outcomes[name] for name in QUICK if name not in graded_before} == {"graded"}
    with Gradebook(book_path) as book:
        for name, (run_id, finished) in graded_before.items():
            run = book.latest_run("replay", name, graded_only=True)
            assert run is not None and (run.id, run.finished_at) == (run_id, finished)
        assert all(book.latest_run("replay", name, graded_only=True) for name in QUICK)
    assert all(status == "up_to_date" for status in (o.status for o in batch.grade([cohort], reports=reports)))


def test_grading_on_a_dask_cluster_matches_a_local_run(tmp_path: Path) -> None:
    """`--scheduler`: the same reports and gradebook results from a local Dask cluster the test starts."""
    from distributed import LocalCluster

    cohort = _cohort(tmp_path, ("amara-okafor", "gus-lindqvist"))
    local = {o.submission: o.total for o in batch.grade([cohort], reports=tmp_path / "local", jobs=2)}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = batch.grade([cohort], reports=tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert {o.submission: o.total for o in remote} == local == {"amara-okafor": 100.0, "gus-lindqvist": 70.0}
    assert {o.status for o in remote} == {"graded"}
    for where in ("local", "dask"):
        with Gradebook(tmp_path / where / "gradebook.sqlite") as book:
            outcomes = [line.outcome for line in book.latest_lines("replay", "gus-lindqvist")]
        assert outcomes == ["fail", "pass", "pass", "pass", "pass"]
    assert sorted(p.name for p in (tmp_path / "dask" / "replay").glob("*.html")) == [
        "submission-01.html",
        "submission-02.html",
    ]


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cohort = _cohort(tmp_path, ("amara-okafor",))
    code = cli.main(["grade", str(cohort), "--reports", str(tmp_path / "r"), "--scheduler", "tcp://127.0.0.1:9"])
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
