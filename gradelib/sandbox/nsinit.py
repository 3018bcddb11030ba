"""The sandbox's first process: enter fresh namespaces, hand sockets back, start the command.

Run by ``box.py`` as ``python -I nsinit.py CONFIG_JSON CONTROL_FD``, CONFIG_JSON being
``InitConfig.to_json()``. It is a standalone, standard-library-only script on purpose: it
runs before any candidate code, in a fresh single-threaded interpreter (``unshare(2)``
with a user namespace refuses multi-threaded callers), and must not import gradelib
(``-I`` does not even put this folder on ``sys.path``), so the typed configuration both
sides use is defined here and ``box.py`` imports it.

Protocol on the control socket (AF_UNIX, SOCK_SEQPACKET, JSON messages):
  -> {"event": "unavailable", "error": ...}        namespaces refused; exit 97
  -> {"event": "ready", "sockets": [names...]}      + the listening fds (SCM_RIGHTS)
  <- {"event": "go"}                                the grader serves them now
  -> {"event": "started", "pid": host pid of the command's init}
  -> {"event": "exit", "code": int | None, "signal": int | None}
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import fcntl
import json
import os
import platform
import resource
import signal
import socket
import stat
import struct
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_BIND = 4096
# An overlay's folders are the command's (a tool adds files where it pleases), and so are its small files
# near the top and its lock files anywhere (a cache's locks and indexes): each is copied up when given.
OVERLAY_OWNED_DEPTH = 3
OVERLAY_OWNED_FILE_BYTES = 64 * 1024
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RDONLY = 1
MS_REMOUNT = 32
MNT_DETACH = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "armv7l": 218, "ppc64le": 203, "s390x": 217}
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
PR_SET_PDEATHSIG = 1
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
EXIT_UNAVAILABLE = 97
EXIT_SETUP_FAILED = 98
REPORT_FD = 3

RLIMITS = {
    "cpu_seconds": resource.RLIMIT_CPU,
    "memory_bytes": resource.RLIMIT_DATA,
    "processes": resource.RLIMIT_NPROC,
    "file_bytes": resource.RLIMIT_FSIZE,
    "open_files": resource.RLIMIT_NOFILE,
}

_libc = ctypes.CDLL(None, use_errno=True)


@dataclass(frozen=True)
class Listener:
    """A socket the kit's server listens on inside the namespace, bound before candidate code runs."""

    name: str
    port: int
    protocol: Literal["tcp", "udp"] = "tcp"
    address: str = "127.0.0.1"  # on loopback only (bind_listeners refuses anything else)


@dataclass(frozen=True)
class RunLimits:
    """The resource limits the command runs under (0: not limited); the names of `RLIMITS`."""

    cpu_seconds: int
    memory_bytes: int
    processes: int
    file_bytes: int
    open_files: int


@dataclass(frozen=True)
class InitConfig:
    """Everything the child needs to build the sandbox and start the command, sent as JSON."""

    isolate: bool  # enter namespaces; False runs the command with limits only
    cwd: str
    argv: tuple[str, ...]
    env: Mapping[str, str]
    limits: RunLimits
    as_root: bool = False
    listen: tuple[Listener, ...] = ()
    resolv_conf: str | None = None  # bound over /etc/resolv.conf: the grader's logging resolver
    root_dir: str = ""  # where the minimal root is built, then pivoted into
    writable: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()  # the submission's installed dependencies, the kit's folder
    tmp: str | None = None  # the run's /tmp in the capped workspace, else a private tmpfs
    traced: bool = False  # under strace: the command's wrapper reports its exit on fd 3
    umask: int = 0o022
    cpus: tuple[int, ...] | None = None
    hostname: str | None = None
    # (folder, where it is seen inside, "ro" | "rw" | "overlay", the overlay's upper folder or "",
    # the uid that owns an overlay's folders: the command's)
    binds: tuple[tuple[str, str, str, str, int], ...] = ()
    workdir: str | None = None  # where the command starts, inside (a bind of cwd); default cwd

    def to_json(self) -> str:
        """The configuration as the child's first argument."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> InitConfig:
        """The configuration back from `to_json` (an unknown or missing key is a TypeError)."""
        data = json.loads(text)
        data["listen"] = tuple(Listener(**item) for item in data.get("listen", ()))
        data["limits"] = RunLimits(**data["limits"])
        for key in ("argv", "writable", "read_only"):
            data[key] = tuple(data.get(key, ()))
        data["binds"] = tuple(tuple(bind) for bind in data.get("binds", ()))
        if data.get("cpus") is not None:
            data["cpus"] = tuple(data["cpus"])
        return cls(**data)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _send(ctrl: socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(ctrl, [data], fds)
    else:
        ctrl.send(data)


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def enter_namespaces(as_root: bool) -> None:
    """Unshare network, mount, PID, UTS and IPC namespaces (plus a user one if not root)."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC
    if not as_root:
        flags |= CLONE_NEWUSER
    _check(_libc.unshare(flags), "unshare")
    if not as_root:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")


