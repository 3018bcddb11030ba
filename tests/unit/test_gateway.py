"""The fake payment gateway, served on a real loopback socket and called with http.client."""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gradelib.errors import ScenarioError
from gradelib.takehomes.payments import fakegateway as gateway_module
from gradelib.takehomes.payments.fakegateway import Gateway, GatewayCounts, main
from gradelib.takehomes.payments.scenarios import Scenario, Step, load_scenarios

PAYMENTS = resources.files("gradelib.takehomes").joinpath("payments")
ALWAYS_OK = Scenario("ok", "every request succeeds", (Step(200),))
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")


@contextmanager
def running(scenario: Scenario | str) -> Iterator[tuple[Gateway, int]]:
    gateway = Gateway(scenario)
    sock = socket.create_server(("127.0.0.1", 0))
    with gateway.serve(sock):
        yield gateway, sock.getsockname()[1]


def call(
    port: int,
    payload: Any = None,
    *,
    raw: bytes | None = None,
    headers: Mapping[str, str] | None = None,
    method: str = "POST",
    path: str = "/charge",
    timeout: float = 5,
) -> tuple[int, Any]:
    body = raw if raw is not None else None if payload is None else json.dumps(payload).encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def charge(port: int, key: str | None = None, amount: Any = 100, **kwargs: Any) -> tuple[int, Any]:
    payload = {"amount": amount} if key is None else {"amount": amount, "idempotencyKey": key}
    return call(port, payload, **kwargs)


def hanging_request(port: int, key: str) -> socket.socket:
    """Send a charge on a raw socket and return it without reading (the answer never comes)."""
    body = json.dumps({"amount": 100, "idempotencyKey": key}).encode()
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    head = f"POST /charge HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
    client.sendall(head.encode() + body)
    return client


def test_same_key_twice_charges_once_and_replays_the_answer() -> None:
    with running(ALWAYS_OK) as (gateway, port):
        first = charge(port, "order-1")
        second = charge(port, "order-1", amount=100)
    assert first == (
        200,
        {"ok": True, "chargeId": "ch_1", "amount": 100, "idempotencyKey": "order-1"},
    )
    assert second == first
    assert gateway.counts() == GatewayCounts(requests=2, distinct_keys=1, charges=1)
    log = gateway.requests
    assert [(r.charged, r.deduped, r.attempt) for r in log] == [(True, False, 1), (False, True, 2)]
    assert [r.key_source for r in log] == ["body", "body"]


def test_header_key_dedupes_and_body_key_wins() -> None:
    with running(ALWAYS_OK) as (gateway, port):
        charge(port, headers={"Idempotency-Key": "h-1"})
        status, answer = charge(port, headers={"Idempotency-Key": "h-1"})
        charge(port, "b-1", headers={"Idempotency-Key": "h-1"})
    assert (status, answer["chargeId"], answer["idempotencyKey"]) == (200, "ch_1", "h-1")
    log = gateway.requests
    assert [(r.key, r.key_source) for r in log] == [
        ("h-1", "header"),
        ("h-1", "header"),
        ("b-1", "body"),
    ]
    assert log[0].headers["idempotency-key"] == "h-1"
    assert gateway.counts() == GatewayCounts(requests=3, distinct_keys=2, charges=2)


def test_concurrent_requests_with_one_key_charge_once() -> None:
    with running(ALWAYS_OK) as (gateway, port), ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda _: charge(port, "same"), range(32)))
    assert {answer[1]["chargeId"] for answer in answers} == {"ch_1"}
    assert gateway.counts() == GatewayCounts(requests=32, distinct_keys=1, charges=1)
    assert sorted(r.attempt for r in gateway.requests) == list(range(1, 33))


def test_requests_without_a_key_always_charge() -> None:
    with running(ALWAYS_OK) as (gateway, port):
        answers = [charge(port)[1]["chargeId"] for _ in range(3)]
    assert answers == ["ch_1", "ch_2", "ch_3"]
    assert gateway.counts() == GatewayCounts(requests=3, distinct_keys=0, charges=3)
    assert {(r.key, r.key_source, r.attempt) for r in gateway.requests} == {(None, "none", 1)}


