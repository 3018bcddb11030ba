"""Faults a batch must survive, end to end: real kernels, real sandboxed runs, the real `gradelib grade`.

The tiny take-home's fault harness (tests/tinytakehome/grading.py) makes the kit's own side fail
in a notebook's kernel after its sandboxed run: killed (as the OOM killer would), stopped (a
kit-side hang). The batch runs as a subprocess, bounded by a timeout of the test's own, so a batch
that hangs fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import processes_matching, tiny_submission
from plugin_site import installed

from gradelib.batch.driver import INTERRUPTED
from gradelib.gradebook import Gradebook

pytestmark = pytest.mark.e2e

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small or read-only file system needs root")
BATCH_BOUND = 240.0  # seconds: a batch of a few tiny submissions takes under a minute
# A stopped batch waits at most 3 s for its workers, 3 s more for those it kills, and as long for their fork
# server (batch/driver.py): it exits in about a second, 12 s at worst; this bound is for a hang, not a speed.
STOP_BOUND = 60.0


@pytest.fixture(autouse=True)
def _tiny(tiny_takehome: str) -> str:
    return tiny_takehome


def _cohort(root: Path, answers: dict[str, str]) -> Path:
    for name, answer in answers.items():
        tiny_submission(root / name, answer)
    return root


def _grade(
    *args: str | Path, timeout: float = BATCH_BOUND, tmp: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _argv(*args), capture_output=True, text=True, timeout=timeout, check=False, env=_env(tmp)
    )  # fmt: skip


def _argv(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "gradelib", "grade", *map(str, args), "--reveal"]


def _as_from_a_terminal(argv: list[str]) -> list[str]:
    """`argv` (a `python -m gradelib` command) started as a terminal starts a command, Ctrl+C reaching it.

    A suite run as a background job (`cmd &` in a script, some CI runners) has SIGINT ignored, and a child
    inherits that: Python then leaves it ignored, as a backgrounded command should. The batch under test
    must stand where a lead's does, in the foreground."""
    assert argv[1:3] == ["-m", "gradelib"], argv
    start = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "runpy.run_module('gradelib', run_name='__main__', alter_sys=True)"
    )
    return [argv[0], "-c", start, *argv[3:]]


def _env(tmp: Path | None) -> dict[str, str]:
    """The batch's environment; with `tmp`, every temporary folder of it (and so of every process it starts:
    workers' fork servers, kernels, launchers, sandbox workspaces) is under `tmp`, which names them."""
    if tmp is None:
        return dict(os.environ)
    tmp.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmp)}


def _mounts_under(folder: Path) -> list[str]:
    """Mount points under `folder` (a grading's capped workspace left mounted would be one)."""
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return [point for point in points if point.startswith(str(folder.resolve()) + "/")]


def _latest(book_path: Path) -> dict[str, tuple[str, str | None]]:
    """Each tiny submission's latest run: (status, error)."""
    with Gradebook(book_path) as book:
        return {
            row.name: (run.status, run.error)
            for row in book.submissions("tiny")
            if (run := book.latest_run("tiny", row.name)) is not None
        }


def test_a_kernel_killed_mid_batch_is_an_error_line_and_the_next_grade_grades_it_again(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path / "cohort", {"a": "42", "b-killed": "kit-fault: sigkill", "c": "42", "d": "41"})
    reports = tmp_path / "reports"
    first = _grade(cohort, "--reports", reports, "--jobs", "2")
    assert first.returncode == 1, first.stderr  # every other submission graded; one ended in error
    assert first.stdout.rstrip().splitlines()[-1].startswith("graded 3, up to date 0, errors 1"), first.stdout
    runs = _latest(reports / "gradebook.sqlite")
    assert runs["b-killed"] == ("error", "the notebook's kernel died: SIGKILL")
    assert {name: status for name, (status, _) in runs.items()} == {
        "a": "graded", "b-killed": "error", "c": "graded", "d": "graded",
    }  # fmt: skip
    second = _grade(cohort, "--reports", reports, "--jobs", "2")
    assert "graded 0, up to date 3, errors 1" in second.stdout, second.stdout
    assert _latest(reports / "gradebook.sqlite")["b-killed"][1] == "the notebook's kernel died: SIGKILL"


