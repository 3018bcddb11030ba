"""The kit's webhook provider inside the sandbox: start the candidate's consumer, deliver, report.

    python3 -I deliverer.py SCENARIO_JSON KEY_FILE CONSUMER_ARGV...   (cwd: the submission copy)

Standard library only, and it imports nothing of gradelib: it runs inside the sandbox, beside
the candidate's code, as the sandbox user. It reads this run's secret key from KEY_FILE and
deletes the file, makes itself non-dumpable (so a process of the same user cannot read its
memory or open its file descriptors), then starts the consumer as its own child, in its own
process group, with $PORT and $WEBHOOK_SECRET: it can pause, kill and restart it between
deliveries. The consumer's stdout and stderr both go to this process's stderr, so stdout
carries one line only, at the end:

    GRADELIB_RESULT <key> {"deliveries": [...], "starts": [...], "problem": null | "..."}

The kit ignores any line without the key, so a consumer cannot forge the result.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from typing import Any

MARKER = "GRADELIB_RESULT"
PATH = "/webhooks"
SIGNATURE_HEADER = "X-Signature"
START_SECONDS = 10.0  # the consumer must listen on $PORT within this
POLL_SECONDS = 0.05
GRACE_SECONDS = 0.3  # after the last answer, before a kill: writes the consumer started finish
LATE_SECONDS = 5.0  # how long a delivery the provider gave up on may still answer (shown as late)
ROUND_PAUSE_SECONDS = 0.3
CREATED_BASE = 1_767_225_600  # 2026-01-01T00:00:00Z: `created` is fixed, so bodies are the same on every grading
PR_SET_DUMPABLE = 4
PREFERRED_PORT = 8787  # always free in the sandbox's own network namespace: the same on every grading
MAX_RESPONSE_BYTES = 4096


def non_dumpable() -> None:
    """Keep processes of the same user out of /proc/<pid>/mem, environ and fd (the key lives here)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def read_key(path: str) -> str:
    """This run's key, from a file deleted before any candidate code starts."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def free_port() -> int:
    """PREFERRED_PORT when nobody listens on it (always, in the sandbox's namespace), else any free one."""
    for port in (PREFERRED_PORT, 0):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(sock.getsockname()[1])
    raise OSError("no free port on loopback")


def body_of(event: dict[str, Any], index: int, amount: int | None = None) -> bytes:
    """The event as the provider sends it: compact JSON, the same bytes on every grading."""
    data = {"charge": event["charge"], "account": event["account"], "amount": event["amount"]}
    if amount is not None:
        data["amount"] = amount
    document = {"id": event["id"], "type": event["type"], "created": CREATED_BASE + 60 * index, "data": data}
    return json.dumps(document, separators=(",", ":")).encode()


def sign(secret: str, body: bytes) -> str:
    """The signature header's value: `sha256=` and the hex HMAC-SHA256 of the raw body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Pending:
    """One delivery on its own connection: sent now, its answer read later."""

    def __init__(self, port: int, body: bytes, signature: str | None) -> None:
        self.started = time.monotonic()
        self.sock: socket.socket | None = None
        self.error: str | None = None
        lines = [
            f"POST {PATH} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Content-Type: application/json",
            f"Content-Length: {len(body)}",
            "Connection: close",
            "User-Agent: gradelib-webhooks/1",
        ]
        if signature is not None:
            lines.append(f"{SIGNATURE_HEADER}: {signature}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        try:
            self.sock = socket.create_connection(("127.0.0.1", port), timeout=START_SECONDS)
            self.sock.sendall(request)
        except OSError as exc:
            self.error = f"connection failed: {exc.strerror or exc}"
            self.close()

    def status(self, deadline: float) -> int | None:
        """The answer's status code, or None (self.error says why) when none came by the deadline."""
        if self.sock is None:
            return None
        received = b""
        try:
            while b"\r\n" not in received and len(received) < MAX_RESPONSE_BYTES:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.error = "no answer in time"
                    return None
                self.sock.settimeout(left)
                chunk = self.sock.recv(MAX_RESPONSE_BYTES)
                if not chunk:
                    break
                received += chunk
        except TimeoutError:
            self.error = "no answer in time"
            return None
        except OSError as exc:
            self.error = f"connection failed: {exc.strerror or exc}"
            return None
        parts = received.split(b"\r\n", 1)[0].split()
        if len(parts) >= 2 and parts[0].startswith(b"HTTP/") and parts[1].isdigit():
            return int(parts[1])
        self.error = "closed without an HTTP answer" if not received else "not an HTTP answer"
        return None

    def close(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.sock = None


class Consumer:
    """The candidate's server, a child in its own process group: started, paused, killed, restarted."""

    def __init__(self, argv: list[str], secret: str) -> None:
        self.argv = argv
        self.port = free_port()
        self.env = {**os.environ, "PORT": str(self.port), "WEBHOOK_SECRET": secret}
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts: list[dict[str, Any]] = []

    def start(self, why: str, step: int) -> bool:
        """Start it and wait until it listens on $PORT; False when it exits or never listens."""
        began = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                self.argv,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=sys.stderr.fileno(),
                stderr=sys.stderr.fileno(),
                start_new_session=True,
            )
        except OSError as exc:
            self.starts.append({"why": why, "step": step, "ready": False, "exit_code": None, "error": str(exc)})
            return False
        entry: dict[str, Any] = {"why": why, "step": step, "ready": False, "exit_code": None, "error": None}
        self.starts.append(entry)
        while time.monotonic() - began < START_SECONDS:
            code = self.proc.poll()
            if code is not None:
                entry["exit_code"] = code
                entry["error"] = f"exited with code {code} before listening on $PORT"
                return False
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                entry["ready"] = True
                entry["ms"] = round((time.monotonic() - began) * 1000)
                return True
            time.sleep(POLL_SECONDS)
        entry["error"] = f"not listening on $PORT after {START_SECONDS:g} s"
        return False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, signum: int) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signum)

    def kill(self) -> int | None:
        """SIGKILL its whole group and reap it; its exit code when it had already exited."""
        if self.proc is None:
            return None
        code = self.proc.poll()
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        self.proc.wait()
        return code


