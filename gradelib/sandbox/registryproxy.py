"""The only way out of a sandbox's setup phase: a proxy on the sandbox's loopback that tunnels to the
configured package registries and refuses, and lists, every other destination.

It is a kit server (a `Service`): it listens inside the sandbox's network namespace and connects out
from the kit's own, so a setup tool that honours `HTTPS_PROXY` (uv, pip, Poetry, PDM, Hatch, Pipenv,
npm, yarn, pnpm) reaches the registries while nothing else a submission starts reaches anything.
`CONNECT host:port` to an allowed host is served (registries speak HTTPS); the tunnel carries bytes
the kit does not read. A registry the reviewer configured at an `http://` address (a local mirror) is
read through plain `GET` and `HEAD` requests to it, one per connection. DNS is the kit's: the sandbox
never resolves a registry's real address.

A tool that opens one tunnel per request (yarn 1's tunnel agent keeps none alive, so each of a few hundred
packages costs it a new TLS handshake) may reach the registries directly instead: each registry has a
passage, a kit server on a loopback address of its own that the sandbox's resolver answers the registry's
name with, which carries bytes to that registry and nowhere else (`passages`). The tool keeps its
connections alive as it would without a proxy; everything else still meets the proxy.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import selectors
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from gradelib.sandbox.runresult import Service

PORT = 3128  # where the proxy listens on the sandbox's loopback
HEAD_BYTES = 8 * 1024  # a CONNECT request's head; more is refused
HEAD_SECONDS = 30.0
CONNECT_SECONDS = 30.0
IDLE_SECONDS = 300.0  # a tunnel that carries nothing this long is closed
MAX_TUNNELS = 64
LOOKUP_TRIES = 4
LOOKUP_WAIT_SECONDS = 0.5
MAX_REFUSALS = 200  # listed in the evidence; more are counted
PYPI = "https://pypi.org/simple"
PYPI_FILES = "files.pythonhosted.org"
NPM = "https://registry.npmjs.org/"
YARN_ALIAS = "registry.yarnpkg.com"  # yarn 1's default, the npm registry under another name
TLS_PORT = 443
PASSAGE_ADDRESS = "127.0.1.{}"  # a registry's passage, one loopback address each
PLAIN_METHODS = frozenset({"GET", "HEAD"})  # what reading an index over plain HTTP takes
HOP_HEADERS = frozenset({b"connection", b"proxy-connection", b"proxy-authorization", b"keep-alive"})


@dataclass(frozen=True)
class Refusal:
    """One destination the proxy did not connect to, and why."""

    target: str
    reason: str


def registry_hosts(index_url: str | None, registry: str | None) -> tuple[str, ...]:
    """The hosts a setup may reach: the configured Python index (PyPI and its file host by default) and
    the npm registry (with yarn's name for it by default), each as `host:port`."""
    found: list[str] = []
    for url, extra in ((index_url or PYPI, PYPI_FILES), (registry or NPM, YARN_ALIAS)):
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.hostname:
            found.append(f"{parts.hostname.lower()}:{parts.port or (TLS_PORT if parts.scheme == 'https' else 80)}")
        if url in (PYPI, NPM):
            found.append(f"{extra}:{TLS_PORT}")
    return tuple(dict.fromkeys(found))


class RegistryProxy:
    """A CONNECT proxy that reaches only `allowed` (`host:port` each) and remembers what it refused."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(target.lower() for target in allowed)
        self._lock = threading.Lock()
        self._refused: list[Refusal] = []
        self._more_refused = 0
        self._reached: dict[str, int] = {}
        self._tunnels = threading.BoundedSemaphore(MAX_TUNNELS)
        self._addresses: dict[tuple[str, int], list[str]] = {}

    @property
    def refused(self) -> tuple[Refusal, ...]:
        """What was refused, in order (the first MAX_REFUSALS)."""
        with self._lock:
            return tuple(self._refused)

    @property
    def reached(self) -> dict[str, int]:
        """Each allowed destination tunnelled to, with how many tunnels were opened to it."""
        with self._lock:
            return dict(self._reached)

    def evidence(self) -> dict[str, object]:
        """A JSON-ready account: the registries reached (tunnels each) and every destination refused, with why."""
        with self._lock:
            return {
                "reached": dict(self._reached),
                "refused": [f"{r.target}: {r.reason}" for r in self._refused],
                "refused_more": self._more_refused,
            }

    def refusals(self) -> list[str]:
        """Every destination refused so far, with why (`evil.example:443: not a configured registry`)."""
        with self._lock:
            return [f"{r.target}: {r.reason}" for r in self._refused]

    def service(self) -> Service:
        """The proxy as a kit server of a sandboxed run, with the variables setup tools read it from."""
        url = "http://{host}:{port}"
        names = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "npm_config_https_proxy", "npm_config_proxy")
        online = {"npm_config_offline": "false", "UV_OFFLINE": "0"}  # the sandbox's runs are offline otherwise
        env: Mapping[str, str] = {**dict.fromkeys(names, url), "NO_PROXY": "", "no_proxy": "", **online}
        return Service("registry-proxy", PORT, self.serve, env)

    def allows(self, host: str, port: int) -> bool:
        """Whether `host:port` is one of the registries (by name: an address literal never is)."""
        with contextlib.suppress(ValueError):
            ipaddress.ip_address(host.strip("[]"))
            return f"{host.lower()}:{port}" in self.allowed  # only when a registry is configured by its address
        return f"{host.lower().rstrip('.')}:{port}" in self.allowed

    def passages(self) -> list[Service]:
        """A kit server for each registry named by its host (an address literal needs no name): it listens on
        a loopback address of its own, which the sandbox's resolver answers the name with, and carries bytes
        to that registry. A tool sent to them (`NO_PROXY`) keeps its connections alive; what they carried
        counts under `reached`, as tunnels do."""
        found = []
        for number, target in enumerate(sorted(self.allowed), start=1):
            host, _, port = target.rpartition(":")
            with contextlib.suppress(ValueError):
                ipaddress.ip_address(host.strip("[]"))
                continue
            serve = functools.partial(self._passage, host, int(port))
            address = PASSAGE_ADDRESS.format(number)
            found.append(Service(f"registry-passage-{number}", int(port), serve, {}, address, (host,)))
        return found

    @contextlib.contextmanager
    def serve(self, sock: socket.socket) -> Iterator[RegistryProxy]:
        """Serve on the listening `sock` (closed after) until the block ends; open tunnels are closed then."""
        with self._accepting(sock, self._tunnel):
            yield self

    @contextlib.contextmanager
    def _passage(self, host: str, port: int, sock: socket.socket) -> Iterator[RegistryProxy]:
        """A registry's passage on the listening `sock`: each connection carried to `host:port`."""
        with self._accepting(sock, functools.partial(self._carry, host, port)):
            yield self

    @contextlib.contextmanager
    def _accepting(self, sock: socket.socket, handle: Callable[[socket.socket], None]) -> Iterator[None]:
        """Each connection `sock` accepts handled in a thread of its own until the block ends (`sock` closed
        after, open connections shut)."""
        stop = threading.Event()
        open_sockets: set[socket.socket] = set()
        sock.settimeout(0.2)

        def accept() -> None:
            while not stop.is_set():
                try:
                    client, _ = sock.accept()
                except TimeoutError:
                    continue
                except OSError:
                    return
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # see _relay
                with self._lock:
                    open_sockets.add(client)
                threading.Thread(target=self._handle, args=(handle, client, open_sockets), daemon=True).start()

        thread = threading.Thread(target=accept, name="gradelib-registry-proxy", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the waiting accept: a setup's command ends without a wait
            thread.join()
            sock.close()  # the proxy's, as a kit server's socket is
            with self._lock:
                left = list(open_sockets)
            for client in left:
                with contextlib.suppress(OSError):
                    client.shutdown(socket.SHUT_RDWR)

    def _refuse(self, client: socket.socket | None, status: str, target: str, reason: str) -> None:
        """List a refusal; answer the client with `status` (a passage's client, None, gets no HTTP answer)."""
        with self._lock:
            if len(self._refused) < MAX_REFUSALS:
                self._refused.append(Refusal(target, reason))
            else:
                self._more_refused += 1
        with contextlib.suppress(OSError):
            if client is not None:
                client.sendall(f"HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())

    def _handle(
        self, handle: Callable[[socket.socket], None], client: socket.socket, open_sockets: set[socket.socket]
    ) -> None:
        try:
            with client:
                handle(client)
        finally:
            with self._lock:
                open_sockets.discard(client)

    def _carry(self, host: str, port: int, client: socket.socket) -> None:
        """One connection to a registry's passage, carried to it."""
        self._join(client, host, port, f"{host}:{port}", answer=False)

    def _join(self, client: socket.socket, host: str, port: int, target: str, *, answer: bool) -> None:
        """Carry `client`'s bytes to `host:port` and back (at most MAX_TUNNELS at once). With `answer`, the
        client asked with CONNECT and is told in HTTP how it went; a passage's client is only closed."""
        told = client if answer else None
        if not self._tunnels.acquire(blocking=False):
            self._refuse(told, "503 Service Unavailable", target, f"more than {MAX_TUNNELS} tunnels at once")
            return
        try:
            try:
                upstream = self._connect(host, port)
            except OSError as exc:
                self._refuse(told, "502 Bad Gateway", target, f"unreachable: {exc.strerror or exc}")
                return
            with upstream:
                with self._lock:
                    self._reached[target] = self._reached.get(target, 0) + 1
                if answer:
                    client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                _relay(client, upstream)
        finally:
            self._tunnels.release()

    def _tunnel(self, client: socket.socket) -> None:
        client.settimeout(HEAD_SECONDS)
        head = _read_head(client)
        if head is None:
            self._refuse(client, "400 Bad Request", "?", "not an HTTP request head")
            return
        first = head.split(b"\r\n", 1)[0].decode("latin-1", "replace")
        method, _, rest = first.partition(" ")
        target = rest.rsplit(" ", 1)[0] if " " in rest else rest
        if method.upper() != "CONNECT":
            self._forward(client, head, method, target)
            return
        host, _, port_text = target.rpartition(":")
        if not host or not port_text.isdigit() or not self.allows(host, int(port_text)):
            self._refuse(client, "403 Forbidden", target[:200], "not a configured registry")
            return
        self._join(client, host.strip("[]").lower(), int(port_text), target, answer=True)

    def _forward(self, client: socket.socket, head: bytes, method: str, target: str) -> None:
        """One plain `GET`/`HEAD` to an allowed registry at an `http://` address, sent on with `Connection:
        close`, its answer carried back."""
        parts = urlsplit(target)
        where = parts.netloc or target
        if method.upper() not in PLAIN_METHODS or parts.scheme != "http" or not parts.hostname:
            self._refuse(client, "405 Method Not Allowed", where[:200], f"{method[:20]}: only HTTPS tunnels go out")
            return
        port = parts.port or 80
        if not self.allows(parts.hostname, port):
            self._refuse(client, "403 Forbidden", where[:200], "not a configured registry")
            return
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = head.split(b"\r\n")[1:]
        kept = [line for line in lines if line.split(b":", 1)[0].strip().lower() not in HOP_HEADERS]
        request = b"\r\n".join([f"{method.upper()} {path} HTTP/1.1".encode(), *kept, b"Connection: close", b"", b""])
        try:
            upstream = self._connect(parts.hostname.lower(), port)
        except OSError as exc:
            self._refuse(client, "502 Bad Gateway", where, f"unreachable: {exc.strerror or exc}")
            return
        with upstream:
            with self._lock:
                self._reached[f"{parts.hostname.lower()}:{port}"] = self._reached.get(f"{parts.hostname}:{port}", 0) + 1
            upstream.sendall(request)
            _relay(client, upstream)

    def _connect(self, host: str, port: int) -> socket.socket:
        """A connection to an allowed registry. Its addresses are looked up once per proxy (a setup opens
        dozens of tunnels at once, and a resolver that answers "try again" to a burst fails them all), and
        a lookup that fails for now is tried again."""
        with self._lock:
            addresses = self._addresses.get((host, port))
        if addresses is None:
            for attempt in range(LOOKUP_TRIES):
                try:
                    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
                    break
                except socket.gaierror as exc:
                    if exc.errno != socket.EAI_AGAIN or attempt == LOOKUP_TRIES - 1:
                        raise
                    time.sleep(LOOKUP_WAIT_SECONDS * (attempt + 1))
            addresses = [str(info[4][0]) for info in found]
            with self._lock:
                self._addresses[(host, port)] = addresses
        last: OSError | None = None
        for address in addresses:
            try:
                upstream = socket.create_connection((address, port), timeout=CONNECT_SECONDS)
                upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # see _relay
                return upstream
            except OSError as exc:
                last = exc
        raise last or OSError(f"no address for {host}")


def _read_head(client: socket.socket) -> bytes | None:
    """The request's head, up to its blank line; None when it does not come whole within the bounds.

    A client that sends bytes after the head (TLS before the proxy's 200) is refused: it did not wait
    for the tunnel."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = client.recv(HEAD_BYTES - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
        if len(data) >= HEAD_BYTES:
            return None
    head, _, extra = data.partition(b"\r\n\r\n")
    return None if extra else head


def _relay(client: socket.socket, upstream: socket.socket) -> None:
    """Carry bytes both ways until either side closes or the tunnel is idle IDLE_SECONDS.

    Both sockets are TCP_NODELAY: a relay passes on small writes (a TLS handshake's, a request's) as they
    come, and Nagle's algorithm would hold each behind the peer's delayed ACK, about 40 ms a request."""
    client.setblocking(False)
    upstream.setblocking(False)
    other = {client: upstream, upstream: client}
    with selectors.DefaultSelector() as selector:
        for end in other:
            selector.register(end, selectors.EVENT_READ)
        while True:
            events = selector.select(IDLE_SECONDS)
            if not events:
                return
            for key, _ in events:
                side: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = side.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                if not data:
                    return
                try:
                    other[side].settimeout(IDLE_SECONDS)  # a side that stops reading ends the tunnel, not the kit
                    other[side].sendall(data)
                    other[side].setblocking(False)
                except OSError:
                    return
