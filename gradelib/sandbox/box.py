"""Run one command of a submission on a fresh copy: namespaces, connection log, limits, timeout.

The only module that starts candidate processes. Each `Sandbox` owns a
workspace folder of fresh copies; each `run` starts ``nsinit.py``, which enters
new network / mount / PID namespaces (through a user namespace when not root),
binds the kit's server sockets inside and hands them back, then execs the
command under strace (every attempted connection logged) as an unprivileged
user, with resource limits and a scrubbed environment. On timeout the PID
namespace's init is killed, which takes the whole process tree with it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

from gradelib.errors import SandboxUnavailable, UnsafeFile
from gradelib.sandbox import connlog, diskcap, launched, nsinit, safefs
from gradelib.sandbox.dnslog import RESOLV_CONF, DnsLog
from gradelib.sandbox.masking import mask
from gradelib.sandbox.mounts import NODE_MODULES, VENV_LINK, Mounts

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
ENV_FORCE_NO_NAMESPACES = "GRADELIB_NO_NAMESPACES"
ROOM_WAIT_S = 20.0  # how long a kit write waits for a run beside it that filled the workspace to be stopped
T = TypeVar("T")
CANDIDATE_UID_FIRST = 200_000
CANDIDATE_UID_COUNT = 60_000
LIBFAKETIME_GLOBS = ("/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1")
MAX_TRACE_BYTES = 32 * 1024 * 1024
OUTPUT_KILL_FACTOR = 16
TAIL_BYTES = 64 * 1024
# Set only for the command itself, after the kit's wrappers (strace, setpriv) have run: a preloaded
# library such as libfaketime would otherwise start inside them, as root, and own its shared memory.
LATE_ENV_PREFIXES = ("LD_", "FAKETIME")
# Under strace the command runs as a child of this wrapper, which reports its exit status on fd 3
# (see nsinit.supervise); the command itself never sees fd 3.
EXIT_REPORTER = '"$@" 3>&-; code=$?; echo "$code" >&3; exit "$code"'

IsolationMode = Literal["root-namespaces", "user-namespaces", "none"]
OFFLINE_TOOLS = {
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    "npm_config_offline": "true",
    "UV_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
    "YARN_ENABLE_TELEMETRY": "0",
}
KIT_LOG = "kit.log"  # in a run's scratch: what the kit's helpers in the sandbox (run wrappers) report
KIT_LOG_ENV = "GRADELIB_KIT_LOG"
MAX_KIT_LOG_BYTES = 256 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one run; the defaults suit a take-home's whole run."""

    wall_seconds: float = 60.0
    cpu_seconds: int = 60
    memory_bytes: int = 1024**3  # RLIMIT_DATA: Node and Python start; a 3 GB allocation fails
    processes: int = 256  # threads count too, and Node starts about ten
    file_bytes: int = 64 * 1024**2
    open_files: int = 512
    output_bytes: int = 1024**2  # kept of stdout and of stderr each; the rest is counted


@dataclass(frozen=True)
class Service:
    """A kit server the command may reach on loopback (model stub, gateway)."""

    name: str
    port: int
    serve: Callable[[socket.socket], AbstractContextManager[Any]]
    env: Mapping[str, str] = field(default_factory=dict)  # values may use {host} and {port}


@dataclass(frozen=True)
class Isolation:
    """How well a run was isolated, and why."""

    mode: IsolationMode
    reason: str

    @property
    def network_verified(self) -> bool:
        """True when network was really off and attempts were really logged."""
        return self.mode != "none"