def test_packaged_scenarios_are_the_documented_five() -> None:
    scenarios = load_scenarios()
    assert set(scenarios) == {"transient", "restart", "outage", "slow", "orders"}
    assert all(s.description for s in scenarios.values())
    assert scenarios["transient"].steps == (Step(503), Step(200))
    assert scenarios["restart"].steps == (Step(200, hang=True, charge=True), Step(200))
    assert scenarios["outage"].steps == (Step(503),)
    assert scenarios["slow"].steps == (Step(200, delay=8.0), Step(200))
    assert scenarios["slow"].step(5) == Step(200)
    assert scenarios["orders"].steps == (Step(200),)
    assert [s.stored for s in (Step(200), Step(402), Step(503), Step(429), Step(500, processed=True))] == [
        True, True, False, False, True,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("keys", "distinct"),
    [(["a", "b"], 2), (["a", "a"], 1)],
    ids=["key-per-attempt", "key-per-call"],
)
def test_transient_fails_first_then_succeeds(keys: list[str], distinct: int) -> None:
    with running("transient") as (gateway, port):
        statuses = [charge(port, key)[0] for key in keys]
    assert statuses == [503, 200]
    assert gateway.counts() == GatewayCounts(requests=2, distinct_keys=distinct, charges=1)
    assert gateway.requests[0].charged is False


def test_transient_503_body_and_key_charged_only_on_success() -> None:
    with running("transient") as (gateway, port):
        assert charge(port, "k") == (503, {"ok": False, "error": "service unavailable"})
        assert charge(port, "k")[1]["chargeId"] == "ch_1"
        assert charge(port, "k")[1]["chargeId"] == "ch_1"
    assert [r.attempt for r in gateway.requests] == [1, 2, 3]
    assert gateway.counts().charges == 1


def test_restart_first_request_hangs_but_is_charged() -> None:
    with running("restart") as (gateway, port):
        client = hanging_request(port, "order-7")
        assert gateway.wait_for_requests(1, timeout=5)
        first = gateway.requests[0]
        assert (first.status, first.charged, first.key) == (None, True, "order-7")
        client.settimeout(0.3)
        with pytest.raises(TimeoutError):
            client.recv(1)
        client.close()  # the kit kills the client process
        status, answer = charge(port, "order-7")
        assert (status, answer["chargeId"]) == (200, "ch_1")
        assert gateway.requests[1].deduped
        assert gateway.counts() == GatewayCounts(requests=2, distinct_keys=1, charges=1)
        assert charge(port, "fresh-key")[1]["chargeId"] == "ch_2"
        assert gateway.counts() == GatewayCounts(requests=3, distinct_keys=2, charges=2)


def test_wait_for_requests_times_out() -> None:
    with running("restart") as (gateway, _):
        started = time.monotonic()
        assert gateway.wait_for_requests(1, timeout=0.1) is False
        assert time.monotonic() - started < 1


def test_outage_always_503_and_never_charges() -> None:
    with running("outage") as (gateway, port):
        statuses = [charge(port, "k")[0] for _ in range(4)]
    assert statuses == [503] * 4
    assert gateway.counts() == GatewayCounts(requests=4, distinct_keys=1, charges=0)
    assert [r.attempt for r in gateway.requests] == [1, 2, 3, 4]


def test_slow_first_answer_comes_late_and_a_retry_meanwhile_gets_409_then_the_replay() -> None:
    packaged = load_scenarios()["slow"]
    fast = dataclasses.replace(packaged, steps=(dataclasses.replace(packaged.steps[0], delay=0.3), *packaged.steps[1:]))
    results: dict[str, tuple[float, tuple[int, Any]]] = {}

    def timed(name: str, port: int) -> None:
        started = time.monotonic()
        answer = charge(port, "slow-1")
        results[name] = (time.monotonic() - started, answer)

    with running(fast) as (gateway, port):
        first = threading.Thread(target=timed, args=("first", port))
        first.start()
        assert gateway.wait_for_requests(1, timeout=5)
        timed("retry", port)
        first.join(5)
        later = charge(port, "slow-1")
    first_time, first_answer = results["first"]
    retry_time, retry_answer = results["retry"]
    assert first_time >= 0.3 and retry_time < 0.3
    assert first_answer[0] == 200 and first_answer[1]["chargeId"] == "ch_1"
    assert retry_answer == (409, {"ok": False, "error": gateway_module.KEY_IN_USE, "code": "idempotency_key_in_use"})
    assert later == first_answer  # once the first answer is complete, it is replayed
    assert [(r.status, r.conflict, r.deduped) for r in gateway.requests] == [
        (200, None, False), (409, "key_in_use", False), (200, None, True),
    ]  # fmt: skip
    assert gateway.counts() == GatewayCounts(requests=3, distinct_keys=1, charges=1)


