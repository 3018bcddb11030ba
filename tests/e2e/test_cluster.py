"""`--scheduler` as a lead runs it: a real `dask scheduler` and `dask worker` processes on loopback.

One worker runs in its own mount namespace where the cohort and the reports are hidden
under an empty tmpfs (as on a second machine), one cannot run namespaces and must take no
work, and one is killed with SIGKILL in the middle of a batch. The cohort is the test-only `tiny`
take-home (one sandboxed `cat` each): these tests are about the cluster, not the take-homes
(tests/e2e/test_batch.py grades real samples on Dask).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest
from conftest import ROOT, tiny_submission

from gradelib import batch
from gradelib.gradebook import Gradebook
from gradelib.sandbox import ENV_FORCE_NO_NAMESPACES

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root and unshare"),
]
BIN = Path(sys.executable).parent
COHORT = {"ada-quill": "42", "bo-marsh": "41", "cy-fenn": "42", "di-lorne": "7"}  # 42 passes
TAKEHOME = "tiny"
START_TIMEOUT = 60


@dataclass
class Process:
    """One Dask process the tests started, and its log."""

    proc: subprocess.Popen[bytes]
    log: Path
    handle: IO[bytes]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.handle.close()

    def text(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Cluster:
    """A scheduler, a worker that sees nothing of the driver's files, and one that cannot sandbox."""

    base: Path  # everything the driver reads and writes lives below; hidden from the `hidden` worker
    address: str
    scheduler: Process
    hidden: Process
    unable: Process
    extra: list[Process] = field(default_factory=list)

    def worker(self, name: str, *, wrap: tuple[str, ...] = (), env: dict[str, str] | None = None) -> Process:
        """Start one more worker (no nanny: a killed worker stays dead) and wait until it has joined."""
        log = self.base.parent / f"{name}.log"
        argv = [*wrap, str(BIN / "dask"), "worker", self.address, "--name", name, "--nthreads", "1"]
        argv += ["--no-nanny", "--host", "127.0.0.1", "--no-dashboard"]
        handle = open(log, "wb")  # noqa: SIM115 - the process writes it until the end of the module
        proc = subprocess.Popen(
            argv, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
            start_new_session=True,
        )  # fmt: skip
        started = Process(proc, log, handle)
        self.extra.append(started)
        _wait_for(lambda: "Registered to" in started.text() or proc.poll() is not None, f"worker {name}")
        assert proc.poll() is None, started.text()
        return started