@dataclass(frozen=True)
class RunResult:
    """What one sandboxed command did."""

    argv: tuple[str, ...]
    cwd: str
    exit_code: int | None
    timed_out: bool
    stopped: bool
    output_limit_hit: bool
    duration: float
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    connections: tuple[connlog.Connection, ...]
    dns_names: tuple[str, ...]
    opened: tuple[str, ...]
    isolation: Isolation
    traced: bool
    notes: tuple[str, ...] = ()
    disk_limit_hit: bool = False  # killed: the grading's capped writable space was full
    disk_limit_bytes: int | None = None  # that cap; None where disk is not bounded
    kit_log: tuple[str, ...] = ()  # lines the kit's own helpers in the sandbox wrote (run wrappers' uses)

    @property
    def ok(self) -> bool:
        """Exited 0 on its own."""
        killed = self.timed_out or self.stopped or self.output_limit_hit or self.disk_limit_hit
        return self.exit_code == 0 and not killed

    @property
    def network_attempts(self) -> tuple[connlog.Connection, ...]:
        """Attempts to reach an IP address (loopback included)."""
        return tuple(connlog.network_only(self.connections))

    def status(self) -> str:
        """One readable phrase: `exit 0`, `killed after 60 s (timeout)`."""
        if self.timed_out:
            return f"killed after {self.duration:.0f} s (timeout)"
        if self.output_limit_hit:
            return "killed: printed more than the output limit"
        if self.disk_limit_hit:
            return f"killed: disk limit reached (its grading's {_mib(self.disk_limit_bytes)} of writable space is full)"
        if self.stopped:
            return "stopped by the kit"
        return f"exit {self.exit_code}"

    def tail(self, stream: Literal["stdout", "stderr"] = "stderr", lines: int = 15) -> str:
        """The last lines of stdout or stderr."""
        return "\n".join(getattr(self, stream).splitlines()[-lines:])

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary for reports."""
        return {
            "command": " ".join(self.argv),
            "status": self.status(),
            "exit_code": self.exit_code,
            "duration_s": round(self.duration, 2),
            "stdout_tail": self.tail("stdout"),
            "stderr_tail": self.tail("stderr"),
            "connections": [c.describe() for c in self.network_attempts],
            "dns_names": list(self.dns_names),
            "isolation": self.isolation.mode,
        }


_refused: str | None = None  # why namespaces failed once in this process; not retried
_disk_told = False  # whether a run of this process has said that disk use is not bounded


def _mib(count: int | None) -> str:
    return f"{(count or 0) // 2**20} MiB"


def libfaketime() -> str | None:
    """Path of libfaketime on this machine, if installed."""
    for pattern in LIBFAKETIME_GLOBS:
        found = sorted(Path("/").glob(pattern.lstrip("/")))
        if found:
            return str(found[0])
    return None


def _real_root() -> bool:
    """Root of the initial user namespace, able to switch to any uid (not root inside a userns)."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/uid_map") as handle:
            return handle.read().split() == ["0", "0", "4294967295"]
    except OSError:
        return False


def base_environment(home: Path, tmp: Path) -> dict[str, str]:
    """The scrubbed environment every sandboxed command starts from (nothing of the reviewer's)."""
    return {
        "PATH": SANDBOX_PATH,
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "USER": "candidate",
        "LOGNAME": "candidate",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_COLOR": "1",
        # Packages are installed before the run; a `pip install` in run.sh must not reach for an index.
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
        # Nor do npm's update notifier, its audit and funding calls, or tools' telemetry: offline is the rule,
        # and a connection the kit's tools attempt must never count against the candidate.
        **OFFLINE_TOOLS,
    }


def tool(name: str) -> str | None:
    """A system tool the sandbox uses (strace, setpriv), found on the sandbox PATH."""
    return shutil.which(name, path=SANDBOX_PATH)


