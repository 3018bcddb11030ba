"""Run one notebook with papermill (kernel on IPC transport), as its kernel runs it: its report is made elsewhere.

A grading has a deadline, kept from outside its kernel: when it is spent, the kernel's whole
process group is killed (its sandboxed runs and loopback servers go with it), and nbclient,
whose asynchronous client notices a dead kernel within a second, ends the run. A kernel that
stays stopped (it no longer answers) is killed the same way after STOPPED_SECONDS, and one that
dies on its own (killed, out of memory) ends it too; the error says which.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

CELL_TIMEOUT = 900  # one cell may run every sandboxed command of a submission
KERNEL = "python3"
DEADLINE_MESSAGE = "the kit's grading took longer than {seconds:g} s; killed"
DIED_MESSAGE = "the notebook's kernel died: {how}"
STOPPED_SECONDS = 30  # a kernel stopped (SIGSTOP, a debugger) this long is hung: killed, the grading an error
STOPPED_MESSAGE = "the notebook's kernel stopped answering (stopped for {seconds} s): killed"
WATCH_SECONDS = 1.0


@dataclass
class KernelWatch:
    """The kernel of one notebook run: its process group, and whether the deadline killed it."""

    pid: int | None = None
    pgid: int | None = None
    expired: bool = False
    stopped: bool = False  # killed because it stayed stopped
    manager: Any = None
    done: bool = False  # the run is over: its pids may belong to another process by now
    lock: threading.Lock = field(default_factory=threading.Lock)

    def kill(self) -> None:
        """SIGKILL the kernel's process group (what it started in its group goes too)."""
        for target, kill in ((self.pgid, os.killpg), (self.pid, os.kill)):
            if target:
                with contextlib.suppress(OSError):
                    kill(target, signal.SIGKILL)
                    return

    def expire(self) -> None:
        """The deadline is spent: kill the kernel (unless the run ended meanwhile)."""
        with self.lock:
            if not self.done:
                self.expired = True
                self.kill()

    def finish(self) -> None:
        """The run is over: the deadline kills nothing from now on."""
        with self.lock:
            self.done = True

    def watch_stops(self, stopped_seconds: float = STOPPED_SECONDS) -> None:
        """Until the run is over: kill the kernel once it has stayed stopped for `stopped_seconds` (it no
        longer answers, and nothing else would end the grading before its deadline, half an hour on)."""
        since: float | None = None
        while not self.done:
            time.sleep(WATCH_SECONDS)
            now = time.monotonic()
            if self.pid is None or not _stopped(self.pid):
                since = None
                continue
            since = since if since is not None else now
            if now - since >= stopped_seconds:
                with self.lock:
                    if not self.done:
                        self.stopped = True
                        self.kill()
                return

    def exit_code(self) -> int | None:
        """The kernel's exit code once it has exited (negative: the signal that killed it)."""
        provisioner = getattr(self.manager, "provisioner", None)
        process = getattr(provisioner, "process", None)
        with contextlib.suppress(Exception):
            return process.poll() if process is not None else None
        return None