def test_a_known_key_with_another_amount_gets_400_and_moves_no_money() -> None:
    with running(ALWAYS_OK) as (gateway, port):
        assert charge(port, "order-1", amount=100)[0] == 200
        status, answer = charge(port, "order-1", amount=250)
        assert charge(port, "order-1", amount=100)[1]["chargeId"] == "ch_1"  # the original is still replayed
    assert (status, answer["code"]) == (400, "idempotency_error")
    assert [r.conflict for r in gateway.requests] == [None, "amount_mismatch", None]
    assert gateway.counts() == GatewayCounts(requests=3, distinct_keys=1, charges=1)


def test_a_processed_error_is_replayed_but_an_unavailable_gateway_is_not() -> None:
    declined = Scenario("declined", "a card declined, then success", (Step(402), Step(200)))
    with running(declined) as (gateway, port):
        first = charge(port, "k")
        assert charge(port, "k") == first  # errors included: the first processed answer is replayed
        assert charge(port, "other")[0] == 200
    assert first[0] == 402 and gateway.counts().charges == 1
    assert [r.deduped for r in gateway.requests] == [False, True, False]
    with running("outage") as (gateway, port):
        assert [charge(port, "k")[0] for _ in range(2)] == [503, 503]
    assert [r.deduped for r in gateway.requests] == [False, False]  # 503: nothing stored, each retry is new


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"",
        b"[1, 2]",
        b'{"idempotencyKey": "k"}',
        b'{"amount": -1, "idempotencyKey": "k"}',
        b'{"amount": "100", "idempotencyKey": "k"}',
        b'{"amount": true, "idempotencyKey": "k"}',
        b'{"amount": NaN}',
        b'{"amount": 1, "idempotencyKey": 42}',
        b'{"amount": 1, "idempotencyKey": "' + b"x" * 300 + b'"}',
    ],
    ids=[
        "not-json", "empty", "array", "no-amount", "negative", "string-amount",
        "bool-amount", "nan", "numeric-key", "long-key",
    ],
)  # fmt: skip
def test_bad_input_is_400_recorded_and_does_not_use_a_step(raw: bytes) -> None:
    with running("transient") as (gateway, port):
        status, answer = call(port, raw=raw)
        assert status == 400 and answer["ok"] is False and answer["error"]
        assert charge(port, "k")[0] == 503  # the transient step is still the first one
    bad = gateway.requests[0]
    assert (bad.status, bad.charged, bad.deduped) == (400, False, False)
    assert gateway.counts().charges == 0


def test_chunked_body_is_read() -> None:
    with running(ALWAYS_OK) as (gateway, port):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        body = iter([b'{"amount": 5, ', b'"idempotencyKey": "c"}'])
        conn.request("POST", "/charge", body=body, encode_chunked=True)
        response = conn.getresponse()
        assert (response.status, json.loads(response.read())["amount"]) == (200, 5)
        conn.close()
    assert gateway.requests[0].key == "c"


def test_counts_requests_and_unknown_paths() -> None:
    seen: list[GatewayCounts] = []
    with running(ALWAYS_OK) as (gateway, port):
        gateway.on_counts = seen.append
        charge(port, "k")
        assert call(port, method="GET", path="/counts") == (
            200,
            {"requests": 1, "distinct_keys": 1, "charges": 1},
        )
        status, log = call(port, method="GET", path="/requests")
        assert status == 200 and log[0]["key"] == "k" and log[0]["charged"] is True
        assert call(port, {"amount": 1}, path="/refund")[0] == 404
        assert call(port, method="GET", path="/charge")[0] == 404
        assert call(port, method="DELETE", path="/charge")[0] == 404
    assert gateway.counts().requests == 1
    assert seen == [GatewayCounts(1, 1, 1)]


