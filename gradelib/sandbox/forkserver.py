"""A fork server: one single-threaded process that forks a child per request, then says its pid and its exit.

The kit has two: the sandbox launcher forks each run's nsinit (``launchserver.py``) and a batch worker's
kernel fork server forks each notebook's kernel (``gradelib.execution.kernelfork``). Both are this
loop and this client handle. Standard library only, and nothing of gradelib: the launcher runs
in an isolated interpreter (``-I -S``) and loads this file by its path.

Per child, on a Unix socket: the client sends one request line with a fixed number of
descriptors attached; the server forks, answers `{"pid": N}`, then `{"exit": CODE}` once that
child has exited, and closes. It answers its own user only. When its control descriptor reads
EOF (the client's process is gone) it kills the children it still has and returns.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:  # not imported at run time: the launcher starts in an isolated interpreter, fast
    import tempfile

MAX_REQUEST = 4 * 1024 * 1024
MAX_FDS = 8
STOP_SECONDS = 10  # a server given this long to exit once its control descriptor closes, then killed

Child = Callable[[bytes, list[int]], None]  # runs in the fork with the request and its descriptors; never returns
Reaped = Callable[[int], None]  # told each child's wait status once it has exited


# --- the server ---------------------------------------------------------------------------------


def serve(
    listener: socket.socket, control: int | socket.socket, child: Child, *, fds: int, reaped: Reaped | None = None
) -> None:
    """Fork `child` per connection on `listener` that brings `fds` descriptors, until `control` reads EOF.

    Each child starts in its own session with default SIGCHLD and no wake-up descriptor; `reaped`
    hears each exit status. On return every child still running has been killed and waited for.
    """
    waiting: dict[int, socket.socket] = {}
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(control, selectors.EVENT_READ, "control")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    try:
        while True:
            for key, _events in selector.select():
                if key.data == "control":
                    return
                if key.data == "child":
                    os.read(wake_read, 4096)
                else:
                    conn, _ = listener.accept()
                    _start(conn, child, fds, waiting)
            _reap(waiting, reaped)
    finally:
        for pid in waiting:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        for pid in waiting:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
        signal.set_wakeup_fd(-1)
        selector.close()
        os.close(wake_read)
        os.close(wake_write)


def receive(conn: socket.socket, *, limit: int = MAX_REQUEST) -> tuple[bytes, list[int]]:
    """One request line (without its newline) and the descriptors sent with it; ConnectionError if cut short."""
    fds = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        chunk, ancillary, _flags, _addr = conn.recvmsg(65536, socket.CMSG_SPACE(MAX_FDS * fds.itemsize))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
        if not chunk or len(data) > limit:
            for fd in fds:
                os.close(fd)
            raise ConnectionError("incomplete request")
        data += chunk
    return data[:-1], list(fds)


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket."""
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return int(uid)


def _start(conn: socket.socket, child: Child, count: int, waiting: dict[int, socket.socket]) -> None:
    try:
        if peer_uid(conn) != os.getuid():  # its socket's folder is the user's alone; this checks too
            conn.close()
            return
        request, fds = receive(conn)
    except (OSError, ConnectionError):
        conn.close()
        return
    if len(fds) != count:
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        _in_child(child, request, fds)
    for fd in fds:
        os.close(fd)
    waiting[pid] = conn
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def _in_child(child: Child, request: bytes, fds: list[int]) -> None:
    """In the fork: leave the server's session and signal handling, run `child`; never returns."""
    try:
        os.setsid()  # its own process group: an interrupt or a kill reaches this child's tree only
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        child(request, fds)
    finally:
        os._exit(1)  # `child` ends with its own exit code; this is for one that returned or raised


def _reap(waiting: dict[int, socket.socket], reaped: Reaped | None) -> None:
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if reaped is not None:
            with contextlib.suppress(Exception):
                reaped(status)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            conn.close()


# --- the client ---------------------------------------------------------------------------------


class Stoppable(Protocol):
    """The part of `subprocess.Popen`'s interface `ServerHandle` needs of a server's process."""

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


class ServerHandle:
    """A client process's hold on its fork server: the control descriptor whose closing stops the
    server, the server's process and its folder. `close` stops it and waits for it (killing it
    after STOP_SECONDS); subclasses start it and hold `_lock` around `_stop`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: Stoppable | None = None
        self._control: socket.socket | int | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None

    def _stop(self) -> None:
        if self._control is not None:  # the server stops its children and exits
            if isinstance(self._control, int):
                os.close(self._control)
            else:
                self._control.close()
            self._control = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def close(self) -> None:
        """Stop the server (and any child it still has)."""
        with self._lock:
            self._stop()


class ForkedChild:
    """A child a fork server started, with the part of `subprocess.Popen`'s interface the kit uses."""

    what = "forked child"  # named in `subprocess.TimeoutExpired`
    stdin: IO[bytes] | None = None
    stdout: IO[bytes] | None = None
    stderr: IO[bytes] | None = None

    def __init__(self, conn: socket.socket, pid: int, rest: bytes = b"") -> None:
        self._conn, self._buffer = conn, rest
        self._lock = threading.Lock()
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """The exit code once the child has exited, else None."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.wait(timeout=0)
        return None

    def wait(self, timeout: float | None = None) -> int:
        """Block until the child has exited (at most `timeout` seconds); its exit code."""
        with self._lock:
            if self.returncode is None:
                self._conn.settimeout(timeout)
                try:
                    self._read_exit()
                except (TimeoutError, BlockingIOError):
                    raise subprocess.TimeoutExpired(self.what, timeout or 0.0) from None
            return self.returncode if self.returncode is not None else -1

    def _read_exit(self) -> None:
        while b"\n" not in self._buffer:
            chunk = self._conn.recv(4096)
            if not chunk:  # the server is gone, and its children with it
                self.returncode = -signal.SIGKILL
                self._conn.close()
                return
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        self.returncode = int(json.loads(line).get("exit", -1))
        self._conn.close()

    def send_signal(self, signum: int) -> None:
        """Signal the child, unless its exit is already known."""
        if self.returncode is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        """SIGTERM."""
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)


Handle = TypeVar("Handle", bound=ForkedChild)


def ask(path: str, request: bytes, fds: Sequence[int], *, timeout: float, handle: type[Handle]) -> Handle:
    """Ask the fork server at `path` for a child: send `request` (one line) with `fds`, wait for its pid.

    The descriptors stay the caller's to close. OSError or ConnectionError when the server cannot be
    reached or closes without a pid; ValueError when its answer is not one.
    """
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(path)
        conn.sendmsg([request + b"\n"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        reply = b""
        while b"\n" not in reply:
            chunk = conn.recv(4096)
            if not chunk:
                raise ConnectionError("the fork server closed the connection")
            reply += chunk
        line, _, rest = reply.partition(b"\n")
        answer = json.loads(line)
        if not isinstance(answer, dict) or not isinstance(answer.get("pid"), int):
            raise ValueError(f"the fork server answered {line[:80]!r}, not a pid")
        pid = answer["pid"]
    except BaseException:
        conn.close()
        raise
    conn.settimeout(None)
    return handle(conn, pid, rest)
