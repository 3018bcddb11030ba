"""Batch grading as a lead runs it: parallel, blind, up to date on a rerun, resumable after kill -9.

The batching itself is tested on the test-only `tiny` take-home (one sandboxed `cat` per
submission), so these tests wait for the batch, not for the take-homes; the sample cohort
graded once per session (and once more on Dask) keeps a real take-home in the picture.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLES, tiny_submission
from sample_cohort import GradedCohort

from gradelib import batch, cli, takehomes
from gradelib.batch.reportname import report_stem
from gradelib.commands import exits
from gradelib.gradebook import Gradebook
from gradelib.intake import ingest
from gradelib.review import reportowner

pytestmark = pytest.mark.e2e
QUICK = {"ada-quill": "42", "bo-marsh": "41", "cy-fenn": "42", "di-lorne": "42"}  # 42 passes


@pytest.fixture(autouse=True)
def _tiny(tiny_takehome: str) -> str:
    return tiny_takehome


def _cohort(tmp_path: Path, names: tuple[str, ...] = tuple(QUICK)) -> Path:
    cohort = tmp_path / "cohort"
    for name in names:
        tiny_submission(cohort / name, QUICK[name])
    return cohort


def test_blind_reports_then_everything_up_to_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cohort = _cohort(tmp_path, ("ada-quill", "bo-marsh"))
    reports = tmp_path / "reports"
    assert cli.main(["grade", str(cohort), "--reports", str(reports), "--jobs", "2"]) == 0
    first = capsys.readouterr()
    assert "graded 2, up to date 0, errors 0" in first.out
    files = sorted(p.name for p in (reports / "tiny").iterdir() if not p.name.startswith("."))
    assert files == [f"submission-0{n}.{ext}" for n in (1, 2) for ext in ("html", "ipynb", "json")]
    for html in (reports / "tiny").glob("*.html"):
        text = html.read_text()
        assert "Prints the answer" in text, "the executed notebook shows the line"
        assert "ada-quill" not in text and "bo-marsh" not in text, "names are hidden in blind reports"
    with Gradebook(reports / "gradebook.sqlite") as book:
        rows = {row.name: row for row in book.submissions("tiny")}
        assert {row.blind_label for row in rows.values()} == {"Submission #1", "Submission #2"}
        assert [line.outcome for line in book.latest_lines("tiny", "ada-quill")] == ["pass"]
        assert [line.outcome for line in book.latest_lines("tiny", "bo-marsh")] == ["fail"]
    assert cli.main(["grade", str(cohort), "--reports", str(reports)]) == 0
    assert "all 2 submissions are up to date" in capsys.readouterr().out
    (cohort / "bo-marsh" / "NOTES.txt").write_text("a late change")
    outcomes = {o.submission: o.status for o in batch.grade([cohort], reports=reports)}
    assert outcomes == {"ada-quill": "up_to_date", "bo-marsh": "graded"}
    forced = {o.submission: o.status for o in batch.grade([cohort], reports=reports, force=True)}
    assert forced == {"ada-quill": "graded", "bo-marsh": "graded"}


def test_a_submission_whose_lines_the_kit_could_not_check_ends_the_batch_in_error_and_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An `error` line is no "ok": the submission is printed as such, listed at the end with its report,
    counted in the last line, and `grade` exits 1, now and on every later run while it stands."""
    cohort = _cohort(tmp_path, ("ada-quill",))
    (cohort / "ed-unread" / "answer.txt").mkdir(parents=True)  # `cat` cannot print a folder: the line is `error`
    reports = tmp_path / "reports"
    argv = ["grade", str(cohort), "--reports", str(reports), "--jobs", "2"]
    assert cli.main(argv) == exits.EXIT_GRADING_ERRORS == 1
    first = capsys.readouterr()
    *_, heading, listed, last = first.out.strip().splitlines()
    counted = "errors 1 (1 of them with lines the kit could not check)"
    assert last == f"graded 1, up to date 0, {counted}; reports in {reports}/"
    assert heading == "needs a look: 1 submission"
    assert listed.startswith("  tiny/Submission #2: could not check 1 line: cat answer.txt: exit 1")
    assert listed.endswith(str(reports / "tiny" / "submission-02.html"))
    progress = [line for line in first.out.splitlines() if line.startswith("tiny/Submission #2:")]
    assert progress and progress[0].startswith("tiny/Submission #2: could not check 1 line: cat answer.txt")
    assert "\033[" not in first.out + first.err  # not a terminal: no colour
    assert cli.main(argv) == 1  # up to date, and still not checked: the same answer
    again = capsys.readouterr().out.strip().splitlines()
    assert again[-1] == f"graded 0, up to date 1, {counted}; reports in {reports}/"
    assert again[-2] == listed