def test_request_log_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gateway_module, "MAX_LOGGED_REQUESTS", 3)
    with running(ALWAYS_OK) as (gateway, port):
        for number in range(5):
            charge(port, f"k{number}")
    assert [r.index for r in gateway.requests] == [0, 1, 2]
    assert gateway.unlogged == 2
    assert gateway.counts() == GatewayCounts(requests=5, distinct_keys=5, charges=5)


def test_client_that_disconnects_mid_request_does_not_break_the_server() -> None:
    with running(ALWAYS_OK) as (gateway, port):
        for partial in (
            b"POST /charge HTTP/1.1\r\nContent-Length: 50\r\n\r\n{",
            b"POST /ch",
            b"\x00\xff",
        ):
            with socket.create_connection(("127.0.0.1", port)) as client:
                client.sendall(partial)
        assert charge(port, "after")[0] == 200
    assert gateway.counts().charges == 1


def test_clean_shutdown_while_a_request_hangs() -> None:
    gateway = Gateway("restart")
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    with gateway.serve(sock):
        client = hanging_request(port, "k")
        assert gateway.wait_for_requests(1, timeout=5)
        started = time.monotonic()
    assert time.monotonic() - started < 2
    client.settimeout(2)
    assert client.recv(100) == b""  # released without an answer
    client.close()
    assert sock.fileno() == -1
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_serve_refuses_a_second_concurrent_serve() -> None:
    with (
        running(ALWAYS_OK) as (gateway, _),
        socket.create_server(("127.0.0.1", 0)) as other,
        pytest.raises(RuntimeError),
        gateway.serve(other),
    ):
        pass


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not toml [", "not valid TOML"),
        ("x = 1", "no [scenarios.NAME]"),
        ("[scenarios.a]\nsteps = []", "non-empty"),
        ("[scenarios.a]\nsteps = [{status = 200, dealy = 1}]", "unknown field(s) dealy"),
        ("[scenarios.a]\nsteps = [{status = 42}]", "status must be"),
        ("[scenarios.a]\nsteps = [{status = 200, delay = -1}]", "delay must be"),
        ("[scenarios.a]\nsteps = [{status = 200, hang = 1}]", "true or false"),
    ],
    ids=["toml", "no-table", "no-steps", "typo", "status", "delay", "hang"],
)
def test_bad_scenario_files(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "scenarios.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=reason.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        load_scenarios(path)


def test_custom_scenario_file_and_unknown_name(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.toml"
    path.write_text(
        '[scenarios.flaky]\ndescription = "two 502s"\nsteps = [{status = 502}, {status = 502}, {status = 201}]\n'
    )
    flaky = load_scenarios(path)["flaky"]
    with running(flaky) as (gateway, port):
        assert [charge(port, "k")[0] for _ in range(4)] == [502, 502, 201, 201]  # the stored 201 is replayed
    assert gateway.counts().charges == 1
    with pytest.raises(ScenarioError) as caught:
        Gateway("nope")
    assert caught.value.scenario == "nope"
    assert main(["--scenarios", str(path), "--scenario", "nope", "--port", "0"]) == 2
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenarios(tmp_path / "missing.toml")


def _started(process: subprocess.Popen[str], prefix: str) -> int:
    assert process.stderr is not None
    line = process.stderr.readline()
    assert line.startswith(prefix), line
    return int(line.split("http://127.0.0.1:")[1].split(";")[0].split()[0])


def test_main_logs_requests_and_prints_counts_on_sigint() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gradelib", "gateway", "--scenario", "outage", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = _started(process, "gateway: scenario outage on ")
        assert charge(port, "k")[0] == 503
        assert call(port, method="GET", path="/counts")[0] == 200
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=5)
    finally:
        process.kill()
    counts = {"requests": 1, "distinct_keys": 1, "charges": 0}
    assert [json.loads(line) for line in out.splitlines()] == [counts, counts]
    assert process.returncode == 0
    assert "#0" in err and 'key="k"' in err and "-> 503" in err


@needs_node
def test_node_gateway_stub_dedupes_and_prints_counts() -> None:
    with resources.as_file(PAYMENTS.joinpath("gateway", "server.mjs")) as server:
        process = subprocess.Popen(
            [str(NODE), str(server), "--scenario", "transient", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            port = _started(process, "gateway: scenario transient on ")
            assert charge(port, "order-1")[0] == 503
            assert charge(port, "order-1")[1]["chargeId"] == "ch_1"
            assert charge(port, "order-1", headers={"Idempotency-Key": "x"})[1]["chargeId"] == "ch_1"
            assert call(port, raw=b"nope")[0] == 400
            status, counts = call(port, method="GET", path="/counts")
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=5)
        finally:
            process.kill()
    expected = {"requests": 4, "distinct_keys": 1, "charges": 1}
    assert (status, counts) == (200, expected)
    assert [json.loads(line) for line in out.splitlines()] == [expected, expected]
    assert err.count("POST /charge") == 4


@needs_node
def test_model_draft_uses_a_key_per_attempt() -> None:
    """The seeded defect: against `transient` the draft shows two distinct keys for one call."""
    with (
        resources.as_file(PAYMENTS.joinpath("draft", "checkout.mjs")) as draft,
        running("transient") as (gateway, port),
    ):
        script = (
            f"import {{ chargeWithRetry }} from {json.dumps(draft.as_uri())};\n"
            "console.log(JSON.stringify(await chargeWithRetry(100)));"
        )
        done = subprocess.run(
            [str(NODE), "--input-type=module", "-e", script],
            env={**os.environ, "GATEWAY_URL": f"http://127.0.0.1:{port}"},
            capture_output=True,
            text=True,
            timeout=20,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["chargeId"] == "ch_1"
    assert gateway.counts() == GatewayCounts(requests=2, distinct_keys=2, charges=1)


def test_handout_never_names_the_mechanism() -> None:
    handout = PAYMENTS.joinpath("HANDOUT.md").read_text(encoding="utf-8").lower()
    assert "idempot" not in handout and "key" not in handout
    assert "chargewithretry" in handout and "never result" in handout


@needs_node
@pytest.mark.parametrize(
    ("client", "distinct_keys"),
    [("draft", 2), ("fixed", 1)],
    ids=["draft-two-keys", "fixed-one-key"],
)
def test_gradelib_gateway_by_hand_reproduces_the_articles_two_outputs(
    tmp_path: Path, client: str, distinct_keys: int
) -> None:
    """What a reviewer does by hand: `gradelib gateway`, then the client, then Ctrl-C for the counts."""
    draft = PAYMENTS.joinpath("draft", "checkout.mjs").read_text()
    source = (
        draft
        if client == "draft"
        else draft.replace(
            "  for (let i = 0; i < attempts; i++) {",
            "  const key = crypto.randomUUID();\n  for (let i = 0; i < attempts; i++) {",
        ).replace("idempotencyKey: crypto.randomUUID()", "idempotencyKey: key")
    )
    assert (source == draft) == (client == "draft"), "the fix applies to the draft as written"
    checkout = tmp_path / "checkout.mjs"
    checkout.write_text(source)
    process = subprocess.Popen(
        [sys.executable, "-m", "gradelib", "gateway", "--scenario", "transient", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = _started(process, "gateway: scenario transient on ")
        script = f"import {{ chargeWithRetry }} from {json.dumps(checkout.as_uri())}; await chargeWithRetry(100);"
        subprocess.run(
            [str(NODE), "--input-type=module", "-e", script],
            env={**os.environ, "GATEWAY_URL": f"http://127.0.0.1:{port}"},
            check=True,
            timeout=20,
        )
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=5)
    finally:
        process.kill()
    counts = json.loads(out.splitlines()[-1])
    assert counts["requests"] == 2 and counts["distinct_keys"] == distinct_keys