def _wait_for(done: object, what: str, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"{what} did not start in {timeout} s")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, tiny_takehome: str) -> Iterator[Cluster]:
    """Workers start after the tiny take-home is installed: they find it as an installed plugin."""
    root = tmp_path_factory.mktemp("cluster")
    base = root / "driver"
    base.mkdir()
    file = root / "scheduler.json"
    log = root / "scheduler.log"
    argv = [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    handle = open(log, "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [*argv, "--scheduler-file", str(file)], cwd=root, stdout=handle, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    scheduler = Process(proc, log, handle)
    made: Cluster | None = None
    try:
        _wait_for(file.exists, "the scheduler")
        made = Cluster(base, json.loads(file.read_text())["address"], scheduler, scheduler, scheduler)
        # A second machine: the driver's whole tree is an empty tmpfs in this worker's mount namespace.
        hide = (
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            f'mount -t tmpfs tmpfs {base} && exec "$@"',
        )
        made.hidden = made.worker("hidden", wrap=(*hide, "sh"))
        made.unable = made.worker("unable", env={ENV_FORCE_NO_NAMESPACES: "1"})
        yield made
    finally:
        for started in made.extra if made else []:
            started.kill()
        scheduler.kill()


def _cohort(base: Path, name: str) -> Path:
    cohort = base / name
    for sample, answer in COHORT.items():
        tiny_submission(cohort / sample, answer)
    return cohort


def _results(book_path: Path) -> dict[str, tuple[object, ...]]:
    """Per submission: its finished runs' statuses, and its latest graded run's facts and line outcomes."""
    found = {}
    with Gradebook(book_path) as book:
        for row in book.submissions(TAKEHOME):
            runs = [run for run in book.runs(TAKEHOME) if run.submission_id == row.id]
            graded = book.latest_run(TAKEHOME, row.name, graded_only=True)
            assert graded is not None, row.name
            lines = [(line.line_id, line.outcome, line.points) for line in book.lines(graded.id)]
            found[row.name] = (tuple(run.status for run in runs), graded.facts, tuple(lines))
    return found


def test_the_hidden_worker_sees_none_of_the_drivers_files(cluster: Cluster) -> None:
    probe = cluster.base / "visible-to-the-driver"
    probe.write_text("x")
    inside = Path(f"/proc/{cluster.hidden.proc.pid}/root{cluster.base}")
    assert os.listdir(inside) == [], "an empty tmpfs over the driver's tree"


def test_a_worker_killed_mid_batch_loses_nothing_and_results_match_a_local_run(cluster: Cluster) -> None:
    from distributed import Client

    cohort = _cohort(cluster.base, "cohort-kill")
    local = batch.grade([cohort], reports=cluster.base / "local", jobs=2)
    victim = cluster.worker("victim")
    notices: list[str] = []
    killed: list[str] = []
    with Client(cluster.address, timeout=10) as watcher:
        addresses = {info["name"]: address for address, info in watcher.scheduler_info()["workers"].items()}
        watcher.get_task_stream()  # the scheduler records tasks from the first ask on
        started = time.time()

        def progress(done: int, total: int, outcome: batch.GradeOutcome | None) -> None:
            if done == 1 and not killed:  # the first report is in: kill a worker that holds work
                busy = watcher.processing()[addresses["victim"]]
                killed.extend(busy)
                victim.kill()

        remote = batch.grade(
            [cohort], reports=cluster.base / "dask", scheduler=cluster.address, progress=progress, notice=notices.append
        )
        stream = watcher.get_task_stream(start=started)
    assert killed, "the victim held work when it was killed"
    assert {o.submission: o.status for o in remote} == dict.fromkeys(COHORT, "graded")
    totals = {name: 10.0 if answer == "42" else 0.0 for name, answer in COHORT.items()}
    assert {o.submission: o.total for o in remote} == {o.submission: o.total for o in local} == totals
    # one finished run per submission, the same facts and lines as the local run
    local_results, remote_results = (
        _results(cluster.base / "local" / "gradebook.sqlite"),
        _results(cluster.base / "dask" / "gradebook.sqlite"),
    )
    assert remote_results == local_results
    assert all(statuses == ("graded",) for statuses, _, _ in remote_results.values())
    for stem in ("submission-01", "submission-02", "submission-03", "submission-04"):
        for ext in ("ipynb", "html", "json"):
            assert (cluster.base / "dask" / TAKEHOME / f"{stem}.{ext}").stat().st_size > 0
        notebook = (cluster.base / "dask" / TAKEHOME / f"{stem}.ipynb").read_text()
        assert str(cluster.base / "dask" / "gradebook.sqlite") in notebook, "the driver's paths in the saved notebook"
    # who did the work: the hidden worker did some, the one without namespaces none
    ran_on = {task["worker"] for task in stream if str(task.get("key", "")).startswith("grade-")}
    assert addresses["hidden"] in ran_on
    assert addresses["unable"] not in ran_on
    assert any("unable" in n or addresses["unable"] in n for n in notices if "cannot run namespaces" in n), notices
    assert cluster.unable.text().count("cannot run namespaces") == 1, "said once"


def test_a_driver_killed_mid_batch_resumes_on_the_cluster(cluster: Cluster) -> None:
    cohort = _cohort(cluster.base, "cohort-resume")
    reports = cluster.base / "resume"
    book_path = reports / "gradebook.sqlite"
    command = [sys.executable, "-m", "gradelib", "grade", str(cohort), "--reports", str(reports)]
    proc = subprocess.Popen(
        [*command, "--scheduler", cluster.address], cwd=ROOT, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    graded_before: dict[str, int] = {}
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.3)
            if not book_path.exists():
                continue
            with Gradebook(book_path) as book:
                runs = {name: book.latest_run(TAKEHOME, name, graded_only=True) for name in COHORT}
            done = {name: run.id for name, run in runs.items() if run}
            if 1 <= len(done) < len(COHORT):
                graded_before = done
                os.killpg(proc.pid, signal.SIGKILL)
                break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert graded_before, "the batch was not caught midway"
    outcomes = {o.submission: o.status for o in batch.grade([cohort], reports=reports, scheduler=cluster.address)}
    assert all(outcomes[name] == "up_to_date" for name in graded_before)
    assert {outcomes[name] for name in COHORT if name not in graded_before} == {"graded"}
    with Gradebook(book_path) as book:
        for name, run_id in graded_before.items():
            latest = book.latest_run(TAKEHOME, name, graded_only=True)
            assert latest is not None and latest.id == run_id


def test_a_driver_stopped_with_sigterm_cancels_its_tasks_on_the_cluster(cluster: Cluster) -> None:
    from distributed import Client

    cohort = cluster.base / "cohort-cancel"
    for name in ("ex-slow", "fy-slow", "gu-slow"):
        tiny_submission(cohort / name, "kit-fault: sleep 60")  # the tiny take-home's fault harness
    command = [sys.executable, "-m", "gradelib", "grade", str(cohort), "--reports", str(cluster.base / "cancel")]
    proc = subprocess.Popen(
        [*command, "--scheduler", cluster.address], cwd=ROOT, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    with Client(cluster.address, timeout=10) as watcher:

        def grading_tasks() -> list[str]:
            keys = watcher.run_on_scheduler(lambda dask_scheduler: [str(key) for key in dask_scheduler.tasks])
            return [key for key in keys if key.startswith("grade-tiny-")]

        try:
            _wait_for(lambda: len(grading_tasks()) == 3 or proc.poll() is not None, "the batch's tasks")
            time.sleep(2)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
        assert proc.returncode == 143, err
        assert "interrupted (SIGTERM)" in err
        _wait_for(lambda: not grading_tasks(), "the tasks cancelled", timeout=15)


def test_a_scheduler_lost_mid_batch_is_one_error_of_the_kit_and_no_error_line(
    tmp_path: Path, tiny_takehome: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scheduler dies after the first report: the batch waits for it (a restart would be reconnected
    to), then stops with one SchedulerLost naming it and how many were not graded; those get no run at
    all, and the next batch on a new scheduler grades exactly them."""
    from gradelib.batch import cluster as dask_cluster
    from gradelib.errors import SchedulerLost

    monkeypatch.setattr(dask_cluster, "RECONNECT_SECONDS", 3.0)
    base = tmp_path / "driver"
    base.mkdir()
    cohort = _cohort(base, "cohort-lost")
    reports = base / "reports"
    own = _own_cluster(tmp_path / "first")
    outcomes: list[batch.GradeOutcome] = []
    try:

        def progress(done: int, total: int, outcome: batch.GradeOutcome | None) -> None:
            if outcome is not None:
                outcomes.append(outcome)
            if done == 1:
                own.scheduler.kill()

        with pytest.raises(SchedulerLost) as lost:
            batch.grade([cohort], reports=reports, scheduler=own.address, progress=progress)
    finally:
        own.stop()
    assert own.address in str(lost.value) and "\n" not in str(lost.value)
    graded = {o.submission for o in outcomes}
    assert all(o.status == "graded" for o in outcomes) and 1 <= len(graded) < len(COHORT)
    assert lost.value.not_graded == len(COHORT) - len(graded)
    with Gradebook(reports / "gradebook.sqlite") as book:
        runs = book.runs(TAKEHOME)
        assert sorted(run.status for run in runs) == ["graded"] * len(graded), "no error line, no open run"
    again = _own_cluster(tmp_path / "second")
    try:
        rest = batch.grade([cohort], reports=reports, scheduler=again.address)
    finally:
        again.stop()
    assert {o.submission for o in rest if o.status == "graded"} == set(COHORT) - graded
    assert {o.submission for o in rest if o.status == "up_to_date"} == graded


def test_a_scheduler_restarted_mid_batch_is_reconnected_to_and_every_submission_graded_once(
    tmp_path: Path, tiny_takehome: str
) -> None:
    """The lead restarts the scheduler (and a worker) at the same address while the batch runs: the
    batch reconnects, sends the gradings the old scheduler lost again, and grades each submission once."""
    import socket
    import threading

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = tmp_path / "driver"
    base.mkdir()
    cohort = _cohort(base, "cohort-restart")
    reports = base / "reports"
    clusters = [_own_cluster(tmp_path / "before", port)]
    restarted = threading.Event()

    def restart() -> None:
        clusters.append(_own_cluster(tmp_path / "after", port))
        restarted.set()

    def progress(done: int, total: int, outcome: batch.GradeOutcome | None) -> None:
        if done == 1 and len(clusters) == 1:
            clusters[0].stop()
            threading.Thread(target=restart, daemon=True).start()

    try:
        outcomes = batch.grade([cohort], reports=reports, scheduler=clusters[0].address, progress=progress)
    finally:
        restarted.wait(START_TIMEOUT)
        for made in clusters:
            made.stop()
    assert len(clusters) == 2, "the scheduler was restarted mid-batch"
    assert {o.submission: o.status for o in outcomes} == dict.fromkeys(COHORT, "graded")
    with Gradebook(reports / "gradebook.sqlite") as book:
        assert sorted(run.status for run in book.runs(TAKEHOME)) == ["graded"] * len(COHORT), "each once"


@dataclass
class _OwnCluster:
    address: str
    scheduler: Process
    worker: Process

    def stop(self) -> None:
        self.worker.kill()
        self.scheduler.kill()


def _own_cluster(root: Path, port: int = 0) -> _OwnCluster:
    """A scheduler and one worker of this test's own (the module's cluster must outlive it)."""
    root.mkdir(parents=True)
    file, log = root / "scheduler.json", root / "scheduler.log"
    argv = [str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    handle = open(log, "wb")  # noqa: SIM115 - closed by Process.kill
    proc = subprocess.Popen(
        [*argv, "--scheduler-file", str(file)], cwd=root, stdout=handle, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    scheduler = Process(proc, log, handle)
    _wait_for(file.exists, "the scheduler")
    address = json.loads(file.read_text())["address"]
    worker_log = root / "worker.log"
    worker_handle = open(worker_log, "wb")  # noqa: SIM115 - closed by Process.kill
    worker_argv = [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1"]
    worker_proc = subprocess.Popen(
        [*worker_argv, "--no-dashboard"], cwd=ROOT, stdout=worker_handle, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    worker = Process(worker_proc, worker_log, worker_handle)
    _wait_for(lambda: "Registered to" in worker.text(), "the worker")
    return _OwnCluster(address, scheduler, worker)