class Sandbox(AbstractContextManager["Sandbox"]):
    """A workspace of fresh copies of one submission, and the runs made in them.

    The opt-in builds from source use it the same way, with an unpacked sdist as the source
    and the build virtualenv as its mounts (`environment/sourcebuild.py`).
    """

    def __init__(
        self,
        source: Path,
        *,
        isolate: bool = True,
        mounts: Mounts | None = None,
        disk_bytes: int | None = None,
        link_venv: bool = True,
    ) -> None:
        """`disk_bytes` caps the whole workspace (default `diskcap.configured_limit()`).

        `link_venv` puts a `.venv` link to the mounted virtualenv in every copy (not for builds).
        """
        self.link_venv = link_venv
        self.source = Path(source)
        self.disk_bytes = disk_bytes
        self.disk = diskcap.DiskCap(Path(), None, "not entered")
        self.mounts = mounts or Mounts()
        self.isolate = isolate and not os.environ.get(ENV_FORCE_NO_NAMESPACES)
        self.as_root = _real_root()
        self.uid = CANDIDATE_UID_FIRST + secrets.randbelow(CANDIDATE_UID_COUNT) if self.as_root else os.getuid()
        self.root = Path()
        self._counter = 0
        self._lock = threading.Lock()
        self.kit_log: tuple[str, ...] = ()  # every run's kit log lines, in the order the runs ended

    def __enter__(self) -> Sandbox:
        self.disk = diskcap.workspace(self.disk_bytes)
        self.root = self.disk.folder
        os.chmod(self.root, 0o711)
        return self

    def path_prefix(self) -> list[str]:
        """What comes before the PATH of every run: the installed packages' bin (which runs `python`)."""
        return list(self.mounts.bin_dirs)

    def __exit__(self, *exc: object) -> None:
        diskcap.release(self.disk)  # a capped workspace is unmounted: everything in it is gone at once
        _remove_tree(self.root)

    def _next(self, label: str) -> Path:
        with self._lock:  # checks run side by side in threads
            self._counter += 1
            return self.root / f"{self._counter:02d}-{label}"

    def with_room(self, write: Callable[[], T]) -> T:
        """Do one of the kit's own writes in the workspace (`write` must be safe to repeat). When a run beside
        it has filled the capped workspace, wait for that run to be stopped and its files freed, then again."""
        deadline = time.monotonic() + ROOM_WAIT_S
        while True:
            try:
                return write()
            except OSError as exc:
                if exc.errno != errno.ENOSPC or not self.disk.bounded or time.monotonic() > deadline:
                    raise
            time.sleep(0.1)

    def copy(self, label: str, *, reverse_order: bool = False, nest: str = "", include_git: bool = False) -> Path:
        """A fresh copy of the submission, writable by the sandbox user."""
        return self.with_room(lambda: self._copy(label, reverse_order, nest, include_git))

    def _copy(self, label: str, reverse_order: bool, nest: str, include_git: bool) -> Path:
        base = self._next(label)
        base.mkdir(mode=0o711)
        target = base / nest / "submission" if nest else base / "submission"
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o711)
            safefs.copy_tree(self.source, target, reverse_order=reverse_order, include_git=include_git)
        except OSError:
            _remove_tree(base)  # a copy cut short by a full disk takes no room from the next one
            raise
        if self.mounts.node_modules is not None:
            link_node_modules(target, self.mounts.node_modules)
        if self.mounts.venv is not None and self.link_venv:
            link_venv(target, self.mounts.venv)
        if self.as_root:
            safefs.chown_tree(target, self.uid, self.uid)
        return target

    def output_folder(self, copy: Path, name: str) -> Path:
        """An empty folder beside `copy` that runs in that copy may write (a build's wheel), for the kit to read after.

        It is inside the copy's own writable folder (see `writable`), so nothing else becomes writable;
        the kit must read what it holds as untrusted (links, sizes).
        """
        folder = copy.parent / name
        folder.mkdir(mode=0o711)
        if self.as_root:
            os.chown(folder, self.uid, self.uid)
        return folder

    def kit_file(self, name: str, data: bytes) -> Path:
        """Put a kit-provided file (a driver script) where the sandbox user can read it."""
        folder = self.root / "kit"
        folder.mkdir(mode=0o755, exist_ok=True)
        target = folder / name
        target.write_bytes(data)
        os.chmod(target, 0o644)
        return target

    def run(
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        env: Mapping[str, str] | None = None,
        limits: Limits = Limits(),
        services: Sequence[Service] = (),
        stop_when: Callable[[], bool] | None = None,
        trace_files: bool = False,
        umask: int = 0o022,
        cpus: Sequence[int] | None = None,
        hostname: str = "sandbox",
        machine: Path | None = None,
    ) -> RunResult:
        """Run `argv` in the copy `cwd` and report what happened. Never raises for candidate faults.

        `machine` (from `machine()`) is the HOME, TMPDIR and /tmp of an earlier run: a process
        restarted on the same machine. Without it every run gets its own.
        """
        global _refused
        scratch = machine if machine is not None else self.machine()
        isolate = self.isolate and _refused is None
        call = _Call(self, argv, cwd, scratch, env or {}, limits, services, trace_files, umask, cpus, hostname)
        call.keeps_machine = machine is not None
        result = call.start(isolate, stop_when)
        if result is None:  # namespaces refused: say so, run without them
            _refused = call.refusal
            result = call.start(False, stop_when)
            if result is None:
                raise SandboxUnavailable(f"the sandbox cannot start even without namespaces: {call.refusal}")
        if result.disk_limit_hit:
            self._free(Path(cwd), scratch)
        with self._lock:
            self.kit_log += result.kit_log
        return result

    def machine(self) -> Path:
        """A run's scratch: its HOME, its TMPDIR (also its /tmp) and the kit's log; pass it to `run` to keep it."""
        return self.with_room(self._machine)

    def _machine(self) -> Path:
        scratch = self._next("run")
        scratch.mkdir(mode=0o711)
        home, tmp = scratch / "home", scratch / "tmp"
        for folder in (home, tmp):
            folder.mkdir()
            if self.as_root:
                os.chown(folder, self.uid, self.uid)
        os.chmod(tmp, 0o1777)  # also the run's /tmp: inside the capped workspace, not beside it
        return scratch

    def writable(self, cwd: Path, scratch: Path) -> list[str]:
        """What one run may write: its own copy's folder and its scratch (HOME, TMPDIR), nothing else.

        Runs side by side cannot touch each other's copies, and what a run that filled the
        disk wrote is exactly what `_free` removes.
        """
        try:
            top = self.root / Path(cwd).resolve().relative_to(self.root.resolve()).parts[0]
        except (ValueError, IndexError):
            return [str(self.root)]  # a working folder outside the workspace: the old, coarser rule
        return [str(top), str(scratch)]

    def _free(self, cwd: Path, scratch: Path) -> None:
        """Empty what a run that filled the disk could write, so the grading's next runs have room."""
        writable = self.writable(cwd, scratch)
        if writable == [str(self.root)]:
            return  # a working folder outside the workspace: what it wrote cannot be told apart
        home, tmp = scratch / "home", scratch / "tmp"
        for folder in (Path(writable[0]), home, tmp):
            _remove_tree(folder)
        Path(writable[0]).mkdir(mode=0o711)
        cwd.mkdir(parents=True, exist_ok=True, mode=0o711)
        for folder in (home, tmp):
            folder.mkdir()
        os.chmod(tmp, 0o1777)
        if self.as_root:
            for folder in (home, tmp, cwd):
                os.chown(folder, self.uid, self.uid)


