"""A local OpenAI-compatible chat-completions stub that labels tickets by hash, not meaning."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from gradelib.takehome import BodyError, BoundServer, JsonHandler, SubmissionError, serving, stop_on_signals

LABELS: tuple[str, ...] = ("billing", "bug", "account", "feature_request", "other")
StubMode = Literal["healthy", "plain", "failing"]
STUB_MODES: tuple[StubMode, ...] = ("healthy", "plain", "failing")
DEFAULT_MODEL = "gradelib-stub-1"
CHAT_PATH_SUFFIX = "/chat/completions"
MODELS_PATH_SUFFIX = "/models"
MAX_BODY_BYTES = 4 * 1024 * 1024
PACKAGED_TICKETS = ("replay", "tickets.json")

# One reason per label; the hash picks the wording so replies look varied but never change.
JUSTIFICATIONS: Mapping[str, tuple[str, ...]] = {
    "billing": (
        "Mentions an invoice amount, so billing handles it",
        "Asks about a charge on the account, so billing should answer",
        "Concerns a payment or refund, which billing owns",
    ),
    "bug": (
        "Describes behaviour that breaks for the customer, so it goes to engineering as a bug",
        "Reports an error in the product, so it is triaged as a bug",
        "Something stopped working as documented, which makes it a bug",
    ),
    "account": (
        "Is about signing in or account access, so the account team takes it",
        "Asks to change account details, which the account team handles",
        "Concerns who can use the account, so it belongs with account support",
    ),
    "feature_request": (
        "Asks for something the product does not do yet, so it is a feature request",
        "Suggests a new capability rather than reporting a fault",
        "Wants the product extended, which the roadmap team reviews as a feature request",
    ),
    "other": (
        "Does not fit billing, bugs, accounts or features, so it goes to general support",
        "Is a general question with no clear owner, so it is filed as other",
        "Needs a human to read it first, so it is triaged as other",
    ),
}

_ESCAPED_UNICODE = re.compile(r"\\u([0-9a-fA-F]{4})")
_ESCAPED_CHAR = re.compile(r"\\([\"\\/bfnrt])")
_ESCAPE_SPACES = {"b": " ", "f": " ", "n": " ", "r": " ", "t": " "}


# Answers a call about one ticket from elsewhere (a real endpoint), or None to answer as the stub.
Relay = Callable[[str, Any], "tuple[int, Mapping[str, Any]] | None"]


def label_in_reply(payload: Mapping[str, Any]) -> str | None:
    """The label a chat-completions reply gives: JSON content, or a `label: X` line."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(content, str):
        return None
    with contextlib.suppress(ValueError, AttributeError):
        label = json.loads(content).get("label")
        return str(label) if label is not None else None
    match = re.search(r"^\s*label\s*:\s*(\S+)", content, re.IGNORECASE | re.MULTILINE)
    return match.group(1).strip().strip("\"'.,").lower() if match else None


@dataclass(frozen=True)
class StubCall:
    """One model call the stub answered (or refused)."""

    index: int
    time: float
    method: str
    path: str
    ticket_id: str | None
    status: int
    label: str | None
    request_digest: str


@dataclass(frozen=True)
class _Reply:
    status: int
    payload: Mapping[str, Any]
    ticket_id: str | None
    label: str | None
    digest: str


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _normalise(text: str) -> str:
    """Undo JSON escaping and collapse whitespace, so a re-encoded ticket body still matches."""
    text = _ESCAPED_UNICODE.sub(lambda m: chr(int(m.group(1), 16)), text)
    text = _ESCAPED_CHAR.sub(lambda m: _ESCAPE_SPACES.get(m.group(1), m.group(1)), text)
    return " ".join(text.split()).casefold()


def _message_text(messages: Any) -> str:
    """The concatenated text of chat messages, whether content is a string or a list of parts."""
    parts: list[str] = []
    if not isinstance(messages, list):
        return ""
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    parts.append(part["text"])
                elif isinstance(part, str):
                    parts.append(part)
    return "\n".join(parts)


