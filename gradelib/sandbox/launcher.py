"""A long-lived launcher that forks each sandboxed run's first process instead of starting an interpreter.

Every sandboxed run starts ``nsinit.py`` in a fresh, single-threaded Python; its start-up and
imports cost more CPU than everything else a run of ``true`` does. The launcher is that same
interpreter, started once per grading process with the same flags (``-I -S``) and the same
scrubbed environment, which imports ``nsinit`` and then forks once per run. The forked child
is what a fresh ``nsinit.py`` process would be: single-threaded, its own session, its stdout and
stderr on the pipes the kit reads, nothing of the previous run (it is a fork of a process
that has run nothing). Standard library only, like nsinit, and it never imports gradelib.

Per run, on a Unix socket: the kit sends one JSON line (nsinit's config) with three descriptors
(nsinit's control socket, stdout, stderr); the launcher answers `{"pid": N}`, then
`{"exit": CODE}` once that child has exited, and closes. When its control pipe to the kit
closes (the kit's process is gone) the launcher kills what it still runs and exits.
"""

from __future__ import annotations

import array
import contextlib
import importlib.util
import json
import os
import selectors
import signal
import socket
import struct
import sys

MAX_REQUEST = 4 * 1024 * 1024


def _load_nsinit() -> object:
    spec = importlib.util.spec_from_file_location("nsinit", os.path.join(os.path.dirname(__file__), "nsinit.py"))
    if spec is None or spec.loader is None:
        raise ImportError("nsinit.py is missing")
    module = importlib.util.module_from_spec(spec)
    sys.modules["nsinit"] = module  # its dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _receive(conn: socket.socket) -> tuple[bytes, list[int]]:
    fds = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        chunk, ancillary, _flags, _addr = conn.recvmsg(65536, socket.CMSG_SPACE(3 * fds.itemsize))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
        if not chunk or len(data) > MAX_REQUEST:
            for fd in fds:
                os.close(fd)
            raise ConnectionError("incomplete request")
        data += chunk
    return data[:-1], list(fds)


def _child(nsinit: object, config: bytes, fds: list[int]) -> None:
    """In the fork: become nsinit for this run; never returns."""
    code = 1
    try:
        control, out, err = fds
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        signal.set_wakeup_fd(-1)
        for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(number, signal.SIG_DFL)
        keep = os.dup(control) if control < 3 else control
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        code = nsinit.main(["nsinit", config.decode(), str(keep)])  # type: ignore[attr-defined]
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def serve(nsinit: object, listener: socket.socket, control: int) -> None:
    """Fork a run per connection until `control` reads EOF; then kill the runs left and return."""
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
                    _start(nsinit, conn, waiting)
            _reap(waiting)
    finally:
        for pid in waiting:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        for pid in waiting:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


def _peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end (the socket's folder is the kit user's alone; this checks too)."""
    _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return int(uid)


def _start(nsinit: object, conn: socket.socket, waiting: dict[int, socket.socket]) -> None:
    try:
        if _peer_uid(conn) != os.getuid():  # a run is started for the kit's own user only
            conn.close()
            return
        config, fds = _receive(conn)
    except (OSError, ConnectionError):
        conn.close()
        return
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        _child(nsinit, config, fds)
    for fd in fds:
        os.close(fd)
    waiting[pid] = conn
    try:
        conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    except OSError:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def _reap(waiting: dict[int, socket.socket]) -> None:
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            conn.close()


def main(argv: list[str]) -> int:
    """`python -I -S launcher.py SOCKET_PATH CONTROL_FD`: import nsinit, say ready, serve."""
    path, control = argv[1], int(argv[2])
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a kit gone mid-start is an error here, not a silent death
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        nsinit = _load_nsinit()
        listener.bind(path)
        listener.listen(64)
        os.write(1, b"ready\n")  # stdout is the kit's pipe for this one line
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        serve(nsinit, listener, control)
    except OSError:
        return 1
    finally:  # the kit may be gone without a word (a kernel ends with os._exit): leave no folder behind
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
