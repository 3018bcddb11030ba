"""The fork server both the sandbox launcher and the kernel fork server are: fork, say the pid, say the exit."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gradelib.sandbox import forkserver

SERVER = textwrap.dedent(
    """
    import os, socket, sys, time
    from gradelib.sandbox import forkserver

    path, control = sys.argv[1], int(sys.argv[2])

    def child(request, fds):
        (out,) = fds
        os.write(out, f"{os.getpid()} {os.getsid(0)} {os.getppid()}\\n".encode())
        if request == b"sleep":
            time.sleep(120)
        os._exit(int(request))

    def reaped(status):
        print("reaped", os.waitstatus_to_exitcode(status), file=sys.stderr, flush=True)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    os.write(1, b"ready\\n")
    forkserver.serve(listener, control, child, fds=1, reaped=reaped)
    print("served", file=sys.stderr, flush=True)
    """
)


@dataclass
class Server:
    path: str
    proc: subprocess.Popen[bytes]
    control: int  # closing it stops the server
    log: Path

    def ask(self, request: bytes) -> tuple[forkserver.ForkedChild, list[str]]:
        """A child for `request`, and what it wrote first (pid, session, parent)."""
        read, write = os.pipe()
        try:
            child = forkserver.ask(self.path, request, [write], timeout=10, handle=forkserver.ForkedChild)
        finally:
            os.close(write)
        with os.fdopen(read, "rb") as said:
            return child, said.readline().decode().split()

    def stop(self) -> str:
        """Close its control pipe; what it logged."""
        os.close(self.control)
        self.proc.wait(timeout=20)
        return self.log.read_text(encoding="utf-8")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    theirs, ours = os.pipe()
    log = tmp_path / "server.log"
    with open(log, "wb") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(tmp_path / "socket"), str(theirs)],
            pass_fds=(theirs,),
            stdout=subprocess.PIPE,
            stderr=errors,
        )
    os.close(theirs)
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n", log.read_text(encoding="utf-8")
    running = Server(str(tmp_path / "socket"), proc, ours, log)
    yield running
    proc.stdout.close()
    if proc.poll() is None:
        proc.kill()
        proc.wait()
        os.close(ours)


def test_each_request_is_a_child_of_the_server_in_its_own_session_whose_exit_is_told(server: Server) -> None:
    first, (pid, session, parent) = server.ask(b"3")
    second, _ = server.ask(b"0")
    assert int(pid) == first.pid == int(session) and int(parent) == server.proc.pid
    assert first.wait(timeout=10) == 3 and first.returncode == 3 and first.poll() == 3
    assert second.wait(timeout=10) == 0
    log = server.stop().splitlines()
    assert sorted(log[:2]) == ["reaped 0", "reaped 3"] and log[2:] == ["served"]


def test_a_running_child_polls_as_running_times_out_a_wait_and_a_signal_is_its_exit(server: Server) -> None:
    child, _ = server.ask(b"sleep")
    assert child.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(timeout=0.2)
    child.terminate()
    assert child.wait(timeout=10) == -signal.SIGTERM
    child.kill()  # its exit is known: nothing is signalled (the pid may be another process's by now)
    assert "reaped -15" in server.stop()


def test_when_the_control_pipe_closes_the_children_left_are_killed_and_the_server_returns(server: Server) -> None:
    child, _ = server.ask(b"sleep")
    assert server.stop().splitlines()[-1] == "served"
    assert child.wait(timeout=10) == -signal.SIGKILL  # the connection closed without an exit
    with pytest.raises(ProcessLookupError):
        os.kill(child.pid, 0)


def test_a_request_with_the_wrong_descriptors_or_no_line_is_closed_without_a_fork(server: Server) -> None:
    with pytest.raises(ConnectionError):
        forkserver.ask(server.path, b"0", [], timeout=10, handle=forkserver.ForkedChild)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(server.path)
        conn.sendall(b"0")  # no newline, then gone
    child, _ = server.ask(b"5")  # and it still serves
    assert child.wait(timeout=10) == 5
    assert server.stop().splitlines() == ["reaped 5", "served"]


def test_a_server_that_is_not_there_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        forkserver.ask(str(tmp_path / "nothing"), b"0", [], timeout=1, handle=forkserver.ForkedChild)


def test_peer_uid_is_the_process_at_the_other_end() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert forkserver.peer_uid(ours) == os.getuid()


def test_a_request_cut_short_closes_the_descriptors_it_brought() -> None:
    ours, theirs = socket.socketpair()
    read, write = os.pipe()
    with ours, theirs:
        ours.sendmsg([b"partial"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, write.to_bytes(4, sys.byteorder))])
        ours.shutdown(socket.SHUT_WR)
        before = set(os.listdir("/proc/self/fd"))
        with pytest.raises(ConnectionError):
            forkserver.receive(theirs)
        assert set(os.listdir("/proc/self/fd")) <= before
    os.close(read)
    os.close(write)


@pytest.mark.parametrize("leaves", [True, False], ids=["exits-on-eof", "ignores-eof"])
def test_a_server_handle_closes_the_control_waits_or_kills_and_removes_its_folder(
    leaves: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(forkserver, "STOP_SECONDS", 0.5)
    read, write = os.pipe()
    script = "import sys; sys.stdin.buffer.read()" if leaves else "import time; time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=read)
    os.close(read)
    handle = forkserver.ServerHandle()
    folder = tempfile.TemporaryDirectory(prefix="gradelib-test-handle-")
    handle._proc, handle._control, handle._folder = proc, write, folder
    handle.close()
    assert proc.returncode == (0 if leaves else -signal.SIGKILL)
    assert not Path(folder.name).exists()
    with pytest.raises(OSError):
        os.fstat(write)  # the control descriptor is closed
    handle.close()  # twice is harmless
