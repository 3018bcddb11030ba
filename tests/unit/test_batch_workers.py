"""The batch owns its local workers: it starts them, and ends them and their fork server however it ends.

The gradings here are stand-ins for `grade_parcel` (a moment, two minutes, or deaf to SIGTERM), run
by the real pool in real worker processes, so what is checked is the processes, not the notebooks.
"""

from __future__ import annotations

import multiprocessing.util
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import tiny_submission

from gradelib.batch import driver
from gradelib.batch.parcel import Artifacts, Parcel

PIDS = "WORKER_PIDS_FOLDER"  # where a stand-in notes its worker's pid (workers get the driver's environment)
STAND_IN = "not graded: a test's stand-in"
# multiprocessing's own bookkeeping process: one per process that uses multiprocessing, shared by all its pools, and
# ended by CPython when this process exits (nothing public stops it); not one of the batch's workers
RESOURCE_TRACKER = "multiprocessing.resource_tracker"
HANG_BOUND = 60.0  # seconds: every wait here ends well before; the bound is for a hang


def _stand_in(item: Parcel) -> Artifacts:
    """In place of `grade_parcel`: notes its worker's pid; a submission named "slow-..." takes two minutes."""
    (Path(os.environ[PIDS]) / str(os.getpid())).touch()
    if item.label.startswith("slow-"):
        time.sleep(120)
    return Artifacts(item.key, STAND_IN, 0.0, "here")


def _deaf_to_sigterm(item: Any) -> int:
    """In place of `grade_parcel`: hears SIGTERM (says so in `<pid>.term`), goes on, and never ends (a worker
    stuck where a stop cannot reach it)."""
    heard = Path(item.ready) / f"{os.getpid()}.term"
    signal.signal(signal.SIGTERM, lambda *_: heard.touch())
    (Path(item.ready) / str(os.getpid())).touch()
    while True:
        time.sleep(1)


