"""The kit's side of the launcher (``launchserver.py``): start it once per process, ask it for each run.

`start_nsinit` gives a handle with the part of `subprocess.Popen`'s interface the sandbox uses
(`pid`, `stdout`, `stderr`, `poll`, `wait`); when the launcher cannot be used it starts nsinit
as a new interpreter, exactly as before.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from gradelib.sandbox import forkserver, launchserver
from gradelib.settings import ENV_SANDBOX_LAUNCHER, current_settings

ENV_DISABLE = ENV_SANDBOX_LAUNCHER  # "0": every run starts nsinit as a new interpreter
START_SECONDS = 30.0
FALLBACK_NOTICE = "gradelib: sandbox runs start fresh (the launcher is not used): {why}"
INTERPRETER_FLAGS = ("-I", "-S")  # nsinit's own: isolated, no site-packages


def enabled() -> bool:
    """Whether runs are forked by the launcher (default) rather than started as new interpreters."""
    return current_settings().sandbox_launcher


class LaunchedProcess(forkserver.ForkedChild):
    """One nsinit forked by the launcher: its pid, its output pipes, and its exit code once it has one."""

    what = "nsinit"


class Launcher(forkserver.ServerHandle):
    """This process's launcher: started on first use, restarted if it died, stopped at exit."""

    def __init__(self) -> None:
        super().__init__()
        self._path = ""
        self._told = False

    def path(self, env: dict[str, str]) -> str | None:
        """The launcher's socket, starting it if needed; None when it cannot start (said once, on stderr)."""
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return self._path
            died = self._proc is not None
            self._stop()
            try:
                return self._start(env)
            except (OSError, TimeoutError, ConnectionError) as exc:
                self._stop()
                self.fell_back(f"{'it died, and ' if died else ''}it cannot start: {exc}")
                return None

    def fell_back(self, why: str) -> None:
        """Say once, on this process's stderr (a kernel's log), that runs start as new interpreters."""
        if not self._told:
            self._told = True
            print(FALLBACK_NOTICE.format(why=why), file=sys.stderr, flush=True)

    def _start(self, env: dict[str, str]) -> str:
        self._folder = tempfile.TemporaryDirectory(prefix="gradelib-launcher-", ignore_cleanup_errors=True)
        self._path = str(Path(self._folder.name) / "socket")
        theirs, ours = os.pipe()  # the launcher reads EOF on its end when this process is gone
        ready_read, ready_write = os.pipe()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, *INTERPRETER_FLAGS, launchserver.__file__, self._path, str(theirs)],
                stdin=subprocess.DEVNULL,
                stdout=ready_write,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs,),
                start_new_session=True,
                env=env,
            )
        finally:
            os.close(theirs)
            os.close(ready_write)
        self._control = ours
        with os.fdopen(ready_read, "rb") as ready:
            os.set_blocking(ready.fileno(), True)
            line = _read_line(ready.fileno(), START_SECONDS)
        if line != b"ready":
            raise ConnectionError("the sandbox launcher did not start")
        return self._path


def _read_line(fd: int, seconds: float) -> bytes:
    import select

    data = b""
    while b"\n" not in data:
        ready, _, _ = select.select([fd], [], [], seconds)
        if not ready:
            raise TimeoutError("no answer")
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    return data.strip()


Process = LaunchedProcess | subprocess.Popen[bytes]  # what the sandbox waits on, reads and kills

LAUNCHER = Launcher()
atexit.register(LAUNCHER.close)


def start_nsinit(nsinit_file: str, config: str, control: socket.socket, env: dict[str, str]) -> Process:
    """nsinit for one run, with `control` as its control socket: forked by the launcher when it can be."""
    path = LAUNCHER.path(env) if enabled() else None
    if path is not None:
        try:
            return _forked(path, config, control)
        except (OSError, ConnectionError, ValueError) as exc:
            LAUNCHER.fell_back(f"a run could not be forked: {exc}")
    return subprocess.Popen(
        [sys.executable, *INTERPRETER_FLAGS, nsinit_file, config, str(control.fileno())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(control.fileno(),),
        start_new_session=True,
        env=env,  # the reviewer's environment stops here, even for /proc/1/environ
    )


def _forked(path: str, config: str, control: socket.socket) -> LaunchedProcess:
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    try:
        fds = [control.fileno(), out_write, err_write]
        process = forkserver.ask(path, config.encode(), fds, timeout=START_SECONDS, handle=LaunchedProcess)
    except BaseException:
        for fd in (out_read, err_read):
            os.close(fd)
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    process.stdout, process.stderr = os.fdopen(out_read, "rb", buffering=0), os.fdopen(err_read, "rb", buffering=0)
    return process