def test_a_stopped_kernel_is_killed_at_the_grading_deadline(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path / "cohort", {"a": "42", "b-stopped": "kit-fault: sigstop"})
    reports, tmp = tmp_path / "reports", tmp_path / "t"
    started = time.monotonic()
    done = _grade(cohort, "--reports", reports, "--jobs", "2", "--grading-timeout", "20", tmp=tmp)
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < BATCH_BOUND
    runs = _latest(reports / "gradebook.sqlite")
    assert runs["a"][0] == "graded"
    assert runs["b-stopped"] == ("error", "the kit's grading took longer than 20 s; killed")
    assert not processes_matching(str(tmp)), "nothing of the stopped grading is left"
    assert not _mounts_under(tmp), "the killed kernel's workspace is unmounted"


def test_a_stopped_kernel_is_an_error_within_a_minute_not_at_the_half_hour_deadline(tmp_path: Path) -> None:
    """A kernel SIGSTOPped mid-grading no longer answers: the batch ends that grading once it has stayed
    stopped for STOPPED_SECONDS (the deadline for one grading is the sum of every cap, half an hour),
    says what hung, and grades the others."""
    from gradelib.execution.execute import STOPPED_MESSAGE, STOPPED_SECONDS

    cohort = _cohort(tmp_path / "cohort", {"a": "42", "b-stopped": "kit-fault: sigstop", "c": "41"})
    reports, tmp = tmp_path / "reports", tmp_path / "t"
    started = time.monotonic()
    done = _grade(cohort, "--reports", reports, "--jobs", "2", tmp=tmp)
    elapsed = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert elapsed < STOPPED_SECONDS + BATCH_BOUND, f"the stopped kernel held the batch {elapsed:.0f} s"
    runs = _latest(reports / "gradebook.sqlite")
    assert runs["b-stopped"] == ("error", STOPPED_MESSAGE.format(seconds=STOPPED_SECONDS))
    assert runs["a"][0] == runs["c"][0] == "graded"
    assert not processes_matching(str(tmp)), "nothing of the stopped grading is left"


def test_two_batches_on_one_reports_folder_grade_each_submission_once(tmp_path: Path) -> None:
    """Two leads run the same `gradelib grade` at once: the second refuses in one line before it touches
    anything; the first grades every submission once; no error line, no extra row; then the second,
    run again, finds everything up to date."""
    from gradelib.batch.batchlock import lock_files

    cohort = _cohort(tmp_path / "cohort", {name: "42" for name in ("a", "b", "c", "d")})
    reports = tmp_path / "reports"
    argv = _argv(cohort, "--reports", reports, "--jobs", "2")
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(None))
    try:
        holder = lock_files(reports, reports / "gradebook.sqlite")[0]
        deadline = time.monotonic() + STOP_BOUND
        while not (holder.is_file() and holder.read_text()) and first.poll() is None:
            assert time.monotonic() < deadline, "the first batch never started"
            time.sleep(0.05)
        second = _grade(cohort, "--reports", reports, "--jobs", "2")
        out, err = first.communicate(timeout=BATCH_BOUND)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert second.returncode == 2, second.stdout + second.stderr
    said = [line for line in second.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and f"pid {first.pid}" in said[0] and "graded nothing" in said[0], said
    assert "Traceback" not in second.stderr
    assert first.returncode == 0, err
    assert "graded 4, up to date 0, errors 0" in out, out
    runs = _latest(reports / "gradebook.sqlite")
    assert runs == {name: ("graded", None) for name in ("a", "b", "c", "d")}, runs
    again = _grade(cohort, "--reports", reports, "--jobs", "2")
    assert again.returncode == 0 and "all 4 submissions are up to date" in again.stdout, again.stdout


def test_the_grading_timeout_must_be_positive(tmp_path: Path) -> None:
    done = _grade(_cohort(tmp_path / "cohort", {"a": "42"}), "--reports", tmp_path / "r", "--grading-timeout", "0")
    assert done.returncode == 2
    assert "--grading-timeout must be a positive number of seconds" in done.stderr
    assert "Traceback" not in done.stderr


def _mount(target: Path, options: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)], check=True)


