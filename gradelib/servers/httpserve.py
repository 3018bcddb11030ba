"""Serve HTTP on a socket bound elsewhere: the kit's loopback servers' common plumbing."""

from __future__ import annotations

import contextlib
import json
import select
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A client that stops sending mid-request frees its thread after this many seconds.
CLIENT_TIMEOUT_SECONDS = 30.0
POLL_INTERVAL_SECONDS = 0.05
DEFAULT_MAX_BODY_BYTES = 64 * 1024
MAX_LINE_BYTES = 1024  # a chunk-size line or trailer longer than this is cut, then fails to parse
JOIN_SECONDS = 5.0


class BodyError(Exception):
    """A request body the server will not take: too large, malformed, cut short or too slow."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason  # lower case, no full stop; each server words its reply around it


class BoundServer(ThreadingHTTPServer):
    """A threading HTTP server on the caller's socket, silent on errors, optionally capping connections."""

    daemon_threads = True

    def __init__(
        self,
        sock: socket.socket,
        handler: type[BaseHTTPRequestHandler],
        *,
        max_connections: int | None = None,
    ) -> None:
        super().__init__(sock.getsockname()[:2], handler, bind_and_activate=False)
        # Swap in the caller's socket: it may have been bound in another network namespace.
        self.socket.close()
        self.socket = sock
        self.server_address = sock.getsockname()
        self.max_connections = max_connections
        self._open: set[socket.socket] = set()
        self._open_changed = threading.Condition()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Hand the connection to a thread, or close it at once when too many are open."""
        with self._open_changed:
            full = self.max_connections is not None and len(self._open) >= self.max_connections
            if not full:
                self._open.add(request)
        if full:
            self.shutdown_request(request)
        else:
            super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        """Close one connection and stop tracking it."""
        with self._open_changed:
            self._open.discard(request)
            self._open_changed.notify_all()
        super().shutdown_request(request)

    def cut_connections(self, grace: float) -> None:
        """Let in-flight answers finish for `grace` seconds, then unblock every open connection."""
        with self._open_changed:
            self._open_changed.wait_for(lambda: not self._open, grace)
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay silent: a broken client must not print tracebacks into the kit's output."""


class JsonHandler(BaseHTTPRequestHandler):
    """Reads bounded request bodies (chunked too) and sends one JSON reply per connection."""

    protocol_version = "HTTP/1.1"  # for Expect: 100-continue; every reply still closes
    sys_version = ""
    timeout = CLIENT_TIMEOUT_SECONDS
    max_body_bytes = DEFAULT_MAX_BODY_BYTES

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request log; each server's `main` prints what it saw itself."""

    def send_json(self, status: int, payload: object) -> None:
        """Send `payload` as the whole JSON reply and close the connection."""
        body = json.dumps(payload).encode("utf-8")
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self.wfile.flush()

    def read_body(self) -> bytes:
        """The request body (Content-Length or chunked) up to `max_body_bytes`; BodyError otherwise."""
        try:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return self._read_chunked()
            length = int(self.headers.get("Content-Length") or 0)
            if length < 0:
                raise ValueError(length)
            if length > self.max_body_bytes:
                raise BodyError(413, "request body too large")
            data = self.rfile.read(length)
        except ValueError:
            raise BodyError(400, "invalid Content-Length or chunked body") from None
        except OSError:
            raise BodyError(408, "timed out reading the request body") from None
        if len(data) < length:
            raise BodyError(400, "request body ended early")
        return data

    def _read_chunked(self) -> bytes:
        chunks: list[bytes] = []
        while size := int(self.rfile.readline(MAX_LINE_BYTES).split(b";")[0].strip() or b"x", 16):
            if size < 0 or sum(map(len, chunks)) + size > self.max_body_bytes:
                raise BodyError(413, "request body too large")
            chunks.append(self.rfile.read(size))
            self.rfile.readline(MAX_LINE_BYTES)
        while self.rfile.readline(MAX_LINE_BYTES) not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return b"".join(chunks)


def client_gone(conn: socket.socket) -> bool:
    """True when the peer has closed or reset the connection."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        return bool(readable) and conn.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


@contextlib.contextmanager
def serving(
    server: BoundServer,
    name: str,
    *,
    on_stop: Callable[[], None] | None = None,
    grace: float | None = None,
) -> Iterator[BoundServer]:
    """Run `server` in a daemon thread until the block exits, then stop it and close its socket.

    On exit `on_stop` runs first (to release requests the server holds on purpose), then the
    server stops accepting; with `grace`, open connections get that long before they are cut.
    """
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": POLL_INTERVAL_SECONDS},
        name=name,
        daemon=True,
    )
    thread.start()
    try:
        yield server
    finally:
        if on_stop is not None:
            on_stop()
        server.shutdown()
        if grace is not None:
            server.cut_connections(grace)
        server.server_close()
        thread.join(timeout=JOIN_SECONDS)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[threading.Event]:
    """An event that SIGINT or SIGTERM sets while the block runs; the old handlers come back after.

    Also when SIGINT is ignored (a backgrounded shell job). Outside the main thread no handler
    can be installed, and the event is only set by the caller.
    """
    stop = threading.Event()
    previous: list[tuple[signal.Signals, Any]] = []
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous.append((signum, signal.signal(signum, lambda *_: stop.set())))
    try:
        yield stop
    finally:
        for signum, handler in previous:
            signal.signal(signum, handler)
