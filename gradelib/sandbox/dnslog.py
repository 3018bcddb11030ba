"""A loopback DNS responder that logs the names a sandboxed program looks up.

Each A query is answered with a distinct address from TEST-NET-1
(192.0.2.0/24, never routed), so the program goes on to `connect` and the
connection log shows which host and port it wanted; the namespace has no route
there, so the attempt fails at once. A name a kit server stands in for (a
registry, during a setup) is answered with that server's loopback address.
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
from collections.abc import Iterator, Mapping

SINKHOLE_PREFIX = "192.0.2."
RESOLV_CONF = "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
QTYPE_A = 1


class DnsLog:
    """Answers DNS queries on a UDP socket and remembers every name asked for."""

    def __init__(self, local: Mapping[str, str] | None = None) -> None:
        """`local`: names answered with a kit server's loopback address instead of a sinkhole."""
        self._lock = threading.Lock()
        self._names: list[str] = []
        self._addresses: dict[str, str] = {}
        self._local = {name.lower().rstrip("."): address for name, address in (local or {}).items()}

    @property
    def names(self) -> tuple[str, ...]:
        """Names looked up, in order of first query."""
        with self._lock:
            return tuple(self._names)

    @property
    def hosts(self) -> dict[str, str]:
        """Sinkhole address -> the name it stands for."""
        with self._lock:
            return {addr: name for name, addr in self._addresses.items()}

    def _address_for(self, name: str) -> str:
        with self._lock:
            if name in self._local:
                if name not in self._names:
                    self._names.append(name)
                return self._local[name]
            if name not in self._addresses:
                self._names.append(name)
                self._addresses[name] = f"{SINKHOLE_PREFIX}{len(self._addresses) % 250 + 1}"
            return self._addresses[name]

    def answer(self, query: bytes) -> bytes | None:
        """The reply to one DNS query packet, or None if it is not one."""
        if len(query) < 17:
            return None
        ident, _flags, qdcount = struct.unpack("!HHH", query[:6])
        if qdcount != 1:
            return None
        labels: list[str] = []
        pos = 12
        while pos < len(query) and query[pos] != 0:
            length = query[pos]
            if length > 63 or pos + 1 + length > len(query):
                return None
            labels.append(query[pos + 1 : pos + 1 + length].decode("ascii", "replace"))
            pos += 1 + length
        end = pos + 5
        if end > len(query):
            return None
        qtype = struct.unpack("!H", query[pos + 1 : pos + 3])[0]
        question = query[12:end]
        name = ".".join(labels).lower()
        address = self._address_for(name)
        header = struct.pack("!HHHHHH", ident, 0x8180, 1, 1 if qtype == QTYPE_A else 0, 0, 0)
        if qtype != QTYPE_A:
            return header + question
        record = struct.pack("!HHHIH", 0xC00C, QTYPE_A, 1, 0, 4) + socket.inet_aton(address)
        return header + question + record

    @contextlib.contextmanager
    def serve(self, sock: socket.socket) -> Iterator[DnsLog]:
        """Answer queries arriving on a bound UDP socket until the block exits."""
        wake_read, wake_write = socket.socketpair()  # the block's end wakes the loop at once

        def loop() -> None:
            while True:
                ready, _, _ = select.select([sock, wake_read], [], [])
                if wake_read in ready:
                    return
                try:
                    query, peer = sock.recvfrom(4096)
                except OSError:
                    continue
                reply = self.answer(query)
                if reply is not None:
                    with contextlib.suppress(OSError):
                        sock.sendto(reply, peer)

        thread = threading.Thread(target=loop, name="gradelib-dns", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            wake_write.send(b"x")
            thread.join(timeout=2)
            for end in (wake_read, wake_write, sock):
                end.close()
