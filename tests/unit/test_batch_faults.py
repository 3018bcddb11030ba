"""The batch's own faults, the pure parts: deadlines, reports written whole, fallback notices said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib.batch import driver, worker
from gradelib.batch.deadline import INSTALL_STEPS, MARGIN_SECONDS, grading_deadline
from gradelib.environment import InstallSettings
from gradelib.errors import GradelibError, ReportsUnwritable
from gradelib.execution import kernelfork
from gradelib.review import reportwriter
from gradelib.sandbox import launchclient
from gradelib.takehomes import payments, replay
from gradelib.takehomes.contract import DEFAULT_RUN_SECONDS


def test_a_gradings_deadline_is_its_runs_its_installs_and_a_margin(tmp_path: Path) -> None:
    settings = InstallSettings(cache_dir=tmp_path, max_seconds=300)
    installs = INSTALL_STEPS * 300
    assert grading_deadline("replay", settings) == replay.PLUGIN.run_seconds + installs + MARGIN_SECONDS
    assert grading_deadline("payments", settings) == payments.PLUGIN.run_seconds + installs + MARGIN_SECONDS
    assert grading_deadline("no-such-takehome", settings) == DEFAULT_RUN_SECONDS + installs + MARGIN_SECONDS
    assert grading_deadline("replay", settings, 45) == 45
    with pytest.raises(GradelibError, match="positive number of seconds"):
        grading_deadline("replay", settings, -1)


def test_the_take_homes_run_bounds_are_their_limits_summed() -> None:
    # replays: A, B, the missing fixture, after record, after the re-record over the committed fixtures;
    # records: twice, the failing stub, over the committed fixtures, a live re-record; the git history
    assert replay.PLUGIN.run_seconds == 5 * 60 + 5 * 120 + 30
    # their tests: own (again when red, and beside the handout's stub), the draft, the two fixes
    assert payments.PLUGIN.run_seconds == 10 * 30 + 40 + 6 * 120


def test_a_submissions_reports_are_written_whole(tmp_path: Path) -> None:
    out = tmp_path / "tiny"
    (out / "old.html").parent.mkdir(parents=True)
    (out / "old.html").write_text("stale")
    written = reportwriter._write_all([(out / "a.ipynb", b"{}"), (out / "a.json", b"[]"), (out / "old.html", None)])
    assert written == {out / "a.ipynb": out / "a.ipynb", out / "a.json": out / "a.json", out / "old.html": None}
    assert sorted(p.name for p in out.iterdir()) == ["a.ipynb", "a.json"]


def test_a_report_that_cannot_be_written_leaves_nothing_half_done(tmp_path: Path) -> None:
    out = tmp_path / "tiny"
    out.mkdir()
    (out / ".logs").write_text("a file where the logs folder should be")
    (out / "a.ipynb").write_text("the previous report")
    files = [(out / "a.ipynb", b"{new}"), (out / "a.json", b"[]"), (out / ".logs" / "a.log", b"log")]
    with pytest.raises(ReportsUnwritable, match=r"cannot write the reports in .*tiny: .*its reports need 10 bytes"):
        reportwriter._write_all(files)
    assert (out / "a.ipynb").read_text() == "the previous report", "the old report is untouched"
    assert not (out / "a.json").exists() and not list(out.glob(".*.partial"))


def test_the_reports_folder_is_probed_before_grading(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    with pytest.raises(ReportsUnwritable, match="not-a-folder"):
        driver._writable(blocker / "reports")
    driver._writable(tmp_path / "fine")
    assert list((tmp_path / "fine").iterdir()) == []


def test_fallback_notices_are_read_from_a_kernels_log() -> None:
    log = (
        b"some kernel output\n"
        + launchclient.FALLBACK_NOTICE.format(why="it cannot start: no such file").encode()
        + b"\ngradelib: kernels start fresh (the kernel fork server is not used): it cannot start: boom\n"
        + launchclient.FALLBACK_NOTICE.format(why="it cannot start: no such file").encode()
        + b"\n"
    )
    assert worker.fallback_notices(log) == (
        "sandbox runs start fresh (the launcher is not used): it cannot start: no such file",
        "kernels start fresh (the kernel fork server is not used): it cannot start: boom",
    )
    assert worker.fallback_notices(b"nothing to say\n") == ()


def test_the_fork_server_says_once_why_kernels_start_fresh() -> None:
    server = kernelfork.ForkServer()
    assert server.notice() is None
    server.fell_back("it cannot start: boom")
    server.fell_back("a kernel could not be forked: later")
    assert server.notice() == "kernels start fresh (the kernel fork server is not used): it cannot start: boom"
    server.fell_back("again")
    assert server.notice() is None


def test_the_launcher_says_once_on_stderr_why_runs_start_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    launcher = launchclient.Launcher()
    launcher.fell_back("it cannot start: boom")
    launcher.fell_back("it cannot start: again")
    assert capsys.readouterr().err == launchclient.FALLBACK_NOTICE.format(why="it cannot start: boom") + "\n"
