"""Unit tests for gradelib.sandbox.connlog: connections and opened files read from strace logs."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gradelib.sandbox.connlog import Connection, network_only, parse_connections, parse_opened

# Lines as `strace -f -qq -o LOG` writes them (strace 6.x), with the noise a real run has around them;
# a trailing backslash joins a line that is too long for the source file.
STRACE_LOG = """\
4101  openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3
4101  openat(AT_FDCWD, "/usr/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = 3
4101  connect(3, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
4101  openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = 3
4101  sendto(3, "\\x8e\\x1d\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x03api\
\\x06openai\\x03com\\x00\\x00\\x01\\x00\\x01", \
32, MSG_NOSIGNAL, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.1")}, 16) = 32
4101  connect(4, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.1")}, 16) = -1 ENETUNREACH \
(Network is unreachable)
4101  connect(5, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, \
"2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH (Network is unreachable)
4102  connect(6, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, 16 <unfinished ...>
4101  openat(AT_FDCWD, "/work/answers.json", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 7
4102  <... connect resumed>) = -1 ECONNREFUSED (Connection refused)
4103  connect(8, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("192.0.2.2")}, 16) = -1 EINPROGRESS \
(Operation now in progress)
4101  openat(AT_FDCWD, "/work/missing.json", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)
4101  openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = 3
4104  connect(9, {sa_family=AF_UNIX, sun_path=@"/tmp/.X11-unix/X0"}, 20) = 0
4101  sendto(4, "GET / HTTP/1.1\\r\\n", 16, 0, NULL, 0) = 16
4101  connect(10, {sa_family=AF_UNSPEC, sa_data="\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0"}, 16) = 0
4102  +++ exited with 0 +++
4101  +++ exited with 1 +++
"""

HOSTS = {"192.0.2.1": "api.openai.com", "192.0.2.2": "hooks.slack.com"}


def test_parse_connections_reads_every_attempt_in_order() -> None:
    found = parse_connections(STRACE_LOG, HOSTS)

    assert found == [
        Connection("connect", "unix", "/var/run/nscd/socket", None, "ENOENT", 4101),
        Connection("sendto", "inet", "127.0.0.1", 53, "ok", 4101),
        Connection("connect", "inet", "192.0.2.1", 443, "ENETUNREACH", 4101, "api.openai.com"),
        Connection("connect", "inet6", "2001:db8::1", 443, "ENETUNREACH", 4101),
        Connection("connect", "inet", "127.0.0.1", 8080, "ECONNREFUSED", 4102),
        Connection("connect", "inet", "192.0.2.2", 443, "in progress", 4103, "hooks.slack.com"),
        Connection("connect", "unix", "/tmp/.X11-unix/X0", None, "ok", 4104),
    ]


def test_parse_connections_without_hosts_names_nothing() -> None:
    assert all(c.host is None for c in parse_connections(STRACE_LOG))


def test_network_only_drops_unix_sockets() -> None:
    found = network_only(parse_connections(STRACE_LOG))

    assert [(c.address, c.port) for c in found] == [
        ("127.0.0.1", 53),
        ("192.0.2.1", 443),
        ("2001:db8::1", 443),
        ("127.0.0.1", 8080),
        ("192.0.2.2", 443),
    ]
    assert all(c.is_network for c in found)


def test_unfinished_call_stays_unfinished_without_its_resumption() -> None:
    log = (
        '7  connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.9")}, 16 <unfinished ...>\n'
        "7  +++ killed by SIGKILL +++\n"
    )

    assert [c.result for c in parse_connections(log)] == ["unfinished"]


def test_resumption_is_matched_by_pid() -> None:
    log = (
        '7  connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.7")}, 16 <unfinished ...>\n'
        '8  connect(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("192.0.2.8")}, 16 <unfinished ...>\n'
        "8  <... connect resumed>) = -1 ECONNREFUSED (Connection refused)\n"
        "7  <... connect resumed>) = 0\n"
    )

    assert [(c.address, c.result) for c in parse_connections(log)] == [
        ("192.0.2.7", "ok"),
        ("192.0.2.8", "ECONNREFUSED"),
    ]


@pytest.mark.parametrize(
    ("line", "result"),
    [
        pytest.param(
            '9  sendto(3, "a = 1", 5, 0, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("192.0.2.3")}, 16)'
            " = -1 ENETUNREACH (Network is unreachable)",
            "ENETUNREACH",
            id="buffer-holding-an-equals-sign",
        ),
        pytest.param(
            '9  connect(3, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "::1",'
            " &sin6_addr), sin6_scope_id=0}, 28) = -1 ECONNREFUSED (Connection refused)",
            "ECONNREFUSED",
            id="inet6-scope-id-zero",
        ),
    ],
)
def test_result_is_the_return_value_not_an_argument(line: str, result: str) -> None:
    assert [c.result for c in parse_connections(line + "\n")] == [result]


@pytest.mark.parametrize(
    ("connection", "text"),
    [
        pytest.param(
            Connection("connect", "inet", "192.0.2.1", 443, "ENETUNREACH", 1, "api.openai.com"),
            "connect 192.0.2.1:443 (api.openai.com) -> ENETUNREACH",
            id="inet-with-host",
        ),
        pytest.param(
            Connection("sendto", "inet", "127.0.0.1", 53, "ok", 1),
            "sendto 127.0.0.1:53 -> ok",
            id="inet-dns",
        ),
        pytest.param(
            Connection("connect", "inet6", "2001:db8::1", 443, "in progress", 1),
            "connect [2001:db8::1]:443 -> in progress",
            id="inet6-bracketed",
        ),
        pytest.param(
            Connection("connect", "unix", "/var/run/nscd/socket", None, "ENOENT", 1),
            "connect /var/run/nscd/socket -> ENOENT",
            id="unix-path-only",
        ),
    ],
)
def test_describe(connection: Connection, text: str) -> None:
    assert connection.describe() == text


def test_parse_opened_keeps_successful_opens_in_order_once() -> None:
    assert parse_opened(STRACE_LOG) == [
        "/etc/ld.so.cache",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/etc/hosts",
        "/work/answers.json",
    ]


def test_parse_opened_ignores_a_failed_open_of_a_path_with_an_equals_sign() -> None:
    log = (
        '5  openat(AT_FDCWD, "/work/out/run=1.json", O_RDONLY) = -1 ENOENT (No such file or directory)\n'
        '5  openat(AT_FDCWD, "/work/out/run=2.json", O_RDONLY) = 3\n'
    )

    assert parse_opened(log) == ["/work/out/run=2.json"]


# --- a real strace run ------------------------------------------------------------------------

CLIENT = """
import socket, sys
for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(family)
    try:
        s.connect((host, int(sys.argv[1])))
    except OSError:
        pass
    s.close()
with open(sys.argv[2]) as handle:
    handle.read()
"""


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_real_strace_log(tmp_path: Path) -> None:
    log = tmp_path / "strace.log"
    data = tmp_path / "in=put.txt"
    data.write_text("hello\n")
    port = closed_port()

    subprocess.run(
        ["strace", "-f", "-qq", "--seccomp-bpf", "-e", "signal=none",
         "-e", "trace=connect,sendto,sendmsg,sendmmsg,openat", "-o", str(log),
         sys.executable, "-c", CLIENT, str(port), str(data)],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    text = log.read_text()

    to_port = [c for c in parse_connections(text) if c.port == port]
    assert [(c.syscall, c.family, c.address) for c in to_port] == [
        ("connect", "inet", "127.0.0.1"),
        ("connect", "inet6", "::1"),
    ]
    assert to_port[0].result == "ECONNREFUSED"
    assert to_port[1].result != "ok"  # refused, or no IPv6 here at all: never a success
    assert str(data) in parse_opened(text)