def loopback_up() -> None:
    """Bring `lo` up: a new network namespace starts with it down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def arrange_mounts(config: InitConfig, notes: list[str]) -> None:
    """Build a minimal root and move into it: the system read-only, the run's folders, private /tmp.

    Everything else (the reviewer's home, the kit's repository and reports, /run's sockets,
    other submissions) is simply not there. DNS points at the grader's logging resolver.
    """
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = config.root_dir
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
    for path in SYSTEM_PATHS:
        _expose(root, path, read_only=True, notes=notes)
    if config.tmp:  # the run's own folder in the capped workspace: /tmp counts against the same cap
        _mount(config.tmp, _mkdir(root, "/tmp"), None, MS_BIND)
    else:
        _mount("tmpfs", _mkdir(root, "/tmp"), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m")
    _device_nodes(root, notes)
    for path in config.writable:
        _expose(root, path, read_only=False, notes=notes)
    for path in config.read_only:  # the submission's installed dependencies
        _expose(root, path, read_only=True, notes=notes)
    for folder, inside, mode, upper, owner in config.binds:  # fixed paths: the copy, a tool's environment
        if mode == "overlay":
            _overlay(root, folder, inside, upper, owner, notes)
        else:
            _expose(root, folder, read_only=mode != "rw", notes=notes, at=inside)
    resolv = config.resolv_conf
    if resolv:
        target = os.path.realpath("/etc/resolv.conf")
        try:
            inside = root + target
            if not os.path.exists(inside):
                os.makedirs(os.path.dirname(inside), exist_ok=True)
                open(inside, "w").close()
            _mount(resolv, inside, None, MS_BIND)
        except OSError as exc:
            notes.append(f"DNS names are not logged: {exc}")
    os.makedirs(root + "/proc", exist_ok=True)
    os.chdir(root)
    _check(_libc.syscall(SYS_PIVOT_ROOT[platform.machine()], b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")


def _mkdir(root: str, path: str) -> str:
    inside = root + path
    os.makedirs(inside, exist_ok=True)
    return inside


def _expose(root: str, path: str, *, read_only: bool, notes: list[str], at: str | None = None) -> None:
    """Bind `path` at the same place inside the new root, or at `at` (links re-created as links)."""
    where = at or path
    if os.path.islink(path) and at is None:
        os.symlink(os.readlink(path), root + path)
        return
    if not os.path.exists(path):
        return
    inside = _mkdir(root, where) if os.path.isdir(path) else root + where
    if not os.path.isdir(path):
        os.makedirs(os.path.dirname(inside), exist_ok=True)
        open(inside, "a").close()
    _mount(path, inside, None, MS_BIND | MS_REC)
    if read_only:
        try:
            _mount(None, inside, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        except OSError:
            with contextlib.suppress(OSError):  # a user namespace must keep the source's locked flags
                _mount(None, inside, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
            if not _read_only(inside):
                notes.append(f"{path} is visible read-write: could not remount it read-only")


def _overlay(root: str, folder: str, inside: str, upper: str, owner: int, notes: list[str]) -> None:
    """`folder` at `inside`, writable by this run only: its writes land in `upper` (the run's scratch).

    Its folders, small files near the top and lock files are given to the command's user (a tool
    writes its locks and bookkeeping there); the change is the overlay's, copied up into `upper`: the
    folder underneath is never touched. Shown where a link to it stood (a virtualenv in the copy, which
    `python3 -m venv` refuses to make over a link), the link gives way to it."""
    if os.path.islink(root + inside):
        os.unlink(root + inside)
    target = _mkdir(root, inside)
    options = f"lowerdir={folder},upperdir={upper},workdir={upper}-work"
    try:
        _mount("overlay", target, "overlay", MS_NOSUID | MS_NODEV, options)
    except OSError as exc:
        notes.append(f"{inside} is read-only: no overlay here ({exc})")
        _expose(root, folder, read_only=True, notes=notes, at=inside)
        return
    base = target.rstrip("/").count("/")
    for here, _, files in os.walk(target, followlinks=False):
        shallow = here.rstrip("/").count("/") - base < OVERLAY_OWNED_DEPTH
        given = [n for n in files if (shallow or n.endswith(".lock")) and _small_file(os.path.join(here, n))]
        for path in (here, *(os.path.join(here, name) for name in given)):
            with contextlib.suppress(OSError):
                os.chown(path, owner, owner, follow_symlinks=False)


def _small_file(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size <= OVERLAY_OWNED_FILE_BYTES


def _read_only(path: str) -> bool:
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def _device_nodes(root: str, notes: list[str]) -> None:
    """The few devices programs expect, plus a private /dev/shm."""
    dev = _mkdir(root, "/dev")
    for name in DEVICES:
        source = f"/dev/{name}"
        if os.path.exists(source):
            open(f"{dev}/{name}", "a").close()
            try:
                _mount(source, f"{dev}/{name}", None, MS_BIND)
            except OSError as exc:
                notes.append(f"/dev/{name} unavailable: {exc}")
    _mount("tmpfs", _mkdir(root, "/dev/shm"), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, f"{dev}/{name}")


def bind_listeners(config: InitConfig) -> tuple[list[str], list[int]]:
    """Bind the kit's server sockets inside the namespace, before any candidate code runs."""
    names: list[str] = []
    fds: list[int] = []
    for spec in config.listen:
        if not spec.address.startswith("127."):
            raise ValueError(f"{spec.name}: {spec.address} is not a loopback address")
        kind = socket.SOCK_DGRAM if spec.protocol == "udp" else socket.SOCK_STREAM
        sock = socket.socket(socket.AF_INET, kind)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((spec.address, spec.port))
        if kind == socket.SOCK_STREAM:
            sock.listen(128)
        names.append(spec.name)
        fds.append(sock.detach())
    return names, fds


