"""Sign one webhook event and POST it to a local consumer (Python 3, standard library only).

python3 send_event.py --type charge.succeeded --charge ch_1 --account acct_ana --amount 1500
python3 send_event.py --id evt_1 --times 2 ...   # the same event, twice
python3 send_event.py --bad-signature ...        # signed with another secret
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import secrets
import time
import urllib.error
import urllib.request


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8787")))
    parser.add_argument("--secret", default=os.environ.get("WEBHOOK_SECRET", "dev-secret"))
    parser.add_argument("--id", default=None, help="the event id (default: a new one)")
    parser.add_argument("--type", default="charge.succeeded", choices=["charge.succeeded", "charge.refunded"])
    parser.add_argument("--charge", default="ch_1")
    parser.add_argument("--account", default="acct_ana")
    parser.add_argument("--amount", type=int, default=1500, help="cents")
    parser.add_argument("--times", type=int, default=1, help="deliver the same event this many times")
    parser.add_argument("--bad-signature", action="store_true", help="sign with another secret")
    args = parser.parse_args()
    event = {
        "id": args.id or f"evt_{secrets.token_hex(6)}",
        "type": args.type,
        "created": int(time.time()),
        "data": {"charge": args.charge, "account": args.account, "amount": args.amount},
    }
    body = json.dumps(event, separators=(",", ":")).encode()
    secret = ("not-" + args.secret) if args.bad_signature else args.secret
    signature = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    for _ in range(args.times):
        request = urllib.request.Request(
            f"http://127.0.0.1:{args.port}/webhooks",
            data=body,
            headers={"Content-Type": "application/json", "X-Signature": signature},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                print(event["id"], response.status, response.read().decode(errors="replace")[:200])
        except urllib.error.HTTPError as error:
            print(event["id"], error.code, error.read().decode(errors="replace")[:200])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