def _error_payload(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class ModelStub:
    """A deterministic chat-completions endpoint that records every model call."""

    def __init__(
        self,
        mode: StubMode = "healthy",
        *,
        tickets: Sequence[Mapping[str, str]] = (),
        salt: str = "",
        model: str = DEFAULT_MODEL,
        fail_status: int = 503,
        on_call: Callable[[StubCall], None] | None = None,
        relay: Relay | None = None,
    ) -> None:
        if mode not in STUB_MODES:
            raise ValueError(f"unknown stub mode {mode!r}; expected one of {STUB_MODES}")
        self.mode: StubMode = mode
        self.salt = salt
        self.model = model
        self.fail_status = fail_status
        self.on_call = on_call
        self.relay = relay
        self._tickets: list[tuple[str, str, str]] = []
        for ticket in tickets:
            ticket_id, body = str(ticket["id"]), str(ticket["body"])
            needle = _normalise(body)
            if needle:
                self._tickets.append((ticket_id, body, needle))
        # Longest first: the first match is then the longest, even when one body contains another.
        self._tickets.sort(key=lambda item: len(item[2]), reverse=True)
        self._lock = threading.Lock()
        self._calls: list[StubCall] = []
        self._serving = False

    @property
    def calls(self) -> tuple[StubCall, ...]:
        """Every model call so far, in arrival order."""
        with self._lock:
            return tuple(self._calls)

    @property
    def call_count(self) -> int:
        """How many model calls arrived (whatever their status)."""
        with self._lock:
            return len(self._calls)

    def label_for(self, ticket_body: str) -> str:
        """The label this stub serves for a ticket body (depends on the salt, not the meaning)."""
        return LABELS[int(_sha256(self.salt + "\0" + ticket_body), 16) % len(LABELS)]

    def labels(self) -> dict[str, str]:
        """Ticket id -> the label this stub serves for it, for every ticket it knows, asked or not."""
        return dict(sorted((ticket_id, self.label_for(body)) for ticket_id, body, _ in self._tickets))

    def justification_for(self, label: str, digest: str) -> str:
        """The one-line justification served with a label, chosen by a hex digest."""
        options = JUSTIFICATIONS.get(label, JUSTIFICATIONS["other"])
        return f"{options[int(digest[:8], 16) % len(options)]} (ref {digest[:4]})."

    def expected_labels(self) -> dict[str, str]:
        """Ticket id -> label served for it, for every ticket answered with a 200."""
        served: dict[str, str] = {}
        for call in self.calls:
            if call.status == 200 and call.ticket_id is not None and call.label is not None:
                served[call.ticket_id] = call.label
        return dict(sorted(served.items()))

    def find_ticket(self, text: str) -> tuple[str, str] | None:
        """(id, body) of the longest ticket body that occurs in text, or None."""
        haystack = _normalise(text)
        for ticket_id, body, needle in self._tickets:
            if needle in haystack:
                return ticket_id, body
        return None

    @contextlib.contextmanager
    def serve(self, sock: socket.socket) -> Iterator[ModelStub]:
        """Serve HTTP on an already bound and listening socket until the block exits."""
        with self._lock:
            if self._serving:
                raise RuntimeError("this ModelStub is already serving")
            self._serving = True
        try:
            server = _StubServer(sock, self)
            with serving(server, "gradelib-modelstub", on_stop=server.stop):
                yield self
        finally:
            with self._lock:
                self._serving = False

    def _answer(self, raw: bytes) -> _Reply:
        request, digest, text, messages = self._read_request(raw)
        found = self.find_ticket(text) if text else None
        ticket_id = found[0] if found else None
        refused = self._refusal(request, messages, ticket_id, digest)
        if refused is not None:
            return refused
        if found and self.relay is not None:
            relayed = self.relay(found[0], request)
            if relayed is not None:
                status, relayed_payload = relayed
                return _Reply(status, relayed_payload, ticket_id, label_in_reply(relayed_payload), digest)
        if found:
            label = self.label_for(found[1])
            # Per ticket, so the same ticket gets the same reason whatever the prompt around it.
            reason_digest = _sha256(self.salt + "\0" + found[1])
        else:
            label = LABELS[int(digest, 16) % len(LABELS)]
            reason_digest = digest
        justification = self.justification_for(label, reason_digest)
        if self.mode == "plain":
            content = f"label: {label}\njustification: {justification}"
        else:
            content = json.dumps({"label": label, "justification": justification})
        return _Reply(200, self._completion(digest, text, content), ticket_id, label, digest)

    def _read_request(self, raw: bytes) -> tuple[Any, str, str, Any]:
        """The request body as JSON (None when it is not), its salted digest, its prompt text, its messages."""
        try:
            request: Any = json.loads(raw)
        except (ValueError, RecursionError):
            request = None
        if request is None:
            digest = hashlib.sha256(self.salt.encode() + b"\0" + raw).hexdigest()
            return None, digest, raw.decode("utf-8", "replace"), None
        canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        messages = request.get("messages") if isinstance(request, dict) else None
        return request, _sha256(self.salt + "\0" + canonical), _message_text(messages), messages

    def _refusal(self, request: Any, messages: Any, ticket_id: str | None, digest: str) -> _Reply | None:
        """The error a failing stub or an unusable request gets, else None."""
        if self.mode == "failing":
            message = "The server is temporarily unable to handle the request."
            payload = _error_payload(message, "server_error", None)
            return _Reply(self.fail_status, payload, ticket_id, None, digest)
        if request is None:
            message = "We could not parse the JSON body of your request."
            payload = _error_payload(message, "invalid_request_error", None)
            return _Reply(400, payload, ticket_id, None, digest)
        if not isinstance(messages, list) or not messages:
            payload = _error_payload("'messages' must be a non-empty array.", "invalid_request_error", "messages")
            return _Reply(400, payload, ticket_id, None, digest)
        return None

    def _completion(self, digest: str, text: str, content: str) -> dict[str, Any]:
        """An OpenAI chat completion answering with `content`."""
        prompt_tokens = max(1, len(text) // 4)
        completion_tokens = max(1, len(content) // 4)
        return {
            "id": f"chatcmpl-{digest[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _record(self, method: str, path: str, reply: _Reply) -> StubCall:
        with self._lock:
            call = StubCall(
                index=len(self._calls),
                time=time.time(),
                method=method,
                path=path,
                ticket_id=reply.ticket_id,
                status=reply.status,
                label=reply.label,
                request_digest=reply.digest,
            )
            self._calls.append(call)
        if self.on_call is not None:
            with contextlib.suppress(Exception):
                self.on_call(call)
        return call


class _StubServer(BoundServer):
    def __init__(self, sock: socket.socket, stub: ModelStub) -> None:
        super().__init__(sock, _StubHandler)
        self.stub = stub
        self.stopped = False  # set on exit: a straggling request is then dropped, not recorded

    def stop(self) -> None:
        self.stopped = True


class _StubHandler(JsonHandler):
    server_version = "gradelib-modelstub/1"
    max_body_bytes = MAX_BODY_BYTES

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        server = cast(_StubServer, self.server)
        answer: _Reply | None = None
        raw = b""
        try:
            raw = self.read_body()
        except BodyError as exc:
            # OpenAI-style errors are sentences.
            error = _error_payload(f"{exc.reason[:1].upper()}{exc.reason[1:]}.", "invalid_request_error", None)
            answer = _Reply(exc.status, error, None, None, "")
        if not path.rstrip("/").endswith(CHAT_PATH_SUFFIX):
            self._not_found(path)
            return
        if server.stopped:
            self.close_connection = True
            return
        if answer is None:
            try:
                answer = server.stub._answer(raw)
            except Exception:  # one odd request must never take the server down
                error = _error_payload("stub error", "server_error", None)
                answer = _Reply(500, error, None, None, "")
        server.stub._record("POST", path, answer)
        self.send_json(answer.status, answer.payload)

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if not path.rstrip("/").endswith(MODELS_PATH_SUFFIX):
            self._not_found(path)
            return
        model = cast(_StubServer, self.server).stub.model
        entry = {"id": model, "object": "model", "created": 0, "owned_by": "gradelib"}
        self.send_json(200, {"object": "list", "data": [entry]})

    def _other(self) -> None:
        self._not_found(urlsplit(self.path).path)

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _other

    def _not_found(self, path: str) -> None:
        payload = _error_payload(f"Unknown path {path!r}.", "invalid_request_error", "not_found")
        self.send_json(404, payload)


def load_tickets(path: Path) -> list[dict[str, str]]:
    """Read a tickets file: a JSON array of {"id": str, "body": str} with unique ids."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SubmissionError(str(path), "tickets file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SubmissionError(str(path), f"cannot read tickets file: {exc}") from exc
    except ValueError as exc:
        raise SubmissionError(str(path), f"tickets file is not valid JSON: {exc}") from exc
    if not isinstance(data, list):
        raise SubmissionError(str(path), "tickets file must hold a JSON array")
    tickets: list[dict[str, str]] = []
    seen: set[str] = set()
    for position, item in enumerate(data):
        if not isinstance(item, dict):
            raise SubmissionError(str(path), f"ticket #{position} is not an object")
        ticket_id, body = item.get("id"), item.get("body")
        if not isinstance(ticket_id, str) or not ticket_id:
            raise SubmissionError(str(path), f"ticket #{position} has no string 'id'")
        if not isinstance(body, str) or not body.strip():
            raise SubmissionError(str(path), f"ticket {ticket_id!r} has no string 'body'")
        if ticket_id in seen:
            raise SubmissionError(str(path), f"duplicate ticket id {ticket_id!r}")
        seen.add(ticket_id)
        tickets.append({"id": ticket_id, "body": body})
    return tickets


def packaged_tickets() -> list[dict[str, str]]:
    """The tickets of the `replay` handout that ships with the kit."""
    resource = resources.files("gradelib.takehomes").joinpath(*PACKAGED_TICKETS)
    with resources.as_file(resource) as path:
        return load_tickets(path)


def summary(stub: ModelStub) -> dict[str, Any]:
    """The calls a stub answered, as a JSON-ready summary."""
    calls = stub.calls
    by_status: dict[str, int] = {}
    for call in calls:
        by_status[str(call.status)] = by_status.get(str(call.status), 0) + 1
    return {
        "mode": stub.mode,
        "model": stub.model,
        "call_count": len(calls),
        "by_status": dict(sorted(by_status.items())),
        "expected_labels": stub.expected_labels(),
        "calls": [asdict(call) for call in calls],
    }


def _print_call(call: StubCall) -> None:
    print(
        f"modelstub: #{call.index} {call.method} {call.path} -> {call.status}"
        f" ticket={call.ticket_id or '-'} label={call.label or '-'}",
        file=sys.stderr,
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stub until Ctrl-C or SIGTERM; print each call to stderr, a JSON summary on exit."""
    parser = argparse.ArgumentParser(prog="gradelib stub", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080, help="0 picks a free port")
    parser.add_argument("--mode", choices=STUB_MODES, default="healthy")
    parser.add_argument("--tickets", type=Path, help="tickets.json (default: the packaged one)")
    parser.add_argument("--salt", default="")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--fail-status", type=int, default=503)
    args = parser.parse_args(argv)
    try:
        tickets = load_tickets(args.tickets) if args.tickets else packaged_tickets()
    except SubmissionError as exc:
        print(f"modelstub: {exc}", file=sys.stderr)
        return 2
    stub = ModelStub(
        args.mode,
        tickets=tickets,
        salt=args.salt,
        model=args.model,
        fail_status=args.fail_status,
        on_call=_print_call,
    )
    try:
        sock = socket.create_server((args.host, args.port))
    except OSError as exc:
        print(f"modelstub: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    with stop_on_signals() as stop, sock, stub.serve(sock):
        host, port = sock.getsockname()[:2]
        print(
            f"modelstub: {args.mode} on http://{host}:{port}/v1 ({len(tickets)} tickets); Ctrl-C to stop",
            file=sys.stderr,
            flush=True,
        )
        with contextlib.suppress(KeyboardInterrupt):
            while not stop.wait(0.2):
                pass
    print(json.dumps(summary(stub), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