def _parents() -> dict[int, int]:
    """Every process's parent, from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _descendants() -> dict[int, str]:
    """Every process below this one, zombies included, with its command line."""
    parents, found, frontier = _parents(), set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return {pid: _cmdline(pid) for pid in found}


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (one that has ended runs nothing, whoever reaps it)."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_for(condition: Callable[[], bool], seconds: float = HANG_BOUND) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


@pytest.mark.parametrize("failure", [None, RuntimeError, KeyboardInterrupt], ids=["returns", "raises", "interrupted"])
def test_a_batch_leaves_no_worker_behind_whether_it_returns_or_raises(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_takehome: str, failure: type[BaseException] | None
) -> None:
    monkeypatch.setattr(driver, "grade_parcel", _stand_in)
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv(PIDS, str(pids))
    names = ["quick-1", "quick-2"] if failure is None else ["quick-1", "slow-1", "slow-2"]
    for name in names:
        tiny_submission(tmp_path / "cohort" / name)

    def progress(_done: int, _total: int, outcome: driver.GradeOutcome | None) -> None:
        if failure is not None and outcome is not None:  # a grading is done, another still runs in its worker
            _wait_for(lambda: len(list(pids.iterdir())) == 2)
            raise failure("injected")

    running_at_the_end: list[list[int]] = []
    end_fork_server = driver._end_fork_server

    def observed() -> None:  # the workers are ended by the batch, not as a side effect of killing their fork server
        running_at_the_end.append([pid for pid in map(int, (p.name for p in pids.iterdir())) if _running(pid)])
        end_fork_server()

    monkeypatch.setattr(driver, "_end_fork_server", observed)
    monkeypatch.delenv(driver.ENV_WARM_WORKERS, raising=False)
    before = _descendants()
    started = time.monotonic()
    arguments: dict[str, Any] = {"reports": tmp_path / "reports", "takehome": tiny_takehome, "jobs": 2, "reveal": True}
    if failure is None:
        outcomes = driver.grade([tmp_path / "cohort"], **arguments, progress=progress)
        assert sorted((o.submission, o.error) for o in outcomes) == [(name, STAND_IN) for name in names]
    else:
        with pytest.raises(failure, match="injected"):
            driver.grade([tmp_path / "cohort"], **arguments, progress=progress)
        assert time.monotonic() - started < 100, "the slow gradings were stopped, not waited for"
    workers = [int(path.name) for path in pids.iterdir()]
    assert len(workers) == 2, "both workers graded"
    assert running_at_the_end == [[]], "the workers had ended when their fork server was told to stop"
    # no end call: what the batch started has ended by the time it returns or raises
    left = {pid: cmd for pid, cmd in _descendants().items() if pid not in before and RESOURCE_TRACKER not in cmd}
    assert left == {}, "the workers' fork server was ended and reaped"
    assert not any(_running(pid) for pid in workers), "each worker ended before the batch returned or raised"


def test_a_stopped_batch_ends_every_worker_even_those_deaf_to_sigterm(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(driver, "grade_parcel", _deaf_to_sigterm)
    monkeypatch.setattr(driver, "STOP_SECONDS", 2.0)  # time enough, on a busy machine, to hear of each kill
    jobs = [SimpleNamespace(parcel=SimpleNamespace(key=str(n), ready=str(tmp_path))) for n in range(3)]
    with pytest.raises(RuntimeError, match="stopped"), driver._local_workers() as workers:
        workers._start(jobs, 2)  # type: ignore[arg-type]
        _wait_for(lambda: len(list(tmp_path.iterdir())) == 2)
        raise RuntimeError("stopped")
    assert len(workers.processes) == 2, "a handle on each of the pool's processes"
    assert [w.is_alive() for w in workers.processes] == [False, False]
    pids = sorted(int(path.name) for path in tmp_path.iterdir() if path.name.isdigit())
    assert pids == sorted(w.pid for w in workers.processes)
    assert all((tmp_path / f"{pid}.term").exists() for pid in pids), "each was asked to stop first, and went on"
    assert not any(_running(pid) for pid in pids), "so each was killed"
    # Not their exit codes: a worker forked from the fork server has its status read through the server's
    # socket, which the pool's own thread may read first, leaving this handle 255 (CPython's race).


def _where_from(_item: object) -> tuple[int, int]:
    """In place of `grade_parcel`: the worker's pid and its parent's."""
    return os.getpid(), os.getppid()


def test_the_workers_fork_server_ends_with_the_batch_reaped_and_its_socket_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(driver, "grade_parcel", _where_from)
    monkeypatch.delenv(driver.ENV_WARM_WORKERS, raising=False)
    listeners = Path(multiprocessing.util.get_temp_dir())
    with driver._local_workers() as workers:
        [(_, (worker, parent))] = list(workers.run([SimpleNamespace(parcel=SimpleNamespace(key="a"))], 1))  # type: ignore[list-item]
        parents = _parents()  # a worker forked from the fork server has its command line too: its parent differs
        servers = [pid for pid, cmd in _descendants().items() if "forkserver" in cmd and parents[pid] == os.getpid()]
        assert list(listeners.glob("listener-*")), "the fork server's socket"
    assert servers == [parent] != [worker], "the worker was forked from the fork server, a child of this process"
    assert not Path(f"/proc/{parent}").exists(), "the fork server exited and was reaped, not left a zombie"
    assert not list(listeners.glob("listener-*"))
    assert not _running(worker)


def _grades_for_two_minutes(item: Any) -> None:
    """A grading that takes long (a slow submission), in place of `grade_parcel`; says when it has started."""
    (Path(item.ready) / "started").touch()
    time.sleep(120)


def test_a_stop_signal_another_thread_received_ends_the_wait_for_gradings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Python runs signal handlers in the main thread only; the kernel may hand a Ctrl+C to any thread of the
    driver (a progress bar's, the pool's). The driver's wait must still end with KeyboardInterrupt soon."""
    monkeypatch.setattr(driver, "grade_parcel", _grades_for_two_minutes)
    monkeypatch.setattr(driver, "STOP_SECONDS", 0.5)
    # Ctrl+C as in a terminal, even when this suite runs as a background job (SIGINT ignored, inherited)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    def interrupt_this_thread() -> None:
        _wait_for((tmp_path / "started").exists)  # the driver is waiting for its grading by then
        time.sleep(1)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    helper = threading.Thread(target=interrupt_this_thread)
    started = time.monotonic()
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt), driver._local_workers() as workers:
            list(workers.run([SimpleNamespace(parcel=SimpleNamespace(key="a", ready=str(tmp_path)))], 1))  # type: ignore[list-item]
    finally:
        helper.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 100, "stopped on the signal, not after the grading"  # a hang bound
    assert not any(w.is_alive() for w in workers.processes), "and its worker was ended"


def test_a_worker_no_pool_knows_of_ends_with_the_fork_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl+C in the middle of a pool starting a worker leaves one the fork server forked but no pool holds."""
    monkeypatch.delenv(driver.ENV_WARM_WORKERS, raising=False)
    with driver._local_workers():
        stray = multiprocessing.get_context("forkserver").Process(target=time.sleep, args=(120,))
        stray.start()
        assert stray.pid is not None and _running(stray.pid)
    _wait_for(lambda: not _running(stray.pid or 0), 5)  # killed, not left running once its fork server is gone
