"""The kit's fake payment gateway: scripted scenarios, dedupe by key, a request log and counts.

Idempotency follows Stripe's documented rules, with one decision about scripted failures:

- The first *processed* answer for a key is stored and replayed, status and body, to every later
  request with that key (errors included: a scripted 402 is replayed as a 402). No money moves.
- A request the gateway did not process stores nothing: a malformed body (400), and a scripted
  5xx or 429, which stand for "unavailable before the charge started" (Stripe stores no result
  when no endpoint began executing). So the transient scenario's first 503 is not replayed and
  a retry with the same key is a new attempt, as a client that behaves needs. A step can say
  `processed = true` for a failure that happened while charging.
- A request whose key is still in flight (its first answer not complete: a step's `delay` is
  processing time) gets 409 `idempotency_key_in_use`; it stores nothing and uses no step.
- A known key with a different amount gets 400 `idempotency_error`.
- A hung step (`hang`) is processed at once: its answer is stored, only the reply is lost on the
  way, so the client that comes back after a restart with the same key gets the replay.
"""

from __future__ import annotations

import argparse
import contextlib
import http
import json
import math
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from email.message import Message
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from gradelib.takehome import (
    POLL_INTERVAL_SECONDS,
    BodyError,
    BoundServer,
    JsonHandler,
    ScenarioError,
    client_gone,
    serving,
    stop_on_signals,
)
from gradelib.takehomes.payments.scenarios import PACKAGED_SCENARIOS, Scenario, load_scenarios

KeySource = Literal["body", "header", "none"]
Conflict = Literal["key_in_use", "amount_mismatch"]
DEFAULT_SCENARIO = "transient"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8099
CHARGE_PATH = "/charge"
COUNTS_PATH = "/counts"
REQUESTS_PATH = "/requests"
KEY_FIELD = "idempotencyKey"
KEY_HEADER = "Idempotency-Key"
# Bounds, so a flooding or hostile client cannot exhaust the grader's memory or threads.
MAX_LOGGED_REQUESTS = 10_000
MAX_TRACKED_KEYS = 100_000
MAX_OPEN_CONNECTIONS = 256
MAX_KEY_CHARS = 255
MAX_BODY_BYTES = 64 * 1024
MAX_LOGGED_HEADERS = 64
MAX_HEADER_CHARS = 1024
MAX_AMOUNT_CHARS = 200
# On exit, in-flight answers get this long to finish before their connections are cut.
STOP_GRACE_SECONDS = 0.5


@dataclass(frozen=True)
class GatewayRequest:
    """One `POST /charge` as the gateway saw it and answered it."""

    index: int
    time: float  # monotonic seconds since the gateway started serving
    method: str
    path: str
    key: str | None
    key_source: KeySource
    amount: object  # as sent (long values are cut short)
    headers: Mapping[str, str]  # lower-case names
    status: int | None  # None when hung
    charged: bool
    deduped: bool  # the stored first answer for its key was replayed
    attempt: int  # 1-based per key; a request without a key is its own call
    conflict: Conflict | None = None  # 409 (key still in flight) or 400 (key known with another amount)

    def to_dict(self) -> dict[str, Any]:
        """The request as JSON-ready data."""
        data = {item.name: getattr(self, item.name) for item in fields(self)}
        return {**data, "headers": dict(self.headers)}


@dataclass(frozen=True)
class GatewayCounts:
    """What arrived, how many keys it carried, and how often money moved."""

    requests: int
    distinct_keys: int
    charges: int

    def to_dict(self) -> dict[str, int]:
        """The counts as JSON-ready data."""
        return asdict(self)


@dataclass(frozen=True)
class _Parsed:
    key: str | None
    key_source: KeySource
    amount: object
    problem: tuple[int, str] | None


@dataclass(frozen=True)
class _Answer:
    status: int | None  # None: hold the connection, never answer
    payload: Mapping[str, Any]
    delay: float


@dataclass(frozen=True)
class _Stored:
    """The first processed answer for a key, replayed to every later request with it."""

    status: int
    payload: Mapping[str, Any]
    amount: object
    ready_at: float  # monotonic time its first answer is complete; until then the key is in flight


KEY_IN_USE = "a request with this idempotency key is still being processed; retry later"
AMOUNT_MISMATCH = "this idempotency key was already used with a different amount"