def test_reveal_names_reports_after_candidates(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path, ("ada-quill",))
    outcomes = batch.grade([cohort], reports=tmp_path / "reports", reveal=True)
    assert [(o.status, o.total) for o in outcomes] == [("graded", 10.0)]
    assert (tmp_path / "reports" / "tiny" / "ada-quill.html").exists()


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
            time.sleep(0.2)
            if not book_path.exists():
                continue
            with Gradebook(book_path) as book:
                runs = [book.latest_run("tiny", name, graded_only=True) for name in QUICK]
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
            run = book.latest_run("tiny", name, graded_only=True)
            assert run is not None and (run.id, run.finished_at) == (run_id, finished)
        assert all(book.latest_run("tiny", name, graded_only=True) for name in QUICK)
    assert all(status == "up_to_date" for status in (o.status for o in batch.grade([cohort], reports=reports)))


def test_the_sample_cohort_is_graded_in_one_batch(graded_samples: GradedCohort) -> None:
    """The real take-homes through the batch: every sample graded, its three files, one run each."""
    on_disk = {
        (takehome, path.name)
        for takehome in ("replay", "payments")
        for path in ingest.find_submissions(SAMPLES / takehome, recognises=takehomes.recognises)
    }
    assert set(graded_samples.outcomes) == on_disk
    for (takehome, name), outcome in graded_samples.outcomes.items():
        assert outcome.status == "graded", (name, outcome.error)
        for ext in ("ipynb", "html", "json"):
            assert (graded_samples.reports / takehome / f"{name}.{ext}").stat().st_size > 0
    with Gradebook(graded_samples.reports / "gradebook.sqlite") as book:
        for takehome in ("replay", "payments"):
            runs = book.runs(takehome)
            assert sorted(run.status for run in runs) == ["graded"] * len(graded_samples.names(takehome))


def test_grading_on_a_dask_cluster_matches_a_local_run(tmp_path: Path, graded_samples: GradedCohort) -> None:
    """`--scheduler`: two real replay samples on a local Dask cluster graded as the local batch graded them."""
    from distributed import LocalCluster

    names = ("amara-okafor", "gus-lindqvist")
    # its HTTP server on a port of its own: dashboard_address=None still takes the default 8787, which another
    # process of the machine may hold
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster:
        remote = batch.grade(
            [SAMPLES / "replay" / name for name in names],
            reports=tmp_path / "dask",
            scheduler=cluster.scheduler_address,
        )
    assert {o.status for o in remote} == {"graded"}
    local = {name: graded_samples.outcome("replay", name).total for name in names}
    assert {o.submission: o.total for o in remote} == local == {"amara-okafor": 100.0, "gus-lindqvist": 70.0}
    for where in (graded_samples.reports, tmp_path / "dask"):
        with Gradebook(where / "gradebook.sqlite") as book:
            outcomes = [line.outcome for line in book.latest_lines("replay", "gus-lindqvist")]
        assert outcomes == ["fail", "pass", "pass", "pass", "pass"]
    assert sorted(p.name for p in (tmp_path / "dask" / "replay").glob("*.html")) == [
        "submission-01.html",
        "submission-02.html",
    ]


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cohort = _cohort(tmp_path, ("ada-quill",))
    code = cli.main(["grade", str(cohort), "--reports", str(tmp_path / "r"), "--scheduler", "tcp://127.0.0.1:9"])
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def _reports_agree_with(reports: Path, book_path: Path, cohort: Path) -> dict[str, str]:
    """Every report records this gradebook and the run it shows, and that run's content is the submission the
    gradebook numbers so (the digest the report's header shows too); label -> name."""
    found = {}
    with Gradebook(book_path, readonly=True) as book:
        runs = {run.id: run for run in book.runs("tiny")}
        rows = {row.id: row for row in book.submissions("tiny")}
        for notebook in sorted((reports / "tiny").glob("*.ipynb")):
            record = reportowner.report_record(notebook)
            assert record is not None and record.gradebook == book.id, notebook
            run = runs[record.run]
            row = rows[run.submission_id]
            assert report_stem(row.blind_label) == notebook.stem and record.label == row.blind_label
            assert run.digest == row.digest == ingest.digest(cohort / row.name) == record.digest
            assert run.id == book.latest_run("tiny", row.name).id, "the gradebook's current run"  # type: ignore[union-attr]
            assert f"digest <code>{row.digest[:16]}</code>" in notebook.with_suffix(".html").read_text()
            found[row.blind_label] = row.name
        owner = reportowner.folder_owner(reports)
        assert owner is not None and owner.gradebook == book.id
    return found