@needs_root
def test_a_reports_folder_that_fills_up_stops_the_batch_with_whole_reports(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path / "cohort", {f"s{n}": "42" for n in range(6)})
    reports = tmp_path / "small"
    _mount(reports, "size=1m")
    try:
        book = tmp_path / "gradebook.sqlite"
        done = _grade(cohort, "--reports", reports, "--gradebook", book, "--jobs", "2")
        assert done.returncode == 2, done.stdout + done.stderr
        lines = [line for line in done.stderr.splitlines() if line.startswith("gradelib: cannot write the reports")]
        assert len(lines) == 1 and "No space left on device" in lines[0] and "its reports need" in lines[0]
        assert "Traceback" not in done.stderr
        for notebook in reports.glob("tiny/*.ipynb"):
            assert notebook.with_suffix(".json").is_file() and notebook.with_suffix(".html").is_file()
        assert not list(reports.rglob("*.partial")), "no half-written report"
        runs = _latest(book)
        graded = {name for name, (status, _) in runs.items() if status == "graded"}
        assert graded == {p.stem for p in reports.glob("tiny/*.ipynb")}
        assert all(status in ("graded", "error") for status, _ in runs.values()), "no run is left open"
    finally:
        subprocess.run(["umount", "-l", str(reports)], check=False)
    again = _grade(cohort, "--reports", tmp_path / "roomy", "--gradebook", book, "--jobs", "2")
    assert again.returncode == 0, again.stderr
    assert {status for status, _ in _latest(book).values()} == {"graded"}


@needs_root
def test_a_gradebook_that_cannot_be_written_is_refused_before_grading(tmp_path: Path) -> None:
    cohort = _cohort(tmp_path / "cohort", {"a": "42"})
    folder = tmp_path / "readonly"
    _mount(folder, "size=4m")
    try:
        with Gradebook(folder / "gradebook.sqlite"):
            pass
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        done = _grade(cohort, "--reports", tmp_path / "reports", "--gradebook", folder / "gradebook.sqlite")
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
    assert done.returncode == 2
    assert "gradebook.sqlite" in done.stderr and "Traceback" not in done.stderr
    assert not list((tmp_path / "reports").rglob("*.ipynb")), "nothing was graded"