def _stopped(pid: int) -> bool:
    """Whether the process is stopped (state T or t in /proc: SIGSTOP, a tracer)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in (b"T", b"t")


def notebook_for(takehome: str) -> Path:
    """The parameterized notebook of a take-home (package data of its plugin)."""
    from gradelib import takehomes
    from gradelib.errors import GradelibError

    path = takehomes.load(takehome).notebook()
    if not path.is_file():
        raise GradelibError(f"notebook {path} is missing: the take-home {takehome!r} is installed incompletely")
    return path


def _ipc_kernel_manager(
    folder: str, env: Mapping[str, str], stderr: IO[bytes] | None, watch: KernelWatch, fork: bool = True
) -> type:
    """An asynchronous kernel manager on IPC transport: no TCP port, no "running over TCP" warning.

    The kernel gets `env` on top of this process's environment and writes its stderr to
    `stderr`: per kernel, so gradings side by side in one process's threads never mix. Its
    pid goes to `watch`. With `fork` (and forking enabled) it is forked from the fork server.
    Asynchronous, not jupyter_client's blocking manager: with blocking channels nbclient's
    wait for output holds its event loop, so neither its check that the kernel lives nor its
    cell timeout ever runs, and a dead or stopped kernel hangs the batch.
    """
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    from gradelib.execution import kernelfork

    class IpcKernelManager(AsyncKernelManager):
        async def _async_pre_start_kernel(self, **kw: Any) -> tuple[list[str], dict[str, Any]]:
            if self.provisioner is None and fork and kernelfork.enabled():
                self.kernel_id = self.kernel_id or kw.pop("kernel_id", None) or str(uuid.uuid4())
                self.provisioner = kernelfork.ForkProvisioner(
                    kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self
                )
            return await super()._async_pre_start_kernel(**kw)

        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            return str(Path(folder) / "kernel")

        async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
            kw["env"] = {**(kw.get("env") or os.environ), **env}
            if stderr is not None:
                kw["stderr"] = stderr
            await super()._async_launch_kernel(kernel_cmd, **kw)
            provisioner = self.provisioner
            watch.manager = self
            watch.pid, watch.pgid = getattr(provisioner, "pid", None), getattr(provisioner, "pgid", None)

    return IpcKernelManager


def execute(
    source: Path,
    target: Path,
    parameters: Mapping[str, Any],
    *,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
    deadline: float | None = None,
    fork: bool = True,
    shutdown: str = "graceful",
) -> str | None:
    """Execute `source` into `target`; the error in one line, or None when every cell ran.

    papermill saves the notebook even when a cell fails, so the evidence up to the
    failure is kept. `env` is added to the kernel's environment; its stderr goes to `log`.
    After `deadline` seconds the kernel is killed. Without `fork` the kernel is a new interpreter,
    not forked from the fork server (worth it only when the server serves many kernels).
    `shutdown` "immediate" kills the kernel once the notebook has run, instead of asking it to
    exit (nbclient's `shutdown_kernel`). The notebook is left as its kernel ran it: its final form
    (the parameters a reviewer re-runs it with, the batch-only ones set back, its HTML) is made
    once, by whoever writes the report (`review/reportwriter.py`).
    """
    from gradelib.jsonschemapatch import without_iri_grammars

    without_iri_grammars()
    import papermill  # slow to import; only the workers need it

    from gradelib.execution import engine

    watch = KernelWatch()
    timer = threading.Timer(deadline, watch.expire) if deadline else None
    threading.Thread(target=watch.watch_stops, name="gradelib-kernel-stops", daemon=True).start()
    try:
        with contextlib.ExitStack() as stack:
            if timer is not None:
                timer.daemon = True
                timer.start()
                stack.callback(timer.cancel)
            sockets = stack.enter_context(tempfile.TemporaryDirectory(prefix="gradelib-kernel-"))
            stderr = stack.enter_context(open(log, "wb")) if log is not None else None
            papermill.execute_notebook(
                str(source),
                str(target),
                parameters=dict(parameters),
                kernel_name=KERNEL,
                engine_name=engine.register(),
                progress_bar=False,
                log_output=False,
                execution_timeout=CELL_TIMEOUT,
                cwd=str(Path(target).resolve().parent),  # where a reviewer who opens the report runs it too
                kernel_manager_class=_ipc_kernel_manager(sockets, env or {}, stderr, watch, fork),
                shutdown_kernel=shutdown,
            )
    except papermill.PapermillExecutionError as exc:
        error: str | None = f"cell {exc.cell_index} raised {exc.ename}: {exc.evalue}"[:500]
    except Exception as exc:  # a dead kernel or a timeout must not sink the batch
        error = _kernel_gone(watch, deadline) or f"{type(exc).__name__}: {exc}"[:500]
    else:
        error = None
    finally:
        watch.finish()
    if error is not None:  # a kernel killed mid-grading could not unmount its capped workspace
        from gradelib.sandbox import diskcap

        diskcap.sweep_stale()
    return error


def _kernel_gone(watch: KernelWatch, deadline: float | None) -> str | None:
    """Why the run ended with the kernel gone: the deadline, or the signal that killed it; None otherwise."""
    if watch.expired and deadline:
        return DEADLINE_MESSAGE.format(seconds=deadline)
    if watch.stopped:
        return STOPPED_MESSAGE.format(seconds=STOPPED_SECONDS)
    code = watch.exit_code()
    if code is None:
        return None
    if code < 0:
        with contextlib.suppress(ValueError):
            return DIED_MESSAGE.format(how=signal.Signals(-code).name)
    return DIED_MESSAGE.format(how=f"exit {code}")