def test_a_mistyped_gradebook_never_renumbers_the_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The typo sequence: grade into r/, add one and grade with a mistyped --gradebook (refused, nothing made),
    grade again with the right one; every report shows the digest its gradebook numbers so."""
    cohort = _cohort(tmp_path, ("cy-fenn", "ada-quill", "bo-marsh"))
    reports, right = tmp_path / "r", tmp_path / "r" / "gradebook.sqlite"
    assert cli.main(["grade", str(cohort), "--reports", str(reports)]) == 0
    assert "new gradebook at" in capsys.readouterr().err
    assert not (reports / ".staging").exists(), "the staged copies of the candidates' code are gone"
    before = _reports_agree_with(reports, right, cohort)
    tiny_submission(cohort / "di-lorne", QUICK["di-lorne"])
    files = {p: p.read_bytes() for p in reports.rglob("*") if p.is_file() and ".gradebook-backups" not in p.parts}
    typo = reports / "gradebok.sqlite"
    assert cli.main(["grade", str(cohort), "--reports", str(reports), "--gradebook", str(typo)]) == 2
    (said,) = capsys.readouterr().err.strip().splitlines()
    assert str(typo) in said and str(right.resolve()) in said and "--move-reports" in said
    assert not typo.exists(), "refused before any gradebook is made"
    assert {p: p.read_bytes() for p in files} == files, "nor any report touched"
    assert cli.main(["grade", str(cohort), "--reports", str(reports)]) == 0
    assert "graded 1, up to date 3, errors 0" in capsys.readouterr().out
    after = _reports_agree_with(reports, right, cohort)
    assert after == {**before, "Submission #4": "di-lorne"}


def test_moving_a_reports_folder_on_purpose_writes_every_report_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--move-reports`: the folder becomes the other gradebook's, whose numbering every report then shows; moved
    back, nothing of the other gradebook's counts as up to date."""
    cohort = _cohort(tmp_path, ("bo-marsh", "ada-quill"))
    reports, first, other = tmp_path / "r", tmp_path / "r" / "gradebook.sqlite", tmp_path / "other.sqlite"
    alone = batch.grade([cohort / "bo-marsh"], reports=tmp_path / "elsewhere", gradebook=other)
    assert [o.status for o in alone] == ["graded"]  # the other gradebook numbers bo-marsh #1, the first ada-quill
    assert {o.status for o in batch.grade([cohort], reports=reports)} == {"graded"}
    first_labels = _reports_agree_with(reports, first, cohort)
    argv = ["grade", str(cohort), "--reports", str(reports), "--gradebook", str(other), "--move-reports"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert "moved to the gradebook" in err and "graded 2, up to date 0" in out
    assert _reports_agree_with(reports, other, cohort) != first_labels
    outcomes = batch.grade([cohort], reports=reports, gradebook=first, move_reports=True)
    assert {o.status for o in outcomes} == {"graded"}, "the other gradebook's reports are not this one's"
    assert _reports_agree_with(reports, first, cohort) == first_labels
