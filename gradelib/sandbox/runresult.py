"""What a sandboxed run may use and what it did: its limits, the kit's servers it may reach, how well it was
isolated, and its result."""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal

from gradelib.sandbox import connlog

IsolationMode = Literal["root-namespaces", "user-namespaces", "none"]


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
    address: str = "127.0.0.1"  # where it listens in the namespace (a loopback address)
    names: tuple[str, ...] = ()  # host names the sandbox's resolver answers with `address`: it stands in for them


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
            cap = mib_text(self.disk_limit_bytes)
            return f"killed: disk limit reached (its grading's {cap} of writable space is full)"
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


def mib_text(count: int | None) -> str:
    """A byte count in whole MiB."""
    return f"{(count or 0) // 2**20} MiB"
