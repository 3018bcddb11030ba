"""The model stub, served on a real loopback socket and called with urllib."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from gradelib.errors import SubmissionError
from gradelib.takehomes.replay.modelstub import LABELS, ModelStub, StubMode, load_tickets, main, packaged_tickets

TICKETS = packaged_tickets()
PROMPT = (
    "Classify the support ticket into one of: billing, bug, account, feature_request, other.\n"
    'Answer with a JSON object {{"label": ..., "justification": ...}}.\n\nTicket:\n{body}'
)


@pytest.fixture
def listening() -> Iterator[socket.socket]:
    sock = socket.create_server(("127.0.0.1", 0))
    try:
        yield sock
    finally:
        sock.close()


def _base(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{host}:{port}"


def _request(url: str, payload: Any = None, *, raw: bytes | None = None, method: str = "POST") -> tuple[int, Any]:
    data = raw if raw is not None else None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", "Bearer test-key")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


def _chat(base: str, body: str, *, prefix: str = "/v1", **extra: Any) -> tuple[int, Any]:
    payload = {
        "model": "gpt-test",
        "temperature": 0,
        "messages": [{"role": "user", "content": PROMPT.format(body=body)}],
        **extra,
    }
    return _request(base + prefix + "/chat/completions", payload)


def _serve_and_chat(mode: StubMode, body: str, salt: str = "") -> tuple[ModelStub, int, Any]:
    stub = ModelStub(mode, tickets=TICKETS, salt=salt)
    with socket.create_server(("127.0.0.1", 0)) as sock, stub.serve(sock):
        status, reply = _chat(_base(sock), body)
    return stub, status, reply


def test_healthy_reply_has_the_openai_shape(listening: socket.socket) -> None:
    stub = ModelStub(tickets=TICKETS, model="stub-model")
    with stub.serve(listening):
        status, reply = _chat(_base(listening), TICKETS[0]["body"])
    assert status == 200
    assert set(reply) == {"id", "object", "created", "model", "choices", "usage"}
    assert reply["object"] == "chat.completion"
    assert reply["model"] == "stub-model"
    assert reply["id"] == "chatcmpl-" + stub.calls[0].request_digest[:16]
    choice = reply["choices"][0]
    assert choice["index"] == 0 and choice["finish_reason"] == "stop"
    assert choice["message"]["role"] == "assistant"
    content = json.loads(choice["message"]["content"])
    assert set(content) == {"label", "justification"}
    assert content["label"] == stub.label_for(TICKETS[0]["body"])
    assert "\n" not in content["justification"] and content["justification"].endswith(").")
    usage = reply["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert stub.calls[0].ticket_id == "T-001"
    assert stub.calls[0].path == "/v1/chat/completions"


@pytest.mark.parametrize(
    "render",
    [
        pytest.param(lambda body: body, id="verbatim"),
        pytest.param(lambda body: json.dumps({"id": "x", "body": body}), id="json-escaped"),
        pytest.param(lambda body: "\n  ".join(body.split(" ")), id="rewrapped"),
        pytest.param(lambda body: f"<ticket>{body}</ticket> thanks", id="embedded"),
    ],
)
def test_ticket_is_found_from_the_body_in_the_prompt(render: Any) -> None:
    stub = ModelStub(tickets=TICKETS)
    body = TICKETS[1]["body"]  # has quotes, so JSON escaping changes it
    assert stub.find_ticket(PROMPT.format(body=render(body))) == ("T-002", body)


def test_longest_matching_body_wins() -> None:
    tickets = [{"id": "short", "body": "Refund me."}, {"id": "long", "body": "Refund me. Now."}]
    stub = ModelStub(tickets=tickets)
    assert stub.find_ticket("ticket: Refund me. Now.") == ("long", "Refund me. Now.")
    assert stub.find_ticket("ticket: Refund me.") == ("short", "Refund me.")
    assert stub.find_ticket("nothing here") is None


def test_labels_are_deterministic_and_depend_on_the_salt() -> None:
    plain, salted = ModelStub(tickets=TICKETS), ModelStub(tickets=TICKETS, salt="cohort-7")
    bodies = [ticket["body"] for ticket in TICKETS]
    first = [plain.label_for(body) for body in bodies]
    assert first == [ModelStub().label_for(body) for body in bodies]
    assert set(first) <= set(LABELS)
    assert [salted.label_for(body) for body in bodies] != first


def test_same_request_same_reply_and_salt_changes_it() -> None:
    body = TICKETS[4]["body"]
    _, _, first = _serve_and_chat("healthy", body)
    _, _, again = _serve_and_chat("healthy", body)
    _, _, salted = _serve_and_chat("healthy", body, salt="other-salt")
    assert first["id"] == again["id"]
    assert first["choices"] == again["choices"]
    assert salted["id"] != first["id"]


def test_unknown_ticket_still_gets_a_label_from_the_request_hash() -> None:
    stub, status, reply = _serve_and_chat("healthy", "A ticket the stub was never told about.")
    content = json.loads(reply["choices"][0]["message"]["content"])
    assert status == 200 and content["label"] in LABELS
    assert stub.calls[0].ticket_id is None
    assert stub.expected_labels() == {}


def test_plain_mode_answers_in_label_lines() -> None:
    stub, status, reply = _serve_and_chat("plain", TICKETS[2]["body"])
    content = reply["choices"][0]["message"]["content"]
    label_line, justification_line = content.split("\n")
    assert status == 200
    assert label_line == f"label: {stub.label_for(TICKETS[2]['body'])}"
    assert justification_line.startswith("justification: ")
    assert stub.expected_labels() == {"T-003": stub.label_for(TICKETS[2]["body"])}


@pytest.mark.parametrize("fail_status", [503, 429, 500])
def test_failing_mode_counts_every_call(listening: socket.socket, fail_status: int) -> None:
    stub = ModelStub("failing", tickets=TICKETS, fail_status=fail_status)
    with stub.serve(listening):
        replies = [_chat(_base(listening), ticket["body"]) for ticket in TICKETS[:3]]
        replies.append(_request(_base(listening) + "/v1/chat/completions", raw=b"{oops"))
    assert [status for status, _ in replies] == [fail_status] * 4
    assert all(isinstance(reply["error"]["message"], str) for _, reply in replies)
    assert stub.call_count == 4
    assert [call.ticket_id for call in stub.calls] == ["T-001", "T-002", "T-003", None]
    assert all(call.label is None for call in stub.calls)
    assert stub.expected_labels() == {}


def test_path_without_v1_is_a_model_call(listening: socket.socket) -> None:
    stub = ModelStub(tickets=TICKETS)
    with stub.serve(listening):
        status, _ = _chat(_base(listening), TICKETS[0]["body"], prefix="")
    assert status == 200
    assert [call.path for call in stub.calls] == ["/chat/completions"]


def test_models_listing_and_404_for_other_paths(listening: socket.socket) -> None:
    stub = ModelStub(model="m-1")
    base = _base(listening)
    with stub.serve(listening):
        assert _request(base + "/v1/models", method="GET") == (
            200,
            {
                "object": "list",
                "data": [{"id": "m-1", "object": "model", "created": 0, "owned_by": "gradelib"}],
            },
        )
        assert _request(base + "/v1/completions", {"prompt": "hi"})[0] == 404
        assert _request(base + "/v1/chat/completions", method="GET")[0] == 404
        assert _request(base + "/", method="DELETE")[0] == 404
    assert stub.call_count == 0


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"{not json", id="broken"),
        pytest.param(b"", id="empty"),
        pytest.param(b"\xff\xfe\x00", id="not-utf8"),
        pytest.param(b"[" * 100_000, id="deep"),
        pytest.param(b'{"model": "x"}', id="no-messages"),
    ],
)
def test_bad_bodies_get_400_and_are_counted(listening: socket.socket, raw: bytes) -> None:
    stub = ModelStub(tickets=TICKETS)
    with stub.serve(listening):
        status, reply = _request(_base(listening) + "/v1/chat/completions", raw=raw)
        healthy, _ = _chat(_base(listening), TICKETS[0]["body"])
    assert status == 400 and "error" in reply
    assert healthy == 200, "the server survives bad input"
    assert [call.status for call in stub.calls] == [400, 200]


def test_concurrent_requests_are_counted_exactly(listening: socket.socket) -> None:
    stub = ModelStub(tickets=TICKETS)
    bodies = [ticket["body"] for ticket in TICKETS] * 3
    with stub.serve(listening), ThreadPoolExecutor(max_workers=12) as pool:
        results = list(pool.map(lambda body: _chat(_base(listening), body), bodies))
    assert [status for status, _ in results] == [200] * len(bodies)
    assert stub.call_count == len(bodies)
    assert sorted(call.index for call in stub.calls) == list(range(len(bodies)))


def test_slow_client_does_not_block_others(listening: socket.socket) -> None:
    stub = ModelStub(tickets=TICKETS)
    with stub.serve(listening), socket.create_connection(listening.getsockname()) as slow:
        slow.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 500\r\n\r\n{")
        status, _ = _chat(_base(listening), TICKETS[0]["body"])
    assert status == 200
    assert stub.call_count >= 1


def test_expected_labels_after_all_twenty_tickets(listening: socket.socket) -> None:
    stub = ModelStub(tickets=TICKETS, salt="run-1")
    labels: dict[str, str] = {}
    with stub.serve(listening):
        for ticket in TICKETS:
            _, reply = _chat(_base(listening), ticket["body"])
            labels[ticket["id"]] = json.loads(reply["choices"][0]["message"]["content"])["label"]
    assert stub.expected_labels() == labels
    assert labels == {ticket["id"]: stub.label_for(ticket["body"]) for ticket in TICKETS}
    assert len(labels) == 20 and stub.call_count == 20


def test_serve_closes_the_socket_and_stops(listening: socket.socket) -> None:
    stub = ModelStub()
    address = listening.getsockname()
    with stub.serve(listening):
        pass
    assert listening.fileno() == -1
    with pytest.raises(OSError):
        socket.create_connection(address, timeout=1).close()


def test_packaged_tickets_are_twenty_unique_bodies() -> None:
    assert [ticket["id"] for ticket in TICKETS] == [f"T-{n:03d}" for n in range(1, 21)]
    assert len({ticket["body"] for ticket in TICKETS}) == 20


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param(None, "not found", id="missing"),
        pytest.param("[{", "not valid JSON", id="bad-json"),
        pytest.param('{"id": "T-1"}', "JSON array", id="not-array"),
        pytest.param('[{"body": "x"}]', "no string 'id'", id="no-id"),
        pytest.param('[{"id": "T-1", "body": " "}]', "no string 'body'", id="blank-body"),
        pytest.param('[{"id": "a", "body": "x"}, {"id": "a", "body": "y"}]', "duplicate", id="dup"),
    ],
)
def test_load_tickets_errors(tmp_path: Path, text: str | None, reason: str) -> None:
    path = tmp_path / "tickets.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(SubmissionError, match=reason):
        load_tickets(path)


def test_main_rejects_a_bad_tickets_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--port", "0", "--tickets", str(tmp_path / "nope.json")]) == 2
    assert "tickets file not found" in capsys.readouterr().err