class _Call:
    """One `Sandbox.run`: launch, serve, watch, collect."""

    def __init__(
        self,
        box: Sandbox,
        argv: Sequence[str],
        cwd: Path,
        scratch: Path,
        env: Mapping[str, str],
        limits: Limits,
        services: Sequence[Service],
        trace_files: bool,
        umask: int,
        cpus: Sequence[int] | None,
        hostname: str,
    ) -> None:
        self.box, self.argv, self.cwd, self.scratch = box, tuple(argv), cwd, scratch
        self.env, self.limits, self.services = env, limits, services
        self.trace_files, self.umask, self.cpus, self.hostname = trace_files, umask, cpus, hostname
        self.refusal = ""
        self.keeps_machine = False

    def _environment(self, ports: Mapping[str, int]) -> dict[str, str]:
        base = base_environment(self.scratch / "home", self.scratch / "tmp")
        base[KIT_LOG_ENV] = str(self._kit_log())
        base.update(self.box.mounts.run_env(self.cwd))
        for service in self.services:
            for key, value in service.env.items():
                base[key] = value.format(host="127.0.0.1", port=ports[service.name])
        base.update({k: v for k, v in self.env.items() if not k.startswith(LATE_ENV_PREFIXES)})
        base["PATH"] = ":".join([*self.box.path_prefix(), base["PATH"]])
        return base

    def _command(self, isolate: bool, trace: str | None) -> list[str]:
        command = list(self.argv)
        path = ":".join([*self.box.path_prefix(), self.env.get("PATH", SANDBOX_PATH)])
        resolved = shutil.which(command[0], path=path) if "/" not in command[0] else command[0]
        command[0] = resolved or command[0]
        late = [f"{k}={v}" for k, v in self.env.items() if k.startswith(LATE_ENV_PREFIXES)]
        if late:
            command = [tool("env") or "/usr/bin/env", *late, *command]
        setpriv = tool("setpriv")
        if self.box.as_root and setpriv:
            uid = str(self.box.uid)
            command = [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs", "--"] + command
        elif isolate and setpriv:
            command = [setpriv, "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"] + command
        strace = tool("strace")
        if trace and strace:
            calls = connlog.TRACED_NETWORK + (connlog.TRACED_FILES if self.trace_files else ())
            command = [
                strace,
                "-f",
                "-qq",
                "--seccomp-bpf",
                "-e",
                "signal=none",
                "-e",
                "trace=" + ",".join(calls),
                "-o",
                trace,
                "--",
                tool("sh") or "/bin/sh",
                "-c",
                EXIT_REPORTER,
                "gradelib-wrapper",
            ] + command
        return command

    def _limits(self, isolate: bool) -> nsinit.RunLimits:
        processes = self.limits.processes
        if not self.box.as_root:
            # RLIMIT_NPROC counts all of this user's processes, not only the sandbox's.
            processes += sum(1 for name in os.listdir("/proc") if name.isdigit())
        return nsinit.RunLimits(
            cpu_seconds=self.limits.cpu_seconds,
            memory_bytes=self.limits.memory_bytes,
            processes=processes,
            file_bytes=self.limits.file_bytes,
            open_files=self.limits.open_files,
        )

    def start(self, isolate: bool, stop_when: Callable[[], bool] | None) -> RunResult | None:
        """Run once; None when namespaces were refused (self.refusal says why)."""
        trace, resolv, root_dir = self.box.with_room(self._scratch_files)
        with ExitStack() as stack:
            ports, local = self._ports(isolate)
            config = self._init_config(isolate, trace, resolv, root_dir, ports)
            parent = stack.enter_context(_ControlSocket())
            started = time.monotonic()
            proc = self._launch(config, parent)
            stack.callback(_reap, proc)
            message, fds = _receive(parent.ours)
            if message.get("event") == "unavailable":
                self.refusal = str(message.get("error", "namespaces refused"))
                proc.wait()
                return None
            if message.get("event") != "ready":
                raise SandboxUnavailable(f"sandbox init failed: {proc.stderr.read().decode() if proc.stderr else ''}")
            setup_notes = [str(note) for note in message.get("notes", [])]  # what the child could not arrange
            dns = self._serve(stack, message, fds, local)
            parent.ours.send(json.dumps({"event": "go"}).encode())
            message, _ = _receive(parent.ours)
            pid = int(message.get("pid", 0))
            out = _Capture(proc.stdout, self.limits.output_bytes)
            err = _Capture(proc.stderr, self.limits.output_bytes)
            why = _watch(proc, started + self.limits.wall_seconds, stop_when, (out, err), self.box.disk.full)
            if why:
                _kill(pid, isolate)
            code = proc.wait()
            if not isolate:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(pid, signal.SIGKILL)  # what the command left in its group
            duration = time.monotonic() - started
            out.join()
            err.join()
        notes = setup_notes + self._disk_notes(why == "disk")
        ended = _Ended(why, None if why else code, duration, out, err)
        return self._result(isolate, ended, notes, dns, Path(trace))

    def _scratch_files(self) -> tuple[str, Path, Path]:
        """The run's trace log path, its resolv.conf (the logging resolver) and the folder its root is built in."""
        trace = str(self.scratch / "trace.log")
        resolv = self.scratch / "resolv.conf"
        resolv.write_text(RESOLV_CONF)
        os.chmod(resolv, 0o644)
        root_dir = self.scratch / "root"  # the sandbox's minimal root is mounted here, then pivoted into
        root_dir.mkdir(exist_ok=True)
        return trace, resolv, root_dir

    def _ports(self, isolate: bool) -> tuple[dict[str, int], dict[str, socket.socket]]:
        """Each service's port, and (not isolated) the sockets the grader listens on itself."""
        if isolate:
            return {service.name: service.port for service in self.services}, {}
        ports: dict[str, int] = {}
        local: dict[str, socket.socket] = {}
        for service in self.services:  # the kit's servers go on the real loopback, on free ports
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sock.listen(128)
            local[service.name], ports[service.name] = sock, sock.getsockname()[1]
        return ports, local

    def _init_config(
        self, isolate: bool, trace: str, resolv: Path, root_dir: Path, ports: Mapping[str, int]
    ) -> nsinit.InitConfig:
        """What the child needs to build the sandbox and start the command."""
        listen = [nsinit.Listener(s.name, s.port, "tcp") for s in self.services]
        listen.append(nsinit.Listener("dns", 53, "udp"))
        argv = self._command(isolate, trace)
        return nsinit.InitConfig(
            isolate=isolate,
            as_root=self.box.as_root,
            listen=tuple(listen),
            resolv_conf=str(resolv),
            root_dir=str(root_dir),
            writable=tuple(self.box.writable(self.cwd, self.scratch)),
            read_only=(*self.box.mounts.read_only, *self._kit_folder()),
            # the run's /tmp: in the capped workspace; also where a restarted process finds what it left
            tmp=str(self.scratch / "tmp") if self.box.disk.bounded or self.keeps_machine else None,
            cwd=str(self.cwd),
            argv=tuple(argv),
            traced=argv[0] == tool("strace"),
            env=self._environment(ports),
            limits=self._limits(isolate),
            umask=self.umask,
            cpus=tuple(self.cpus) if self.cpus else None,
            hostname=self.hostname,
        )

    def _launch(self, config: nsinit.InitConfig, control: _ControlSocket) -> launched.Process:
        """Start nsinit with the configuration and its end of the control socket (forked by the launcher)."""
        # the reviewer's environment stops here, even for /proc/1/environ
        proc = launched.start_nsinit(nsinit.__file__, config.to_json(), control.theirs, {"PATH": SANDBOX_PATH})
        control.theirs.close()
        return proc

    def _serve(
        self, stack: ExitStack, ready: Mapping[str, Any], fds: list[int], local: Mapping[str, socket.socket]
    ) -> DnsLog:
        """Serve the logging resolver and the kit's servers on the sockets the child bound (else `local`)."""
        received = {name: socket.socket(fileno=fd) for name, fd in zip(ready["sockets"], fds, strict=True)}
        dns = DnsLog()
        if "dns" in received:
            stack.enter_context(dns.serve(received.pop("dns")))
        for service in self.services:
            sock = received.get(service.name) or local[service.name]
            stack.enter_context(service.serve(sock))
        return dns

    def _result(self, isolate: bool, ended: _Ended, notes: list[str], dns: DnsLog, trace: Path) -> RunResult:
        """What the run did, with the kit's own paths masked."""
        log = _read_trace(trace)
        traced = tool("strace") is not None
        if not traced:
            notes.append("strace is not installed: attempted connections were not logged")
        hide = _placeholders(self.box.root, self.scratch, self.cwd)  # the kit's paths vary; never candidate text
        hide |= dict(self.box.mounts.placeholders)  # the cache folder is the machine's, not the candidate's
        why = ended.why
        return RunResult(
            argv=tuple(mask(arg, hide) for arg in self.argv),
            cwd=mask(str(self.cwd), hide),
            exit_code=ended.exit_code,
            timed_out=why == "timeout",
            stopped=why == "stopped",
            output_limit_hit=why == "output",
            duration=ended.duration,
            stdout=mask(ended.out.text(), hide),
            stderr=mask(ended.err.text(), hide),
            stdout_bytes=ended.out.total,
            stderr_bytes=ended.err.total,
            connections=tuple(connlog.parse_connections(log, dns.hosts)),
            dns_names=dns.names,
            opened=tuple(mask(path, hide) for path in connlog.parse_opened(log)) if self.trace_files else (),
            isolation=self._isolation(isolate),
            traced=traced,
            notes=tuple(mask(note, hide) for note in notes),
            disk_limit_hit=why == "disk",
            disk_limit_bytes=self.box.disk.limit,
            kit_log=tuple(mask(line, hide) for line in self._read_kit_log()),
        )

    def _kit_log(self) -> Path:
        """The run's kit log, made empty and writable by the sandbox's user (the scratch itself is not)."""
        path = self.scratch / KIT_LOG
        if path.is_symlink() or path.exists():
            path.unlink()
        path.touch(mode=0o600)
        if self.box.as_root:
            os.chown(path, self.box.uid, self.box.uid)
        return path

    def _read_kit_log(self) -> list[str]:
        try:
            data = safefs.read_file(self.scratch, KIT_LOG, MAX_KIT_LOG_BYTES) or b""
        except UnsafeFile:
            return []
        return data.decode("utf-8", errors="replace").splitlines()

    def _kit_folder(self) -> list[str]:
        kit = self.box.root / "kit"  # kit files (the payments driver), read-only to every run
        return [str(kit)] if kit.is_dir() else []

    def _disk_notes(self, full: bool) -> list[str]:
        global _disk_told
        disk = self.box.disk
        if full:
            return [
                f"disk limit: the run filled the {disk.describe()} of writable space its grading gets"
                " (copies, HOME, /tmp); the kit stopped it and emptied what it wrote"
            ]
        if not disk.bounded and not _disk_told:
            _disk_told = True
            return [f"disk use is {disk.describe()}"]
        return []

    def _isolation(self, isolate: bool) -> Isolation:
        if isolate:
            mode: IsolationMode = "root-namespaces" if self.box.as_root else "user-namespaces"
            return Isolation(mode, "own network, mount and PID namespaces; loopback only")
        if not self.box.isolate:
            return Isolation("none", f"namespaces turned off ({ENV_FORCE_NO_NAMESPACES} or isolate=False)")
        return Isolation("none", f"namespaces unavailable on this machine: {_refused or self.refusal}")


def _placeholders(root: Path, scratch: Path, cwd: Path) -> dict[str, str]:
    """The workspace paths of one run as its result shows them (they differ on every run)."""
    paths = {root: "<sandbox>", scratch: "<run>"}
    if cwd.is_relative_to(root) and cwd != root:
        paths[root / cwd.relative_to(root).parts[0]] = "<copy>"  # NN-label: a kit folder name
    paths[cwd] = "<submission>"
    return {text: shown for path, shown in paths.items() for text in (str(path), os.path.realpath(path))}


class _ControlSocket:
    """The AF_UNIX pair the grader and nsinit talk over: `ours` kept, `theirs` passed to the child."""

    def __init__(self) -> None:
        self.ours, self.theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ours.settimeout(30)

    def __enter__(self) -> _ControlSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.ours.close()


@dataclass(frozen=True)
class _Ended:
    """How a run ended: why the kit stopped it (None: it exited), its exit code, its captured output."""

    why: str | None
    exit_code: int | None
    duration: float
    out: _Capture
    err: _Capture


class _Capture:
    """Reads one output stream in a thread, keeping the first `cap` bytes."""

    def __init__(self, stream: IO[bytes] | None, cap: int) -> None:
        self.cap, self.total, self.chunks = cap, 0, bytearray()
        self.last = bytearray()  # the last TAIL_BYTES: where a flood would push a final result line
        self.fd = stream.fileno() if stream is not None else None
        self.stream = stream
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        if self.fd is None:
            return
        while not self.stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.total += len(chunk)
            if len(self.chunks) < self.cap:
                self.chunks += chunk[: self.cap - len(self.chunks)]
            elif self.total > self.cap:
                self.last += chunk[-TAIL_BYTES:]
                del self.last[:-TAIL_BYTES]

    @property
    def flooding(self) -> bool:
        return self.total > self.cap * OUTPUT_KILL_FACTOR

    def join(self) -> None:
        """Wait briefly for the rest; a process that escaped with our pipe must not block us."""
        self.thread.join(timeout=2)
        self.stop.set()
        self.thread.join()
        if self.stream is not None:
            self.stream.close()

    def text(self) -> str:
        """The first `cap` bytes and, past them, a marker and the last TAIL_BYTES."""
        body = self.chunks.decode("utf-8", errors="replace")
        skipped = self.total - len(self.chunks) - len(self.last)
        if skipped > 0:
            body += f"\n[... {skipped} bytes not kept ...]\n"
        return body + self.last.decode("utf-8", errors="replace")


def link_venv(copy: Path, venv: Path) -> None:
    """`copy/.venv`: a link to the installed virtualenv, so `.venv/bin/python` and `source .venv/bin/activate` work.

    A shipped `.venv` is replaced: what runs is what the kit installed from the declaration.
    """
    target = copy / VENV_LINK
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        _remove_tree(target)
    target.symlink_to(venv)


def link_node_modules(copy: Path, installed: Path) -> None:
    """`copy/node_modules`: a folder of links into the installed (read-only) packages.

    A shipped node_modules is replaced: the kit installs what the lockfile says. The folder
    itself stays writable, for the caches test runners keep there (`node_modules/.vite`).
    """
    target = copy / NODE_MODULES
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        _remove_tree(target)
    target.mkdir()
    for entry in sorted(os.listdir(installed)):
        if entry != ".package-lock.json":
            (target / entry).symlink_to(installed / entry)


def _watch(
    proc: launched.Process,
    deadline: float,
    stop_when: Callable[[], bool] | None,
    captures: Sequence[_Capture],
    disk_full: Callable[[], bool] = lambda: False,
) -> str:
    """Wait for the command; return why the kit must kill it ("" if it ended on its own)."""
    while True:
        try:
            proc.wait(timeout=0.05)
            return ""
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() > deadline:
            return "timeout"
        if any(c.flooding for c in captures):
            return "output"
        if disk_full():
            return "disk"
        if stop_when is not None and stop_when():
            return "stopped"


def _kill(pid: int, isolate: bool) -> None:
    """Kill the command's whole tree: its PID namespace's init, or its process group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if isolate:
            os.kill(pid, signal.SIGKILL)
        else:
            os.killpg(pid, signal.SIGKILL)


def _reap(proc: launched.Process) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, 65536, 16)
    except (TimeoutError, OSError) as exc:
        raise SandboxUnavailable(f"sandbox init did not answer: {exc}") from exc
    if not data:
        raise SandboxUnavailable("sandbox init exited before it was ready")
    return json.loads(data), list(fds)


def _read_trace(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_TRACE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _remove_tree(root: Path) -> None:
    """Delete a workspace, however deep or locked the candidate made it, never following a link.

    `shutil.rmtree` recurses (a 1,500-level folder breaks it on 3.11) and, to unlock, chmods
    what may be a link to the reviewer's files; `chmod -R` skips links and `rm -rf` is iterative.
    """
    if not root.exists():
        return
    subprocess.run(["chmod", "-R", "u+rwX", str(root)], capture_output=True, check=False)
    subprocess.run(["rm", "-rf", "--one-file-system", str(root)], capture_output=True, check=False)


@contextlib.contextmanager
def sandbox(source: Path, *, isolate: bool = True) -> Iterator[Sandbox]:
    """`Sandbox` as a function-style context manager."""
    with Sandbox(source, isolate=isolate) as box:
        yield box
