"""Attempted connections and opened files, read from an strace log."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

TRACED_NETWORK = ("connect", "sendto", "sendmsg", "sendmmsg")
TRACED_FILES = ("open", "openat", "openat2")

_CALL = re.compile(r"^(?P<pid>\d+)\s+(?:<\.\.\. )?(?P<call>[a-z0-9_]+)(?:\(| resumed>)(?P<rest>.*)$")
_INET = re.compile(r'sa_family=AF_INET,\s*sin_port=htons\((?P<port>\d+)\),\s*sin_addr=inet_addr\("(?P<addr>[^"]+)"\)')
_INET6 = re.compile(
    r'sa_family=AF_INET6,\s*sin6_port=htons\((?P<port>\d+)\).*?inet_pton\(AF_INET6,\s*"(?P<addr>[^"]+)"'
)
_UNIX = re.compile(r'sa_family=AF_UNIX,\s*sun_path=(?P<path>@?"[^"]*")')
_RESULT = re.compile(r"\s=\s+(?P<ret>-?\d+|\?)(?:\s+(?P<errno>E[A-Z0-9]+))?")
_OPENED = re.compile(r'"(?P<path>(?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Connection:
    """One attempt to reach an address, as the kernel saw it."""

    syscall: str
    family: str  # "inet", "inet6" or "unix"
    address: str
    port: int | None
    result: str  # "ok", "in progress", or an errno name such as ENETUNREACH
    pid: int
    host: str | None = None  # the DNS name it was looked up as, where known

    @property
    def is_network(self) -> bool:
        """True for IP traffic (unix-domain sockets are not network)."""
        return self.family in ("inet", "inet6")

    def describe(self) -> str:
        """One readable line: `connect 93.184.216.34:443 (example.com) -> ENETUNREACH`."""
        where = f"[{self.address}]:{self.port}" if self.family == "inet6" else f"{self.address}:{self.port}"
        if self.family == "unix":
            where = self.address
        name = f" ({self.host})" if self.host else ""
        return f"{self.syscall} {where}{name} -> {self.result}"


def _result(text: str) -> str:
    # The return value is the last ` = ` on the line: arguments before it can hold an
    # `=` too (`sin6_scope_id=0`, a path or a buffer with "a = 1" in it).
    matches = list(_RESULT.finditer(text))
    if not matches:
        return "unfinished"
    match = matches[-1]
    if match.group("errno"):
        if match.group("errno") == "EINPROGRESS":
            return "in progress"
        return match.group("errno")
    return "ok"


def parse_connections(log: str, hosts: Mapping[str, str] | None = None) -> list[Connection]:
    """Every connect/send with a destination address in the log, in order."""
    hosts = hosts or {}
    found: list[Connection] = []
    pending: dict[tuple[int, str], int] = {}
    for line in log.splitlines():
        match = _CALL.match(line)
        if not match or match.group("call") not in TRACED_NETWORK:
            continue
        pid, call, rest = int(match.group("pid")), match.group("call"), match.group("rest")
        if " resumed>" in line and (pid, call) in pending:
            index = pending.pop((pid, call))
            old = found[index]
            found[index] = Connection(old.syscall, old.family, old.address, old.port, _result(rest), pid, old.host)
            continue
        family, address, port = _address(rest)
        if family is None:
            continue
        result = _result(rest) if "<unfinished" not in rest else "unfinished"
        found.append(Connection(call, family, address, port, result, pid, hosts.get(address)))
        if result == "unfinished":
            pending[(pid, call)] = len(found) - 1
    return found


def _address(text: str) -> tuple[str | None, str, int | None]:
    if match := _INET.search(text):
        return "inet", match.group("addr"), int(match.group("port"))
    if match := _INET6.search(text):
        return "inet6", match.group("addr"), int(match.group("port"))
    if match := _UNIX.search(text):
        return "unix", match.group("path").strip('"@'), None
    return None, "", None


def parse_opened(log: str) -> list[str]:
    """Paths the traced processes opened successfully, in order, without repeats."""
    seen: dict[str, None] = {}
    for line in log.splitlines():
        match = _CALL.match(line)
        if not match or match.group("call") not in TRACED_FILES:
            continue
        path = _OPENED.search(match.group("rest"))
        if path and _result(match.group("rest")) == "ok":
            seen.setdefault(path.group("path"), None)
    return list(seen)


def network_only(connections: Iterable[Connection]) -> list[Connection]:
    """The IP attempts among `connections`."""
    return [c for c in connections if c.is_network]
