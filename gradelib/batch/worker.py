"""Grade one parcel on this machine, in its own temporary folder, and return the artifacts.

The same function runs in the driver's local processes and on Dask workers: it reads
nothing of the driver's file system and writes nothing outside its temporary folder
(the environment cache, which is this machine's own, aside). Safe to run in threads.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import multiprocessing.util
import os
import socket
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from gradelib import __version__, takehomes
from gradelib.batch import parcel
from gradelib.batch.parcel import Artifacts, Parcel
from gradelib.execution import kernelfork
from gradelib.execution.execute import execute, notebook_for
from gradelib.notebook import views_path
from gradelib.review.scoringpanel import ENV_HEADLESS
from gradelib.sandbox import launchclient
from gradelib.settings import current_settings

GRADEBOOK = "gradebook.sqlite"
PREFIX = "gradelib:"
# the start of each notice the kit writes when it falls back (the launcher's, in the kernel; the fork server's, here)
NOTICES = (f"{PREFIX} {kernelfork.FALLBACK_NOTICE}".split("{")[0], launchclient.FALLBACK_NOTICE.split("{")[0])
LOG = logging.getLogger("gradelib.batch.worker")
KERNEL_LOG = "kernel.log"
WARMUP_MODULE = "gradelib.batch.warmup"  # what the batch's fork server preloads (driver.py)
PROBE_ARGV = ("/bin/true",)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def adopt(environ: Mapping[str, str], cwd: str, path: Sequence[str]) -> None:
    """Become the driver's worker: its environment, working folder and import path as they are now (a pool's
    initializer).

    A worker forked from the batch's warm fork server (`warmup`) would otherwise keep the
    environment, folder and `sys.path` the driver had when that server started; a take-home
    installed since (a new path) is found again. Its kernel fork server is forked from it here,
    while it has one thread (`kernelfork.ForkServer.prefork`). A forked worker also ends
    with `os._exit`, which skips `atexit`: its exit handlers (the kernel fork server's and the
    sandbox launcher's stop-and-wait) are run by multiprocessing's own finalizers instead.
    """
    os.environ.clear()
    os.environ.update(environ)
    tempfile.tempdir = None  # found again from TMPDIR
    os.chdir(cwd)
    sys.path[:] = path  # multiprocessing sets it too, before this runs
    warm = sys.modules.get(WARMUP_MODULE)
    if warm is not None:  # forked warm: forget what it imported from a folder no longer on the path
        gone = [folder for folder in getattr(warm, "PRELOAD_PATH", ()) if folder and folder not in path]
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None) or ""
            if any(file.startswith(os.path.join(folder, "")) for folder in gone):
                del sys.modules[name]
    importlib.invalidate_caches()
    takehomes.refresh()  # take-homes installed (or removed) since the fork server started
    if warm is not None and kernelfork.enabled():  # still one thread: its kernel fork server, forked ready
        kernelfork.SERVER.prefork()
    multiprocessing.util.Finalize(None, atexit._run_exitfuncs, exitpriority=0)


def grade_parcel(item: Parcel) -> Artifacts:
    """Unpack, run the take-home's notebook; everything comes back as bytes (the driver makes the report)."""
    started = time.monotonic()
    host = socket.gethostname()
    if item.kit_version != __version__:  # the same results anywhere: the same kit everywhere
        mismatch = f"this worker ({host}) has gradelib {__version__}, the driver {item.kit_version}"
        return Artifacts(item.key, mismatch, 0.0, host)
    with tempfile.TemporaryDirectory(prefix="gradelib-grade-", ignore_cleanup_errors=True) as folder:
        root = Path(folder)
        submission = parcel.unpack(item.files, root)
        book = root / GRADEBOOK
        book.write_bytes(item.gradebook)
        notebook, result, log = root / f"{item.stem}.ipynb", root / f"{item.stem}.json", root / KERNEL_LOG
        parameters = {
            "submission": str(submission),
            "name": item.label,
            "result_path": str(result),
            "gradebook": str(book),
            "rerun": True,  # run the checks (a reviewer's session shows the stored results instead)
            "save": True,  # write result_path (the driver's report sets both back for reviewers)
        }
        # the kernel's panel renders as a read-only table; install settings are the driver's
        env = {ENV_HEADLESS: "1", **dict(item.install_env)}
        error = execute(notebook_for(item.takehome), notebook, parameters, env=env, log=log, deadline=item.deadline)
        data = _read(result)
        if data is None and error is None:
            error = "the notebook ran but wrote no result"
        kernel_log = _read(log) or b""
        if server := kernelfork.SERVER.notice():  # said in the submission's log, where one looks for what went wrong
            kernel_log = f"{PREFIX} {server}\n".encode() + kernel_log
        notices = fallback_notices(kernel_log)
        return Artifacts(
            item.key,
            error,
            time.monotonic() - started,
            host,
            notebook=_read(notebook),  # as its kernel ran it: the driver makes the report of it, once
            result=data,
            log=kernel_log,
            views=_read(views_path(result)),
            notices=notices,
        )


def fallback_notices(kernel_log: bytes) -> tuple[str, ...]:
    """What the kit fell back to for a grading, from its log: kernels or sandbox runs started fresh."""
    found = []
    for line in kernel_log.decode("utf-8", errors="replace").splitlines():
        if line.startswith(NOTICES):
            found.append(line.removeprefix(f"{PREFIX} "))
    if found and LOG.hasHandlers():  # a Dask worker's log; a local worker's goes through its driver, once
        LOG.warning("%s", "; ".join(found))
    return tuple(dict.fromkeys(found))


def isolation_problem() -> str | None:
    """Why this machine cannot run submissions in namespaces, or None when it can."""
    from gradelib.sandbox import ENV_FORCE_NO_NAMESPACES, Sandbox

    if current_settings().no_namespaces:
        return f"namespaces turned off ({ENV_FORCE_NO_NAMESPACES})"
    with tempfile.TemporaryDirectory(prefix="gradelib-probe-") as folder:
        try:
            with Sandbox(Path(folder)) as box:
                run = box.run(list(PROBE_ARGV), box.copy("probe"))
        except Exception as exc:  # a sandbox that cannot start at all
            return f"the sandbox does not start: {exc}"
    if not run.isolation.network_verified:
        return run.isolation.reason
    return None
