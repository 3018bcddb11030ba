"""Notebook kernels forked from a process that has already imported what the notebooks import.

A fresh Jupyter kernel spends about a second of CPU importing ipykernel, IPython, ipywidgets
and the kit before the first cell runs, and a batch starts one per submission. A batch worker
instead starts one fork server: a single-threaded process that imports all of that once, then
forks a kernel per notebook. Each kernel is still its own process (its own session, environment,
folder and stderr; nothing of one notebook reaches the next), started from a parent that holds
no kernel state, only imported modules. Only the kit's own code runs in a kernel: candidate
code runs in the sandbox either way. A worker forked warm (`warmup`) has imported all of that
already: its server is a fork of the worker itself (`ForkServer.prefork`), ready at once; other
workers (spawned, Dask's) start it as a new interpreter on first use.

Per kernel the worker sends one JSON line (argv, cwd, env) with its stdout and stderr
descriptors attached, through the fork server protocol the sandbox launcher also speaks
(`gradelib.sandbox.forkserver`).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import multiprocessing.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jupyter_client.provisioning.local_provisioner import LocalProvisioner

from gradelib.sandbox import diskcap, forkserver
from gradelib.settings import ENV_KERNEL_FORK, current_settings

ENV_DISABLE = ENV_KERNEL_FORK  # "0" starts every kernel as a new interpreter
PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipykernel.zmqshell",
    "ipykernel.comm",
    "IPython.core.interactiveshell",
    "IPython.core.completer",
    "IPython.core.completerlib",
    "IPython.core.debugger",
    "IPython.core.oinspect",
    "IPython.extensions.storemagic",
    "ipykernel.debugger",  # imports debugpy: the largest part of a kernel's start
    "tornado.platform.asyncio",
    "tornado.queues",
    "ipywidgets",
    "gradelib.notebook",
    "gradelib.review.scoringpanel",
    "gradelib.similarity.report",
)
KERNEL_FDS = 2  # its stdout and stderr
START_TIMEOUT = 60.0
CHANNELS_WAIT = 2.0  # a shutdown request's answer takes milliseconds; other exits leave the threads running
FALLBACK_NOTICE = "kernels start fresh (the kernel fork server is not used): {why}"
THREADED = "the kernel fork server must be single-threaded: an import started a thread"


def enabled() -> bool:
    """Whether batch kernels come from a fork server (default) rather than fresh interpreters."""
    return current_settings().kernel_fork


# --- the server ---------------------------------------------------------------------------------


_PRELOADED: list[bool] = []  # True once this process has imported what a kernel needs (`preload`), False
# when those imports started a thread: a process forked from it (a warm worker) must not fork kernels either


def preload() -> None:
    """Import what every notebook imports, and every installed take-home's grading."""
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # debugpy's note on frozen modules, said once
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    from gradelib import takehomes

    for name in takehomes.names():
        with contextlib.suppress(Exception):  # a broken plugin fails in its own notebook, as before
            takehomes.load(name)
    _PRELOADED[:] = [threading.active_count() == 1]


def _kernel_child(line: bytes, fds: Sequence[int]) -> None:
    """In the forked child (a session of its own already): become the kernel the request describes; never returns."""
    code = 1
    try:
        request = json.loads(line)
        parent = os.getppid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        for target, fd in zip((1, 2), fds, strict=False):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the server's sockets stay the server's
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ["JPY_PARENT_PID"] = str(parent)  # the kernel exits if the server goes away
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # ipykernel read JPY_PARENT_PID when the server imported it: say it again, for this kernel
        sys.argv = ["ipykernel_launcher", *request["args"], f"--IPKernelApp.parent_handle={parent}"]
        from ipykernel import kernelapp

        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            _channels_done()
        with contextlib.suppress(Exception):  # as a kernel started fresh would: its exit handlers stop what
            atexit._run_exitfuncs()  # it started (the sandbox launcher) and wait for it
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _channels_done(timeout: float = CHANNELS_WAIT) -> None:
    """Let ipykernel's control and shell-channel threads finish what they are answering before its exit handler
    closes the IOPub thread under them: the shutdown request is answered on the control thread, which then
    flushes through IOPub, and waits there for good if IOPub is gone (the kernel hangs until it is killed)."""
    from ipykernel.kernelapp import IPKernelApp

    if not IPKernelApp.initialized():
        return
    app = IPKernelApp.instance()
    deadline = time.monotonic() + timeout
    for thread in (app.control_thread, app.shell_channel_thread):
        if thread is not None and thread.is_alive():
            thread.join(max(0.0, deadline - time.monotonic()))