def _bounded(value: object) -> object:
    """The value as sent, or its JSON text cut short when it is long."""
    text = json.dumps(value)
    return value if len(text) <= MAX_AMOUNT_CHARS else text[:MAX_AMOUNT_CHARS] + "..."


def _valid_key(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_KEY_CHARS


def _parse_charge(raw: bytes, header_key: str | None) -> _Parsed:
    """Key, key source, amount and (status, reason) of any problem in a charge request."""
    try:
        body: Any = json.loads(raw)
    except (ValueError, RecursionError):
        body = None
    key: str | None = None
    source: KeySource = "none"
    problem: tuple[int, str] | None = None
    if isinstance(body, dict) and body.get(KEY_FIELD) is not None:
        key, source = body[KEY_FIELD], "body"
        if not _valid_key(key):
            key, source = None, "none"
            problem = (400, f"{KEY_FIELD} must be a string of 1 to {MAX_KEY_CHARS} characters")
    elif header_key:
        key, source = header_key, "header"
        if not _valid_key(key):
            key, source = None, "none"
            problem = (400, f"{KEY_HEADER} must be 1 to {MAX_KEY_CHARS} characters")
    amount = body.get("amount") if isinstance(body, dict) else None
    if not isinstance(body, dict):
        problem = (400, "body must be a JSON object")
    elif "amount" not in body:
        problem = (400, "amount is required")
    elif type(amount) not in (int, float) or not math.isfinite(cast(float, amount)):
        problem = (400, "amount must be a number")
    elif cast(float, amount) < 0:
        problem = (400, "amount must not be negative")
    return _Parsed(key, source, _bounded(amount), problem)


def _error(status: int, reason: str | None = None, code: str | None = None) -> dict[str, Any]:
    if reason is None:
        with contextlib.suppress(ValueError):
            reason = http.HTTPStatus(status).phrase.lower()
    payload: dict[str, Any] = {"ok": False, "error": reason or f"status {status}"}
    return payload | ({"code": code} if code else {})


class Gateway:
    """A fake payment gateway that follows a scenario and records every charge request."""

    def __init__(
        self,
        scenario: Scenario | str = DEFAULT_SCENARIO,
        *,
        on_request: Callable[[GatewayRequest], None] | None = None,
        on_counts: Callable[[GatewayCounts], None] | None = None,
    ) -> None:
        if isinstance(scenario, str):
            known = load_scenarios()
            if scenario not in known:
                names = ", ".join(sorted(known))
                where = "/".join(PACKAGED_SCENARIOS)
                raise ScenarioError(where, f"no such scenario; known: {names}", scenario=scenario)
            scenario = known[scenario]
        self.scenario = scenario
        self.on_request = on_request
        self.on_counts = on_counts
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._log: list[GatewayRequest] = []
        self._total = 0
        self._steps_used = 0
        self._attempts: dict[str, int] = {}
        self._stored: dict[str, _Stored] = {}
        self._charges = 0
        self._started: float | None = None
        self._serving = False

    @property
    def requests(self) -> tuple[GatewayRequest, ...]:
        """The logged charge requests in arrival order (the first MAX_LOGGED_REQUESTS)."""
        with self._lock:
            return tuple(self._log)

    @property
    def unlogged(self) -> int:
        """How many requests arrived after the log was full (counted, not kept)."""
        with self._lock:
            return self._total - len(self._log)

    def counts(self) -> GatewayCounts:
        """Requests that arrived, distinct keys they carried, and charges actually made."""
        with self._lock:
            return GatewayCounts(self._total, len(self._attempts), self._charges)

    def wait_for_requests(self, n: int, timeout: float) -> bool:
        """Block until n charge requests have arrived (hung ones too); False on timeout."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self._total >= n, timeout)

    @contextlib.contextmanager
    def serve(self, sock: socket.socket) -> Iterator[Gateway]:
        """Serve HTTP on an already bound, listening socket until the block exits, then close it."""
        with self._lock:
            if self._serving:
                raise RuntimeError("this Gateway is already serving")
            self._serving = True
            self._stop.clear()
            if self._started is None:
                self._started = time.monotonic()
        try:
            server = _GatewayServer(sock, self)
            # Setting the stop event releases hung and delayed requests.
            with serving(server, "gradelib-gateway", on_stop=self._stop.set, grace=STOP_GRACE_SECONDS):
                yield self
        finally:
            with self._lock:
                self._serving = False

    def _charge(self, headers: Mapping[str, str], parsed: _Parsed) -> _Answer:
        """Record one charge request and decide the answer, under the lock so keys never race."""
        with self._lock:
            key, problem, attempt = parsed.key, parsed.problem, 1
            if key is not None:
                if key in self._attempts or len(self._attempts) < MAX_TRACKED_KEYS:
                    attempt = self._attempts[key] = self._attempts.get(key, 0) + 1
                else:
                    key, problem = None, (429, "too many distinct keys")
            charged = deduped = False
            conflict: Conflict | None = None
            now = time.monotonic()
            stored = self._stored.get(key) if key is not None else None
            if problem is not None:
                answer = _Answer(problem[0], _error(*problem), 0.0)
            elif stored is not None and stored.amount != parsed.amount:
                conflict = "amount_mismatch"
                answer = _Answer(400, _error(400, AMOUNT_MISMATCH, "idempotency_error"), 0.0)
            elif stored is not None and now < stored.ready_at:
                conflict = "key_in_use"
                answer = _Answer(409, _error(409, KEY_IN_USE, "idempotency_key_in_use"), 0.0)
            elif stored is not None:
                deduped = True
                answer = _Answer(stored.status, stored.payload, 0.0)
            else:
                answer, charged = self._process(key, parsed.amount, now)
            started = self._started if self._started is not None else time.monotonic()
            request = GatewayRequest(
                index=self._total,
                time=round(time.monotonic() - started, 6),
                method="POST",
                path=CHARGE_PATH,
                key=key,
                key_source=parsed.key_source if key is not None else "none",
                amount=parsed.amount,
                headers=MappingProxyType(dict(headers)),
                status=answer.status,
                charged=charged,
                deduped=deduped,
                attempt=attempt,
                conflict=conflict,
            )
            self._total += 1
            if len(self._log) < MAX_LOGGED_REQUESTS:
                self._log.append(request)
            self._arrived.notify_all()
        if self.on_request is not None:
            with contextlib.suppress(Exception):
                self.on_request(request)
        return answer

    def _process(self, key: str | None, amount: object, now: float) -> tuple[_Answer, bool]:
        """The scenario's next step for a request that reaches processing (lock held): answer, charged."""
        step = self.scenario.step(self._steps_used)
        self._steps_used += 1
        charged = step.moves_money
        if charged:
            self._charges += 1
            payload: Mapping[str, Any] = {
                "ok": True,
                "chargeId": f"ch_{self._charges}",
                "amount": amount,
                KEY_FIELD: key,
            }
        else:
            payload = _error(step.status)
        if key is not None and step.stored:
            ready_at = now if step.hang else now + step.delay  # a hung answer is lost, not still processing
            self._stored[key] = _Stored(step.status, payload, amount, ready_at)
        return _Answer(None if step.hang else step.status, payload, step.delay), charged


def _logged_headers(headers: Message) -> dict[str, str]:
    logged: dict[str, str] = {}
    for name, value in list(headers.items())[:MAX_LOGGED_HEADERS]:
        name, value = name.lower(), str(value)[:MAX_HEADER_CHARS]
        logged[name] = f"{logged[name]}, {value}" if name in logged else value
    return logged


class _GatewayServer(BoundServer):
    def __init__(self, sock: socket.socket, gateway: Gateway) -> None:
        super().__init__(sock, _GatewayHandler, max_connections=MAX_OPEN_CONNECTIONS)
        self.gateway = gateway


class _GatewayHandler(JsonHandler):
    server_version = "gradelib-gateway/1"
    max_body_bytes = MAX_BODY_BYTES

    def do_POST(self) -> None:
        server = cast(_GatewayServer, self.server)
        problem: tuple[int, str] | None = None
        raw = b""
        try:
            raw = self.read_body()
        except BodyError as exc:
            problem = (exc.status, exc.reason)
        if urlsplit(self.path).path != CHARGE_PATH:
            self.send_json(404, _error(404))
            return
        gateway = server.gateway
        if gateway._stop.is_set():
            self.close_connection = True
            return
        parsed = _parse_charge(raw, self.headers.get(KEY_HEADER))
        if problem is not None:
            parsed = _Parsed(parsed.key, parsed.key_source, parsed.amount, problem)
        answer = gateway._charge(_logged_headers(self.headers), parsed)
        if answer.status is None:
            while not gateway._stop.wait(POLL_INTERVAL_SECONDS):
                if client_gone(self.connection):
                    break
            self.close_connection = True
            return
        if answer.delay > 0 and gateway._stop.wait(answer.delay):
            self.close_connection = True
            return
        self.send_json(answer.status, answer.payload)

    def do_GET(self) -> None:
        gateway = cast(_GatewayServer, self.server).gateway
        path = urlsplit(self.path).path
        if path == COUNTS_PATH:
            counts = gateway.counts()
            self.send_json(200, counts.to_dict())
            if gateway.on_counts is not None:
                with contextlib.suppress(Exception):
                    gateway.on_counts(counts)
        elif path == REQUESTS_PATH:
            self.send_json(200, [request.to_dict() for request in gateway.requests])
        else:
            self.send_json(404, _error(404))

    def _other(self) -> None:
        with contextlib.suppress(BodyError):
            self.read_body()
        self.send_json(404, _error(404))

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _other


def _print_request(request: GatewayRequest) -> None:
    key = json.dumps(request.key)[:60] if request.key is not None else "-"
    outcome = "hung" if request.status is None else str(request.status)
    flags = "".join(
        (
            " charged" if request.charged else "",
            " replayed" if request.deduped else "",
            f" {request.conflict}" if request.conflict else "",
        )
    )
    print(
        f"gateway: #{request.index} +{request.time:.3f}s {request.method} {request.path}"
        f" key={key} ({request.key_source}) attempt={request.attempt}"
        f" amount={json.dumps(request.amount)[:40]} -> {outcome}{flags}",
        file=sys.stderr,
        flush=True,
    )


def _print_counts(counts: GatewayCounts) -> None:
    print(json.dumps(counts.to_dict()), flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the gateway until Ctrl-C or SIGTERM; log requests to stderr, print counts on exit."""
    parser = argparse.ArgumentParser(prog="gradelib gateway", description=__doc__)
    parser.add_argument("--scenario", default=DEFAULT_SCENARIO, help="a scenario name from the scenarios file")
    parser.add_argument("--host", default=DEFAULT_HOST)
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="0 picks a free port")
    parser.add_argument("--scenarios", type=Path, help="scenarios TOML (default: the packaged one)")
    parser.add_argument("--counts-every", type=float, metavar="SECONDS", help="also print the counts this often")
    args = parser.parse_args(argv)
    if args.counts_every is not None and not args.counts_every > 0:
        parser.error("--counts-every must be a positive number of seconds")
    try:
        scenarios = load_scenarios(args.scenarios)
        if args.scenario not in scenarios:
            where = str(args.scenarios or "/".join(PACKAGED_SCENARIOS))
            known = ", ".join(sorted(scenarios))
            raise ScenarioError(where, f"no such scenario; known: {known}", args.scenario)
    except ScenarioError as exc:
        print(f"gateway: {exc}", file=sys.stderr)
        return 2
    gateway = Gateway(scenarios[args.scenario], on_request=_print_request, on_counts=_print_counts)
    try:
        sock = socket.create_server((args.host, args.port))
    except OSError as exc:
        print(f"gateway: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    with stop_on_signals() as stop, sock, gateway.serve(sock):
        host, port = sock.getsockname()[:2]
        print(
            f"gateway: scenario {gateway.scenario.name} on http://{host}:{port}; Ctrl-C prints the counts and stops",
            file=sys.stderr,
            flush=True,
        )
        next_counts = time.monotonic() + (args.counts_every or math.inf)
        with contextlib.suppress(KeyboardInterrupt):
            while not stop.wait(POLL_INTERVAL_SECONDS * 4):
                if time.monotonic() >= next_counts:
                    _print_counts(gateway.counts())
                    next_counts += args.counts_every
    _print_counts(gateway.counts())
    return 0


if __name__ == "__main__":
    sys.exit(main())