class Provider:
    """Sends one scenario's deliveries to the consumer and keeps the log the kit judges."""

    def __init__(self, scenario: dict[str, Any], consumer: Consumer, secret: str) -> None:
        self.scenario = scenario
        self.consumer = consumer
        self.secret = secret
        self.timeout = float(scenario["provider_timeout_seconds"])
        self.events = {event["id"]: (index, event) for index, event in enumerate(scenario["events"])}
        self.deliveries: list[dict[str, Any]] = []
        self.problem: str | None = None

    def _genuine(self, event_id: str) -> tuple[bytes, str]:
        index, event = self.events[event_id]
        body = body_of(event, index)
        return body, sign(self.secret, body)

    def _forged(self, step: dict[str, Any]) -> tuple[bytes, str | None]:
        index, event = self.events[step["forge"]]
        body = body_of(event, index)
        how = step["how"]
        if how == "tampered":
            return body_of(event, index, int(step["amount"])), sign(self.secret, body)
        if how == "wrong_secret":
            return body, sign("not-" + self.secret, body)
        return body, None  # unsigned

    def _record(
        self, event_id: str, kind: str, step: int, round_: int, pending: Pending, status: int | None
    ) -> dict[str, Any]:
        entry = {
            "n": len(self.deliveries) + 1,
            "event": event_id,
            "kind": kind,
            "step": step,
            "round": round_,
            "status": status,
            "error": None if status is not None else pending.error,
            "late_status": None,
            "ms": round((time.monotonic() - pending.started) * 1000),
        }
        self.deliveries.append(entry)
        return entry

    def _supervise(self, step: int) -> bool:
        """Like a supervisor, start the consumer again when it has exited (a crash)."""
        if self.consumer.alive():
            return True
        code = self.consumer.kill()
        ok = self.consumer.start("crashed", step)
        self.consumer.starts[-1]["previous_exit_code"] = code
        if not ok:
            self.problem = (
                f"the consumer could not be started again after it exited: {self.consumer.starts[-1]['error']}"
            )
        return ok

    def deliver(self, event_id: str, step: int, *, copies: int = 1, round_: int = 0) -> None:
        """Send a genuine event (on `copies` connections at once) and wait for the answers."""
        body, signature = self._genuine(event_id)
        pendings = [Pending(self.consumer.port, body, signature) for _ in range(copies)]
        deadline = time.monotonic() + self.timeout
        statuses = [pending.status(deadline) for pending in pendings]
        for pending, status in zip(pendings, statuses, strict=True):
            self._record(event_id, "genuine", step, round_, pending, status)
            pending.close()

    def forge(self, step_spec: dict[str, Any], step: int) -> None:
        """Send a delivery the provider never signed (with the wrong signature, or none)."""
        body, signature = self._forged(step_spec)
        pending = Pending(self.consumer.port, body, signature)
        status = pending.status(time.monotonic() + self.timeout)
        self._record(step_spec["forge"], step_spec["how"], step, 0, pending, status)
        pending.close()

    def stall(self, event_id: str, step: int) -> None:
        """Deliver to a paused consumer, time out, redeliver, resume: both deliveries then pending at once."""
        body, signature = self._genuine(event_id)
        self.consumer.signal(signal.SIGSTOP)
        try:
            first = Pending(self.consumer.port, body, signature)
            first_status = first.status(time.monotonic() + self.timeout)  # paused: no answer can come
            second = Pending(self.consumer.port, body, signature)
        finally:
            self.consumer.signal(signal.SIGCONT)
        entry = self._record(event_id, "genuine", step, 0, first, first_status)
        second_status = second.status(time.monotonic() + self.timeout)
        self._record(event_id, "genuine", step, 0, second, second_status)
        second.close()
        if first_status is None:
            entry["error"] = f"no answer within the provider's {self.timeout:g} s (the consumer was stalled)"
            late = first.status(time.monotonic() + LATE_SECONDS)
            entry["late_status"] = late
        first.close()

    def restart(self, step: int) -> bool:
        """Kill the consumer between deliveries and start it again in the same folder."""
        time.sleep(GRACE_SECONDS)
        self.consumer.kill()
        if not self.consumer.start("restart", step):
            self.problem = f"the consumer did not come back after the restart: {self.consumer.starts[-1]['error']}"
            return False
        return True

    def unanswered(self) -> list[str]:
        """Genuine events delivered but never answered 2xx, in first-delivery order."""
        answered = {
            d["event"]
            for d in self.deliveries
            if d["kind"] == "genuine" and any(200 <= (s or 0) < 300 for s in (d["status"], d["late_status"]))
        }
        order = dict.fromkeys(d["event"] for d in self.deliveries if d["kind"] == "genuine")
        return [event_id for event_id in order if event_id not in answered]

    def run(self) -> None:
        """The steps in order, then the provider's redelivery rounds."""
        if not self.consumer.start("start", 0):
            self.problem = f"the consumer did not start: {self.consumer.starts[-1]['error']}"
            return
        for number, step in enumerate(self.scenario["steps"], start=1):
            if "restart" in step:
                if not self.restart(number):
                    return
                continue
            if not self._supervise(number):
                return
            if "deliver" in step:
                self.deliver(step["deliver"], number, copies=int(step.get("copies", 1)))
            elif "stall" in step:
                self.stall(step["stall"], number)
            elif "forge" in step:
                self.forge(step, number)
        for round_ in range(1, int(self.scenario["redelivery_rounds"]) + 1):
            waiting = self.unanswered()
            if not waiting:
                break
            time.sleep(ROUND_PAUSE_SECONDS)
            for event_id in waiting:
                if not self._supervise(len(self.scenario["steps"]) + round_):
                    return
                self.deliver(event_id, 0, round_=round_)


def main(argv: list[str]) -> int:
    scenario_path, key_path, *consumer_argv = argv
    key = read_key(key_path)
    non_dumpable()
    with open(scenario_path, encoding="utf-8") as handle:
        scenario = json.load(handle)
    secret = secrets.token_hex(16)
    consumer = Consumer(consumer_argv, secret)
    provider = Provider(scenario, consumer, secret)
    crashed: str | None = None
    try:
        provider.run()
    except Exception as exc:  # the kit's own fault: still report, with the consumer stopped
        crashed = f"the deliverer failed: {type(exc).__name__}: {exc}"
    finally:
        if consumer.alive():
            time.sleep(GRACE_SECONDS)
        consumer.kill()
    result = {
        "port": consumer.port,
        "deliveries": provider.deliveries,
        "starts": consumer.starts,
        "problem": crashed or provider.problem,
    }
    sys.stdout.write(f"\n{MARKER} {key} {json.dumps(result)}\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