def serve(listener: socket.socket, control: socket.socket) -> None:
    """Fork a kernel per connection until `control` closes (the worker is gone); then stop them all."""
    try:
        forkserver.serve(listener, control, _kernel_child, fds=KERNEL_FDS, reaped=_reaped)
    finally:
        diskcap.sweep_stale()  # what the killed kernels had mounted


def _reaped(status: int) -> None:
    if os.WIFSIGNALED(status):  # killed (the grading's deadline, the OOM killer): it could not unmount
        diskcap.sweep_stale()


def main(argv: Sequence[str]) -> int:
    """`python -m gradelib.execution.kernelfork SOCKET_PATH CONTROL_FD`: preload, say ready, serve."""
    path, control_fd = argv[0], int(argv[1])
    control = socket.socket(fileno=control_fd)
    preload()
    if not all(_PRELOADED):  # forking a process with threads would copy their locks mid-use
        raise SystemExit(THREADED)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    control.sendall(b"ready\n")
    serve(listener, control)
    return 0


# --- the worker's side ----------------------------------------------------------------------------


class ForkServer(forkserver.ServerHandle):
    """One worker's fork server: started on first use, stopped with the worker."""

    def __init__(self) -> None:
        super().__init__()
        self.path = ""
        self._failure: str | None = None  # why it could not be used, until said once
        self._told = False
        self._gave_up = False  # it could not start: this process's kernels start fresh from now on

    def ensure(self) -> str | None:
        """The server's socket path, starting it if needed; None when it cannot run (see `notice`)."""
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return self.path
            if self._gave_up:
                return None
            died = self._proc is not None
            self._stop()
            try:
                return self._start()
            except (OSError, TimeoutError, ConnectionError) as exc:
                self._stop()
                self._gave_up = True
                self.fell_back(f"{'it died, and ' if died else ''}it cannot start: {exc}")
                return None

    def prefork(self) -> bool:
        """Start the server now as a fork of this process, when it has imported what kernels need (a worker
        forked warm, `warmup`) and runs one thread: no interpreter to start. False when not started."""
        with self._lock:
            if _PRELOADED == [False] and not self._gave_up:  # the process it was forked from had a thread
                self._gave_up = True
                self.fell_back(f"it cannot start: {THREADED}")
            if self._proc is not None or self._gave_up or not _PRELOADED or threading.active_count() != 1:
                return False
        # Forked without holding the lock: the server and its kernels inherit it unlocked (a kernel's exit
        # handler closes this object, as in any process that imported this module).
        folder = tempfile.TemporaryDirectory(prefix="gradelib-forks-")
        ours, theirs = socket.socketpair()
        try:
            path, pid = _fork_server(Path(folder.name), theirs)
        except OSError:
            ours.close()
            folder.cleanup()
            return False
        finally:
            theirs.close()
        with self._lock:
            self._folder, self.path, self._control, self._proc = folder, path, ours, _Child(pid)
        return True

    def fell_back(self, why: str) -> None:
        """Remember why kernels start as new interpreters, to be said once."""
        if self._failure is None and not self._told:
            self._failure = why

    def notice(self) -> str | None:
        """Why kernels started fresh, the first time it is asked after it happened (then None)."""
        with self._lock:
            failure, self._failure = self._failure, None
            if failure is None or self._told:
                return None
            self._told = True
            return FALLBACK_NOTICE.format(why=failure)

    def _start(self) -> str:
        self._folder = tempfile.TemporaryDirectory(prefix="gradelib-forks-")
        self.path = str(Path(self._folder.name) / "server")
        ours, theirs = socket.socketpair()
        self._control = ours
        errors = Path(self._folder.name) / "server.err"
        with open(errors, "wb") as stderr:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "gradelib.execution.kernelfork", self.path, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
        theirs.close()
        ours.settimeout(START_TIMEOUT)
        if ours.recv(16) != b"ready\n":
            said = errors.read_text(errors="replace").strip().splitlines()
            raise ConnectionError(f"it exited: {said[-1]}" if said else "it did not answer")
        ours.settimeout(None)
        return self.path


