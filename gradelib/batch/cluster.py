"""Grading on a Dask cluster: parcels out to the workers that can sandbox, artifacts back to the driver.

Workers need the kit (the same version) and namespaces, nothing else of the driver's: a
worker plugin probes each one as it joins; one that can sandbox advertises the
`gradelib-sandbox` resource every grading task asks for, one that cannot says why once
in its log and takes no work. A worker lost mid-batch is Dask's to handle: its tasks run
again on another worker, and since a worker writes nothing shared, nothing is written twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError
from typing import Any

from distributed import Client, WorkerPlugin
from distributed import as_completed as dask_completed
from distributed.core import Status

from gradelib.batch import worker as grading
from gradelib.batch.parcel import Artifacts, Parcel
from gradelib.errors import GradelibError, SchedulerLost
from gradelib.sandbox import diskcap

RESOURCE = "gradelib-sandbox"  # what an able worker has one of per thread, and a grading task needs
PLUGIN_NAME = "gradelib-sandbox-probe"
SCHEDULER_TIMEOUT = 10  # seconds to reach a Dask scheduler
WORKERS_TIMEOUT = 60  # seconds to wait for a first worker to join
RECONNECT_SECONDS = 30.0  # a scheduler lost mid-batch may come back this long (a restart)
LOST_REASON = "scheduler-connection-lost"  # Dask's reason for the futures it cancels when the scheduler goes
LOG = logging.getLogger("gradelib.batch.cluster")

_problem: str | None = None  # on a worker: why it cannot sandbox (None: it can, or not probed yet)
_probed = False


class SandboxProbe(WorkerPlugin):
    """On every worker, now and joining later: can it run namespaces? Only then it takes grading work."""

    name = PLUGIN_NAME
    idempotent = True  # registering it again (the next batch) does not probe again

    async def setup(self, worker: Any) -> None:
        """Probe once per worker process; advertise the resource, or say why not."""
        global _problem, _probed
        if not _probed:
            _problem = await asyncio.to_thread(grading.isolation_problem)
            _probed = True
            if _problem:
                LOG.warning("gradelib: this worker cannot run namespaces (%s); it takes no grading work", _problem)
            elif unbounded := diskcap.unbounded_reason():
                LOG.warning("gradelib: disk use per grading is not bounded on this worker (%s)", unbounded)
        if _problem:
            return
        await worker.set_resources(**{RESOURCE: float(worker.state.nthreads)})
        # The scheduler looks again at tasks no worker could take when a worker starts running.
        if worker.status == Status.running:
            worker.status = Status.paused
            worker.status = Status.running


def worker_problem() -> str | None:
    """Run on a worker: why it takes no grading work, or None."""
    return _problem


def connect(scheduler: str) -> Client:
    """A client of the scheduler at `scheduler`, or one clear error."""
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT)
    except OSError as exc:
        raise GradelibError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc


def _able_workers(client: Client, scheduler: str, notice: Callable[[str], None]) -> None:
    """Probe the workers (the plugin), tell about those that cannot sandbox; fail if none can."""
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
    except TimeoutError as exc:
        raise GradelibError(f"no Dask worker joined the scheduler at {scheduler} in {WORKERS_TIMEOUT} s") from exc
    client.register_plugin(SandboxProbe(), name=PLUGIN_NAME)
    problems: dict[str, str | None] = client.run(worker_problem)
    for address, problem in sorted(problems.items()):
        if problem:
            notice(f"worker {address} cannot run namespaces ({problem}): it takes no grading work")
    if problems and all(problems.values()):
        raise GradelibError(f"none of the {len(problems)} workers at {scheduler} can run namespaces")


@contextlib.contextmanager
def session(scheduler: str, notice: Callable[[str], None]) -> Iterator[Client]:
    """A client of the scheduler whose workers have been probed; fails before anything is graded.

    Dask's own client logs a lost scheduler as an error with a traceback; the batch says it in one
    line of its own (SchedulerLost), so that logger is quiet while the session lasts."""
    loud = logging.getLogger("distributed.client")
    level = loud.level
    loud.setLevel(logging.CRITICAL)
    try:
        with connect(scheduler) as client:
            _able_workers(client, scheduler, notice)
            yield client
    finally:
        loud.setLevel(level)


def run_parcels(
    client: Client, parcels: Sequence[Parcel], scheduler: str = ""
) -> Iterator[tuple[Parcel, Artifacts | BaseException]]:
    """Grade every parcel on the cluster; each one's artifacts (or what killed it), in order of completion.

    A scheduler lost mid-batch is waited for RECONNECT_SECONDS: back (a restart), the gradings it lost
    are sent again; gone, SchedulerLost says how many were not graded (none of them is a result)."""
    futures = {_submit(client, item): item for item in parcels}
    pending = set(futures)
    completed = dask_completed(futures)
    try:
        for future in completed:
            item = futures[future]
            try:
                result: Artifacts | BaseException = future.result()
            except Exception as exc:  # KilledWorker after repeated worker deaths, a crash in the task
                if not _scheduler_lost(client, exc):
                    result = exc
                else:
                    if not _back(client, scheduler):
                        raise SchedulerLost(scheduler, len(pending)) from None
                    again = _submit(client, item)  # the restarted scheduler knows nothing of it
                    pending.discard(future)
                    futures[again] = item
                    pending.add(again)
                    completed.add(again)
                    continue
            pending.discard(future)
            future.release()  # the worker may drop the artifacts now
            yield item, result
    except BaseException:  # the driver stopped (Ctrl+C, SIGTERM, a full reports folder): so do its tasks
        with contextlib.suppress(Exception):
            client.cancel(list(futures), force=True)
        raise


def _submit(client: Client, item: Parcel) -> Any:
    return client.submit(grading.grade_parcel, item, key=item.key, pure=False, resources={RESOURCE: 1})


def _scheduler_lost(client: Client, exc: BaseException) -> bool:
    """Whether a task failed because the driver lost its scheduler (not because of the grading): Dask
    cancels it saying so, or the client is not connected (it may be connected again by now)."""
    if not isinstance(exc, CancelledError):
        return False
    return getattr(exc, "reason", None) == LOST_REASON or client.status != "running"


def _back(client: Client, scheduler: str) -> bool:
    """Whether the client is connected again within RECONNECT_SECONDS (the scheduler was restarted) and a
    worker that can sandbox has joined it (a restarted scheduler knows no worker and no plugin)."""
    deadline = time.monotonic() + RECONNECT_SECONDS
    while client.status != "running" and time.monotonic() < deadline:
        time.sleep(0.5)
    if client.status != "running":
        return False
    try:
        _able_workers(client, scheduler, lambda _message: None)
    except (GradelibError, OSError, TimeoutError):
        return False
    return True
