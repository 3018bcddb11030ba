"""Unit tests for gradelib.sandbox.dnslog: the sinkhole DNS responder, packet by packet and on a socket."""

from __future__ import annotations

import ipaddress
import socket
import struct
import threading

import pytest

from gradelib.sandbox.dnslog import DnsLog

SINKHOLE = ipaddress.ip_network("192.0.2.0/24")
QTYPE_A, QTYPE_AAAA, QCLASS_IN = 1, 28, 1


def query(name: str, qtype: int = QTYPE_A, ident: int = 0x1234) -> bytes:
    """A DNS query packet as a stub resolver sends it: header, one question, recursion desired."""
    header = struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0)
    qname = b"".join(bytes([len(label)]) + label.encode("ascii") for label in name.split(".")) + b"\x00"
    return header + qname + struct.pack("!HH", qtype, QCLASS_IN)


def parse_reply(reply: bytes, sent: bytes) -> tuple[int, int, list[str]]:
    """(id, flags, A-record addresses) of a reply to `sent`, checking the question is echoed."""
    ident, flags, qdcount, ancount, nscount, arcount = struct.unpack("!HHHHHH", reply[:12])
    assert (qdcount, nscount, arcount) == (1, 0, 0)
    question = sent[12:]
    assert reply[12 : 12 + len(question)] == question
    pos = 12 + len(question)
    addresses: list[str] = []
    for _ in range(ancount):
        pointer, rtype, rclass, _ttl, rdlength = struct.unpack("!HHHIH", reply[pos : pos + 12])
        assert pointer == 0xC00C  # the name is the question's
        assert (rtype, rclass, rdlength) == (QTYPE_A, QCLASS_IN, 4)
        addresses.append(socket.inet_ntoa(reply[pos + 12 : pos + 16]))
        pos += 16
    assert pos == len(reply)
    return ident, flags, addresses


def test_a_query_gets_a_sinkhole_address_and_is_logged() -> None:
    log = DnsLog()
    sent = query("api.openai.com", ident=0xBEEF)

    reply = log.answer(sent)

    assert reply is not None
    ident, flags, addresses = parse_reply(reply, sent)
    assert ident == 0xBEEF
    assert flags & 0x8000  # a response
    assert flags & 0x000F == 0  # NOERROR
    assert len(addresses) == 1
    assert ipaddress.ip_address(addresses[0]) in SINKHOLE
    assert log.names == ("api.openai.com",)
    assert log.hosts == {addresses[0]: "api.openai.com"}


def test_each_name_gets_its_own_address_and_keeps_it() -> None:
    log = DnsLog()

    first = parse_reply(log.answer(query("api.openai.com")) or b"", query("api.openai.com"))[2]
    second = parse_reply(log.answer(query("hooks.slack.com")) or b"", query("hooks.slack.com"))[2]
    again = parse_reply(log.answer(query("API.OpenAI.com")) or b"", query("API.OpenAI.com"))[2]

    assert first != second
    assert again == first  # names are case-insensitive
    assert log.names == ("api.openai.com", "hooks.slack.com")
    assert log.hosts == {first[0]: "api.openai.com", second[0]: "hooks.slack.com"}


def test_aaaa_query_has_no_answer_but_is_logged() -> None:
    log = DnsLog()
    sent = query("example.com", QTYPE_AAAA, ident=7)

    reply = log.answer(sent)

    assert reply is not None
    ident, flags, addresses = parse_reply(reply, sent)
    assert ident == 7
    assert flags & 0x8000
    assert addresses == []
    assert log.names == ("example.com",)


def _with_qdcount(count: int) -> bytes:
    packet = bytearray(query("example.com"))
    packet[4:6] = struct.pack("!H", count)
    return bytes(packet)


@pytest.mark.parametrize(
    "packet",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x12\x34", id="two-bytes"),
        pytest.param(query("example.com")[:16], id="cut-inside-the-name"),
        pytest.param(query("example.com")[:-2], id="cut-inside-the-type"),
        pytest.param(query("example.com")[:-5], id="name-without-terminator-or-type"),
        pytest.param(_with_qdcount(0), id="no-question"),
        pytest.param(_with_qdcount(2), id="two-questions"),
        pytest.param(query("example.com")[:12] + b"\x40" + b"a" * 64 + b"\x00\x00\x01\x00\x01", id="label-too-long"),
        pytest.param(query("example.com")[:12] + b"\xc0\x0c\x00\x01\x00\x01", id="compression-pointer"),
        pytest.param(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", id="http-request"),
    ],
)
def test_garbage_gets_no_answer(packet: bytes) -> None:
    log = DnsLog()

    assert log.answer(packet) is None
    assert log.names == ()


def test_serves_on_a_real_udp_socket_and_stops_cleanly() -> None:
    log = DnsLog()
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    address = server.getsockname()

    with log.serve(server) as served, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        assert served is log
        client.settimeout(3)
        client.sendto(b"not dns", address)  # ignored, and the server keeps answering
        sent = query("api.openai.com", ident=0x4242)
        client.sendto(sent, address)
        reply, peer = client.recvfrom(4096)

        assert peer == address
        ident, _flags, addresses = parse_reply(reply, sent)
        assert ident == 0x4242
        assert ipaddress.ip_address(addresses[0]) in SINKHOLE

    assert server.fileno() == -1  # closed at exit
    assert not [t for t in threading.enumerate() if t.name == "gradelib-dns"]
    assert log.names == ("api.openai.com",)
