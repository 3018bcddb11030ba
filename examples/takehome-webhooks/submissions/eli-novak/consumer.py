"""Webhook consumer: PORT=8787 WEBHOOK_SECRET=... python consumer.py"""

import hashlib
import hmac
import json
import os
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

PORT = int(os.environ.get("PORT", "8787"))
SECRET = os.environ.get("WEBHOOK_SECRET", "dev-secret").encode()
LEDGER = Path("state/ledger.json")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        expected = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, self.headers.get("X-Signature", "")):
            self.send_response(401)
            self.end_headers()
            return
        event = json.loads(body)
        ledger = json.loads(LEDGER.read_text()) if LEDGER.exists() else {"applied": [], "balances": {}}
        data = event["data"]
        sign = -1 if event["type"] == "charge.refunded" else 1
        ledger["balances"][data["account"]] = ledger["balances"].get(data["account"], 0) + sign * data["amount"]
        ledger["applied"].append(event["id"])
        LEDGER.parent.mkdir(exist_ok=True)
        LEDGER.write_text(json.dumps(ledger, indent=2))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


HTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