def set_limits(limits: RunLimits) -> None:
    """Apply resource limits to this process (inherited by the command)."""
    for name, value in dataclasses.asdict(limits).items():
        which = RLIMITS.get(name)
        if which is not None and value:
            # A hard CPU limit above the soft one lets SIGXCPU (a readable cause) arrive first.
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))


def exec_command(config: InitConfig, report_fd: int | None = None) -> None:
    """Become the candidate's command: limits, umask, working folder, then exec."""
    if config.isolate:
        os.setsid()  # without a PID namespace the supervisor's session is what the kit kills
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    if config.cpus:
        os.sched_setaffinity(0, config.cpus)
    os.umask(config.umask)
    set_limits(config.limits)
    os.chdir(config.workdir if config.isolate and config.workdir else config.cwd)
    if report_fd is not None:
        os.dup2(report_fd, REPORT_FD)  # dup2 clears close-on-exec: the wrapper writes here
    os.execve(config.argv[0], list(config.argv), dict(config.env))


def run_init(config: InitConfig) -> int:
    """PID 1 of the new PID namespace: start the command, reap orphans, report its status."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # Containers with a masked /proc refuse a new one; the host's view then stays.
    with contextlib.suppress(OSError):
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if config.hostname:
        _libc.sethostname(config.hostname.encode(), len(config.hostname))
    # Returning ends PID 1, and the kernel kills whatever the command left behind.
    return start_and_supervise(config, inside_pid_namespace=True)


def start_and_supervise(config: InitConfig, *, inside_pid_namespace: bool) -> int:
    """Fork the command (with the exit-report pipe when traced) and supervise it."""
    read_end, write_end = os.pipe() if config.traced else (None, None)
    child = os.fork()
    if child == 0:
        try:
            if read_end is not None:
                os.close(read_end)
            exec_command(config, write_end)
        finally:
            os._exit(127)
    if write_end is not None:
        os.close(write_end)
    return supervise(child, read_end, inside_pid_namespace=inside_pid_namespace)


def _kill_others(keep: set[int], tracer: int | None) -> None:
    """End everything the command left running, but the tracer (so it can flush its log)."""
    if tracer is not None:  # no PID namespace: the tracer's descendants are all we can name
        for pid in _descendants(tracer):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in keep:
            with contextlib.suppress(OSError):
                os.kill(int(name), signal.SIGKILL)


def _descendants(root: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(name))
    found, stack = [], list(parents.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack += parents.get(pid, [])
    return found


def supervise(first: int, report: int | None, *, inside_pid_namespace: bool) -> int:
    """Wait for the command; under strace, end leftovers once the command itself has exited.

    strace -f only exits when every traced process has, so a detached grandchild would keep
    a finished command "running" until the timeout. Under strace the command runs in a small
    shell wrapper that writes its exit status to the `report` pipe.
    """
    reported: int | None = None
    deadline: float | None = None
    buffer = b""
    if report is not None:
        os.set_blocking(report, False)
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return 127 if reported is None else reported
        if pid == first:
            return _encode(status) if reported is None else reported
        if pid:
            continue  # an orphan reparented to us: reaped
        if report is not None and reported is None:
            try:
                chunk = os.read(report, 64)
            except BlockingIOError:
                chunk = None
            if chunk:
                buffer += chunk
            if chunk == b"" or b"\n" in buffer:
                text = buffer.decode(errors="replace").strip()
                reported = int(text) if text.isdigit() else 127
                _kill_others({first, os.getpid()}, None if inside_pid_namespace else first)
                deadline = time.monotonic() + 5
        if deadline is not None and time.monotonic() > deadline:
            with contextlib.suppress(OSError):
                os.kill(first, signal.SIGKILL)
        time.sleep(0.01)


def _encode(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def main(argv: list[str]) -> int:
    """Entry point; see the module docstring for the protocol."""
    config = InitConfig.from_json(argv[1])
    ctrl = socket.socket(fileno=int(argv[2]))
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    notes: list[str] = []
    isolate = config.isolate
    if isolate:
        try:
            enter_namespaces(as_root=config.as_root)
        except OSError as exc:
            _send(ctrl, {"event": "unavailable", "error": str(exc), "errno": exc.errno})
            return EXIT_UNAVAILABLE
        try:
            loopback_up()
            arrange_mounts(config, notes)
            names, fds = bind_listeners(config)
        except OSError as exc:
            _send(ctrl, {"event": "unavailable", "error": f"namespace setup failed: {exc}"})
            return EXIT_UNAVAILABLE
    else:
        names, fds = [], []
    _send(ctrl, {"event": "ready", "sockets": names, "notes": notes}, fds)
    for fd in fds:
        os.close(fd)
    go = json.loads(ctrl.recv(65536) or b"{}")
    if go.get("event") != "go":
        return EXIT_SETUP_FAILED
    pid = os.fork()
    if pid == 0:
        ctrl.close()
        if isolate:
            os._exit(run_init(config))
        os.setsid()
        os._exit(start_and_supervise(config, inside_pid_namespace=False))
    _send(ctrl, {"event": "started", "pid": pid})
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            status = 127 << 8
            break
    code = _encode(status)
    try:
        _send(ctrl, {"event": "exit", "code": code})
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
