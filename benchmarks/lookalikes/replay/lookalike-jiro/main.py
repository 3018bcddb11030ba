# Triage tickets with an LLM. The model is reached only through `ask`, which is
# either a recorder (network, writes cassettes) or a replayer (cassettes only).
import functools
import hashlib
import json
import os
import pathlib
import sys
import time
import urllib.error
import urllib.request

BASE = pathlib.Path(__file__).absolute().parent
CASSETTE_DIR = BASE / "cassettes"
OUT = BASE / "out" / "answers.json"
LABELS = ("billing", "bug", "account", "feature_request", "other")
BUDGET = 40

PROMPT = """Label this support ticket with exactly one of: billing, bug, account, feature_request, other.
Return JSON: {"label": "...", "justification": "..."} where justification is a single line.

Ticket:
"""


def build_request(body):
    return {"messages": [{"role": "user", "content": PROMPT + body}], "temperature": 0}


def request_key(req):
    text = json.dumps(req, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cassette_path(ticket_id, req):
    return CASSETTE_DIR / f"{ticket_id}--{request_key(req)[:10]}.json"


def content_of(completion):
    return completion["choices"][0]["message"]["content"]


def parse(content):
    """-> (label, justification), or None when the reply can't be used."""
    try:
        found = json.loads(content)
        found = found if isinstance(found, dict) else {}
    except json.JSONDecodeError:
        pairs = (ln.split(":", 1) for ln in content.splitlines() if ":" in ln)
        found = {k.strip().lower(): v for k, v in pairs}
    label = str(found.get("label", "")).strip().lower()
    why = " ".join(str(found.get("justification", "")).split())
    return (label, why) if label in LABELS and why else None


# --- replay -----------------------------------------------------------------


class Missing(Exception):
    pass


def replayer():
    def ask(ticket_id, req):
        path = cassette_path(ticket_id, req)
        if not path.is_file():
            raise Missing(f"cassette not found: cassettes/{path.name} ({ticket_id}). Run ./run.sh record.")
        saved = json.loads(path.read_text("utf-8"))
        return parse(content_of(saved["response"]))

    return ask


# --- record -----------------------------------------------------------------


def recorder():
    url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
    headers = {
        "Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", ""),
        "Content-Type": "application/json",
    }
    model = os.environ.get("MODEL", "gpt-4o-mini")
    spent = [0]

    def post(req):
        if spent[0] >= BUDGET:
            raise SystemExit(f"record: budget of {BUDGET} calls exhausted, stopping")
        spent[0] += 1
        data = json.dumps(dict(req, model=model)).encode("utf-8")
        with urllib.request.urlopen(urllib.request.Request(url, data, headers), timeout=30) as resp:
            return json.loads(resp.read())

    def ask(ticket_id, req):
        for n in range(2):
            if n:
                time.sleep(1)
            try:
                completion = post(req)
                answer = parse(content_of(completion))
            except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError) as e:
                print(f"record {ticket_id}: {e}", file=sys.stderr)
                continue
            if answer:
                CASSETTE_DIR.mkdir(exist_ok=True)
                saved = {"request": req, "response": completion}
                cassette_path(ticket_id, req).write_text(json.dumps(saved, indent=1) + "\n", "utf-8")
                return answer
            print(f"record {ticket_id}: unusable reply", file=sys.stderr)
        raise SystemExit(f"record: no usable answer for {ticket_id} after 2 calls")

    return ask


# --- main -------------------------------------------------------------------


def triage(ask, tickets):
    rows = []
    for t in tickets:
        answer = ask(t["id"], build_request(t["body"]))
        if answer is None:
            raise SystemExit(f"cassette for {t['id']} holds no usable answer")
        rows.append(dict(id=t["id"], label=answer[0], justification=answer[1]))
    return rows


def main(mode):
    ask = {"record": recorder, "replay": replayer}.get(mode)
    if ask is None:
        return "usage: main.py record|replay"
    tickets = json.loads((BASE / "tickets.json").read_text("utf-8"))
    try:
        rows = triage(ask(), tickets)
    except Missing as e:
        return f"replay: {e}"
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ""))