def _fork_server(folder: Path, control: socket.socket) -> tuple[str, int]:
    """Fork this process into a server listening in `folder`, stopped when `control` closes: (path, pid)."""
    path = str(folder / "server")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    errors = os.open(folder / "server.err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        listener.bind(path)
        listener.listen(16)
        pid = os.fork()
        if pid == 0:
            _serve_forked(listener, control, errors)
    finally:
        os.close(errors)
        listener.close()
    return path, pid


def _serve_forked(listener: socket.socket, control: socket.socket, errors: int) -> None:
    """In the forked server: shed the worker (its descriptors, exit handlers, session), serve; never returns."""
    code = 1
    try:
        os.setsid()
        gc.freeze()  # nothing the worker allocated is collected here (its objects may name closed descriptors)
        # The worker's finalizers (its pool's queues, its temporary folders) are not this process's, nor its
        # kernels'. The exit handlers modules registered stay: a kernel's stop the launcher it started.
        multiprocessing.util._finalizer_registry.clear()  # type: ignore[attr-defined]
        weakref.finalize._registry.clear()  # type: ignore[attr-defined]
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(errors, 2)
        keep = sorted({listener.fileno(), control.fileno()})
        for low, high in zip([2, *keep], [*keep, os.sysconf("SC_OPEN_MAX")], strict=True):
            os.closerange(low + 1, high)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        serve(listener, control)
        code = 0
    except BaseException:
        import traceback

        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        os._exit(code)


class _Child:
    """A server this process forked (`prefork`), with the part of `Popen`'s interface `ForkServer` uses."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit code once it has exited, else None."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -1
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """Block until it has exited (at most `timeout` seconds); its exit code."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("kernel fork server", timeout or 0.0)
            time.sleep(0.01)
        return code

    def kill(self) -> None:
        """SIGKILL."""
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)


class ForkedKernel(forkserver.ForkedChild):
    """A kernel the fork server started, with the part of `Popen`'s interface jupyter_client uses."""

    what = "kernel"


SERVER = ForkServer()
atexit.register(SERVER.close)


def _forkable(argv: Sequence[str]) -> bool:
    """Whether `argv` starts ipykernel with this very interpreter (what the server has imported)."""
    if len(argv) < 3 or list(argv[1:3]) != ["-m", "ipykernel_launcher"]:
        return False
    with contextlib.suppress(OSError):
        return os.path.samefile(argv[0], sys.executable)
    return False


class ForkProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, with kernels forked by this worker's server when it can."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
        """Fork the kernel from the server; start a new interpreter when that is not possible."""
        server = SERVER.ensure() if _forkable(cmd) else None
        if server is None:
            return await super().launch_kernel(cmd, **kwargs)
        stderr = kwargs.get("stderr")
        env = {key: str(value) for key, value in (kwargs.get("env") or os.environ).items()}
        cwd = str(kwargs.get("cwd") or os.getcwd())
        try:
            kernel = fork_kernel(server, cmd, cwd=cwd, env=env, stderr=_fd(stderr))
        except (OSError, ValueError, ConnectionError) as exc:
            SERVER.fell_back(f"a kernel could not be forked: {exc}")
            return await super().launch_kernel(cmd, **kwargs)
        self.process = kernel  # type: ignore[assignment]  # the part of Popen jupyter_client uses
        self.pid = self.pgid = kernel.pid
        self.cwd = cwd
        return self.connection_info


def _fd(stream: Any) -> int | None:
    if stream is None or isinstance(stream, int):
        return stream
    return int(stream.fileno())


def fork_kernel(server: str, argv: Sequence[str], *, cwd: str, env: dict[str, str], stderr: int | None) -> ForkedKernel:
    """Ask the fork server at `server` for a kernel running `argv`'s ipykernel arguments."""
    args = list(argv[argv.index("-f") :]) if "-f" in argv else list(argv[3:])
    request = json.dumps({"args": args, "cwd": cwd, "env": env}).encode()
    with open(os.devnull, "wb") as devnull:
        out = sys.stdout.fileno() if _has_fd(sys.stdout) else devnull.fileno()
        fds = [out, stderr if stderr is not None else out]
        return forkserver.ask(server, request, fds, timeout=START_TIMEOUT, handle=ForkedKernel)


def _has_fd(stream: Any) -> bool:
    try:
        stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
