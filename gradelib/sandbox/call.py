"""One run of a command in the sandbox: its environment, command line and limits, the namespaces' first
process launched and served, the run watched (deadline, output, disk, the kit's own stop), its result.

`Sandbox.run` makes one `Call` per command; the workspace it runs in is the `Sandbox` (`Workspace`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from gradelib.errors import SandboxUnavailable
from gradelib.sandbox import connlog, diskcap, launchclient, nsinit
from gradelib.sandbox.capture import Capture, read_trace
from gradelib.sandbox.dnslog import RESOLV_CONF, DnsLog
from gradelib.sandbox.environ import (
    ENV_FORCE_NO_NAMESPACES,
    EXIT_REPORTER,
    LATE_ENV_PREFIXES,
    SANDBOX_PATH,
    base_environment,
    tool,
)
from gradelib.sandbox.masking import mask
from gradelib.sandbox.mounts import OVERLAY, STABLE_SUBMISSION, WRITABLE, Mounts
from gradelib.sandbox.runresult import Isolation, IsolationMode, Limits, RunResult, Service

T = TypeVar("T")

_refused: list[str] = []  # why namespaces failed once in this process (then not tried again)
_disk_told = False  # whether a run of this process has said that disk use is not bounded


def refused() -> str | None:
    """Why namespaces were refused in this process, or None while they have not been."""
    return _refused[0] if _refused else None


def refuse(why: str) -> None:
    """Namespaces were refused: every later run of this process goes without them."""
    _refused[:] = [why]


class Workspace(Protocol):
    """What a run needs of the sandbox it runs in (a `Sandbox`)."""

    as_root: bool
    uid: int
    isolate: bool
    root: Path
    disk: diskcap.DiskCap
    mounts: Mounts

    def path_prefix(self) -> list[str]: ...

    def writable(self, cwd: Path, scratch: Path) -> list[str]: ...

    def with_room(self, write: Callable[[], T]) -> T: ...


class Call:
    """One `Sandbox.run`: launch, serve, watch, collect."""

    def __init__(
        self,
        box: Workspace,
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
        self.log_connections = True  # under strace (when installed), every attempted connection logged

    def _environment(self, ports: Mapping[str, int]) -> dict[str, str]:
        base = base_environment(self.scratch / "home", self.scratch / "tmp")
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
            out = Capture(proc.stdout, self.limits.output_bytes)
            err = Capture(proc.stderr, self.limits.output_bytes)
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
        listen = [nsinit.Listener(s.name, s.port, "tcp", s.address) for s in self.services]
        listen.append(nsinit.Listener("dns", 53, "udp"))
        argv = self._command(isolate, trace if self.log_connections else None)
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
            binds=self._binds(isolate),
            workdir=STABLE_SUBMISSION if isolate and self.box.mounts.stable_paths else None,
            argv=tuple(argv),
            traced=argv[0] == tool("strace"),
            env=self._environment(ports),
            limits=self._limits(isolate),
            umask=self.umask,
            cpus=tuple(self.cpus) if self.cpus else None,
            hostname=self.hostname,
        )

    def _launch(self, config: nsinit.InitConfig, control: _ControlSocket) -> launchclient.Process:
        """Start nsinit with the configuration and its end of the control socket (forked by the launcher)."""
        # the reviewer's environment stops here, even for /proc/1/environ
        proc = launchclient.start_nsinit(nsinit.__file__, config.to_json(), control.theirs, {"PATH": SANDBOX_PATH})
        control.theirs.close()
        return proc

    def _serve(
        self, stack: ExitStack, ready: Mapping[str, Any], fds: list[int], local: Mapping[str, socket.socket]
    ) -> DnsLog:
        """Serve the logging resolver and the kit's servers on the sockets the child bound (else `local`)."""
        received = {name: socket.socket(fileno=fd) for name, fd in zip(ready["sockets"], fds, strict=True)}
        dns = DnsLog({name: s.address for s in self.services for name in s.names})
        if "dns" in received:
            stack.enter_context(dns.serve(received.pop("dns")))
        for service in self.services:
            sock = received.get(service.name) or local[service.name]
            stack.enter_context(service.serve(sock))
        return dns

    def _result(self, isolate: bool, ended: _Ended, notes: list[str], dns: DnsLog, trace: Path) -> RunResult:
        """What the run did, with the kit's own paths masked."""
        log = read_trace(trace)
        traced = self.log_connections and tool("strace") is not None
        if self.log_connections and not traced:
            notes.append("strace is not installed: attempted connections were not logged")
        hide = _placeholders(self.box.root, self.scratch, self.cwd)  # the kit's paths vary; never candidate text
        hide |= dict(self.box.mounts.placeholders)  # the cache folder is the machine's, not the candidate's
        hide |= self.box.mounts.bind_placeholders()
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
        )

    def _binds(self, isolate: bool) -> tuple[tuple[str, str, str, str, int], ...]:
        """Folders shown at fixed paths (the copy, a tool's environment); none without namespaces. An
        overlay's writes go to a folder in the run's scratch (it counts against the disk cap)."""
        if not isolate:
            return ()
        uid = self.box.uid
        found = [(str(self.cwd), STABLE_SUBMISSION, WRITABLE, "", uid)] if self.box.mounts.stable_paths else []
        for number, (folder, inside, mode) in enumerate(self.box.mounts.binds):
            upper = ""
            if mode == OVERLAY:
                upper_path = self.scratch / f"overlay-{number}"
                for made in (upper_path, upper_path.with_name(f"{upper_path.name}-work")):
                    made.mkdir(exist_ok=True, mode=0o755)  # the merged root takes its mode from here
                    if self.box.as_root:
                        os.chown(made, self.box.uid, self.box.uid)
                upper = str(upper_path)
            if not inside.startswith("/"):  # in the copy, where the run works
                inside = f"{STABLE_SUBMISSION if self.box.mounts.stable_paths else self.cwd}/{inside}"
            found.append((folder, inside, mode, upper, uid))
        return tuple(found)

    def _kit_folder(self) -> list[str]:
        kit = self.box.root / "kit"  # kit files (a take-home's driver script), read-only to every run
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
        return Isolation("none", f"namespaces unavailable on this machine: {refused() or self.refusal}")


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
    out: Capture
    err: Capture


def _watch(
    proc: launchclient.Process,
    deadline: float,
    stop_when: Callable[[], bool] | None,
    captures: Sequence[Capture],
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


def _reap(proc: launchclient.Process) -> None:
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
