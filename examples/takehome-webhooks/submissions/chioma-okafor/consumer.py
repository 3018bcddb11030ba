"""Webhook consumer (Python 3.11, standard library): PORT=8787 WEBHOOK_SECRET=... python consumer.py"""

import hashlib
import hmac
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

PORT = int(os.environ.get("PORT", "8787"))
SECRET = os.environ.get("WEBHOOK_SECRET", "dev-secret").encode()
LEDGER = Path("state/ledger.json")


def load() -> dict:
    if LEDGER.exists():
        return json.loads(LEDGER.read_text())
    return {"applied": [], "balances": {}, "charges": {}, "received": []}


def save(ledger: dict) -> None:
    LEDGER.parent.mkdir(exist_ok=True)
    tmp = LEDGER.with_suffix(".tmp")
    tmp.write_text(json.dumps(ledger, indent=2))
    tmp.replace(LEDGER)


def valid(body: bytes, header: str | None) -> bool:
    expected = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header or "")


class Handler(BaseHTTPRequestHandler):
    def answer(self, status: int, text: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(text.encode())

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        event = json.loads(body)
        ledger = load()
        # Claim the event first, so a redelivery that arrives while this one is still being
        # processed is recognised as a duplicate.
        if event["id"] in ledger["received"]:
            return self.answer(200, "duplicate")
        ledger["received"].append(event["id"])
        save(ledger)
        if not valid(body, self.headers.get("X-Signature")):
            return self.answer(401, "bad signature")
        data = event["data"]
        if event["type"] == "charge.refunded" and data["charge"] not in ledger["charges"]:
            ledger["received"].remove(event["id"])  # let the provider's retry through
            save(ledger)
            return self.answer(409, "charge not seen yet")
        sign = 1 if event["type"] == "charge.succeeded" else -1
        ledger["charges"][data["charge"]] = data["amount"]
        ledger["balances"][data["account"]] = ledger["balances"].get(data["account"], 0) + sign * data["amount"]
        ledger["applied"].append(event["id"])
        save(ledger)
        self.answer(200, "ok")

    def log_message(self, format: str, *args: object) -> None:
        pass


HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