def _wait_for(condition: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


@pytest.mark.parametrize(("how", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_batch_stopped_midway_ends_everything_it_started_and_resumes(tmp_path: Path, how: str, code: int) -> None:
    answers = {"a": "42", **{f"slow-{n}": "kit-fault: sleep 120" for n in range(3)}}
    cohort = _cohort(tmp_path / "cohort", answers)
    reports, tmp = tmp_path / "reports", tmp_path / "t"
    argv = _as_from_a_terminal(_argv(cohort, "--reports", reports, "--jobs", "2"))
    batch = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=_env(tmp)
    )
    try:
        _wait_for(lambda: (reports / "tiny" / "a.ipynb").is_file() or batch.poll() is not None, 120)
        time.sleep(5)  # a slow grading is in its kernel, another starting
        assert batch.poll() is None, batch.communicate()
        stopped = time.monotonic()
        if how == "SIGTERM":
            batch.send_signal(signal.SIGTERM)  # the driver alone, as a service manager would
        else:
            os.killpg(batch.pid, signal.SIGINT)  # Ctrl+C in a terminal: the whole process group
        _, err = batch.communicate(timeout=STOP_BOUND * 2)
    finally:
        if batch.poll() is None:
            os.killpg(batch.pid, signal.SIGKILL)
            batch.communicate()  # reaped and its pipes closed, whatever failed above
    assert time.monotonic() - stopped < STOP_BOUND, "the batch stops (within seconds: a hang bound here)"
    assert batch.returncode == code, err
    assert "interrupted" in err and "run the same command again" in err and "Traceback" not in err
    _wait_for(lambda: not processes_matching(str(tmp)), STOP_BOUND)
    assert not _mounts_under(tmp), "no grading's workspace is left mounted"
    runs = _latest(reports / "gradebook.sqlite")
    assert all(status in ("graded", "error") for status, _ in runs.values()), runs
    assert any(error == INTERRUPTED for _, error in runs.values())
    for name in answers:
        if name.startswith("slow-"):
            (cohort / name / "answer.txt").write_text("42\n")
    again = _grade(cohort, "--reports", reports, "--jobs", "2")
    assert again.returncode == 0, again.stderr
    assert {status for status, _ in _latest(reports / "gradebook.sqlite").values()} == {"graded"}


def test_kernels_that_cannot_be_forked_start_fresh_and_the_batch_says_so_once(tmp_path: Path) -> None:
    threaded = Path(__file__).resolve().parents[1] / "threadedtakehome"
    with installed(tmp_path / "site", package=threaded, takehome="threaded"):
        cohort = _cohort(tmp_path / "cohort", {"a": "42", "b": "42", "c": "41"})
        done = _grade(cohort, "--reports", tmp_path / "reports", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "kernels start fresh" in line]
    assert len(said) == 1, done.stderr
    assert "the kernel fork server must be single-threaded" in said[0]
    runs = _latest(tmp_path / "reports" / "gradebook.sqlite")
    assert {status for status, _ in runs.values()} == {"graded"}, runs
    logs = "".join(p.read_text() for p in (tmp_path / "reports" / "tiny" / ".logs").glob("*.log"))
    assert "kernels start fresh" in logs


def test_names_that_fold_to_one_file_name_each_keep_their_own_report(tmp_path: Path) -> None:
    """Revealed names that differ only in what a file name drops, or only in case, never share a report."""
    answers = {"李雷": "41", "-韩梅梅": "42", "José Núñez": "40", "josé núñez": "42"}
    cohort = _cohort(tmp_path / "cohort", answers)
    reports = tmp_path / "reports"
    done = _grade(cohort, "--reports", reports, "--jobs", "2")
    assert done.returncode == 0, done.stderr
    notebooks = sorted(reports.glob("tiny/*.ipynb"))
    assert len(notebooks) == len(answers) and len({p.stem.casefold() for p in notebooks}) == len(answers)
    assert "李雷" in {p.stem for p in notebooks}, "a name a file system can hold is kept as it is"
    said = {}
    for notebook in notebooks:
        assert notebook.with_suffix(".html").is_file()
        result = json.loads(notebook.with_suffix(".json").read_text(encoding="utf-8"))
        said[result["submission"]] = result["lines"][0]["message"]
    for name, answer in answers.items():  # each report is its own submission's
        assert said[name] == ("printed 42" if answer == "42" else f"printed '{answer}', not 42"), said


def test_a_damaged_gradebook_is_restored_from_its_newest_good_backup_with_the_command_it_names(
    tmp_path: Path,
) -> None:
    cohort = _cohort(tmp_path / "cohort", {"a": "42", "b": "41"})
    reports = tmp_path / "reports"
    book = reports / "gradebook.sqlite"
    assert _grade(cohort, "--reports", reports).returncode == 0
    with Gradebook(book) as gradebook:  # a reviewer's score, as the scoring panel saves it
        gradebook.add_score("tiny", "b", "answer", "ana", "2", "partly right")
    again = _grade(cohort, "--reports", reports)  # up to date: backed up all the same
    assert again.returncode == 0, again.stderr
    size = book.stat().st_size
    with open(book, "r+b") as handle:  # a failing disk, from outside the kit
        handle.seek(4096)
        handle.write(os.urandom(size - 4096))
    refused = subprocess.run(
        [sys.executable, "-m", "gradelib", "export", str(tmp_path / "scores.csv"), "--gradebook", str(book)],
        capture_output=True, text=True, timeout=BATCH_BOUND, check=False,
    )  # fmt: skip
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    command = re.search(r"`(gradelib restore [^`]+)`", refused.stderr)
    assert command, refused.stderr
    restored = subprocess.run(
        [sys.executable, "-m", *command.group(1).split()], capture_output=True, text=True, timeout=BATCH_BOUND,
        check=False,
    )  # fmt: skip
    assert restored.returncode == 0, restored.stderr
    with Gradebook(book) as gradebook:
        assert [(s.submission, s.value, s.comment) for s in gradebook.scores()] == [("b", "2", "partly right")]
    assert list(reports.glob("gradebook.sqlite.damaged-*")), "the damaged file is kept, not deleted"
