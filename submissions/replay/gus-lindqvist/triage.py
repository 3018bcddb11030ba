"""triage.py -- label support tickets via an LLM, with recorded fixtures.

Cassettes are the raw HTTP response bodies, byte for byte, so replay sees
exactly what the provider sent.
"""
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.request

LABELS = {"billing", "bug", "account", "feature_request", "other"}
CASSETTE_DIR = "cassettes"
OUT_DIR = "out"
CAP = 40  # total HTTP calls per record run, retries count too

INSTRUCTIONS = (
    "Triage this customer support ticket. Valid labels: account, billing, bug, "
    "feature_request, other. Reply with JSON like "
    '{"label": "bug", "justification": "one sentence why"} and nothing else.'
)


class Fail(Exception):
    pass


def make_request(body):
    return {
        "messages": [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": body},
        ],
        "temperature": 0,
        "max_tokens": 200,
    }


def fixture_name(request):
    h = hashlib.sha256(json.dumps(request, sort_keys=True).encode("utf-8")).hexdigest()
    return os.path.join(CASSETTE_DIR, h[:20] + ".json")


# ------------------------------------------------------------------ record

class Recorder:
    def __init__(self):
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
        self.endpoint = base.rstrip("/") + "/chat/completions"
        self.api_key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0

    def post(self, request):
        if self.calls >= CAP:
            raise Fail("hit the %d call cap, giving up" % CAP)
        self.calls += 1
        data = json.dumps(dict(request, model=self.model)).encode("utf-8")
        req = urllib.request.Request(self.endpoint, data=data, method="POST")
        req.add_header("Content-Type", "application/json")
        req.add_header("Authorization", "Bearer " + self.api_key)
        with urllib.request.urlopen(req, timeout=15) as resp:
            return resp.read()

    def fetch(self, ticket_id, request):
        delay = 0.2
        for attempt in (1, 2, 3):
            t0 = time.time()
            try:
                raw = self.post(request)
            except urllib.error.HTTPError as e:
                if e.code < 500 and e.code != 429:
                    raise Fail("%s: HTTP %d" % (ticket_id, e.code))
                err = "HTTP %d" % e.code
            except (urllib.error.URLError, OSError) as e:
                err = "connection: %s" % e
            else:
                meta = json.loads(raw)
                log_line(ticket=ticket_id, secs=round(time.time() - t0, 3),
                         model=meta.get("model"), usage=meta.get("usage"))
                os.makedirs(CASSETTE_DIR, exist_ok=True)
                with open(fixture_name(request), "wb") as f:
                    f.write(raw)
                return raw
            log_line(ticket=ticket_id, attempt=attempt, error=err)
            if attempt < 3:
                time.sleep(delay)
                delay *= 2
        raise Fail("%s: giving up after 3 attempts (%s)" % (ticket_id, err))


# ------------------------------------------------------------------ replay

def replay_fetch(ticket_id, request):
    path = fixture_name(request)
    if not os.path.exists(path):
        raise Fail("no cassette %s for ticket %s -- run ./run.sh record" % (path, ticket_id))
    with open(path, "rb") as f:
        return f.read()


# ------------------------------------------------------------------ shared

def parse(raw):
    content = json.loads(raw)["choices"][0]["message"]["content"].strip()
    try:
        obj = json.loads(content)
        label, why = obj.get("label"), obj.get("justification")
    except (ValueError, AttributeError):
        label = why = None
        for line in content.splitlines():
            k, _, v = line.partition(":")
            k = k.strip().lower()
            if k == "label":
                label = v
            elif k == "justification":
                why = v
    label = (label or "").strip().lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        label = "other"
    return label, " ".join((why or "").split())


def log_line(**kw):
    os.makedirs(OUT_DIR, exist_ok=True)
    kw["time"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    with open(os.path.join(OUT_DIR, "run.log"), "a", encoding="utf-8") as f:
        f.write(json.dumps(kw) + "\n")


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("replay", "record"):
        print("usage: triage.py replay|record", file=sys.stderr)
        return 2
    mode = sys.argv[1]

    with open("tickets.json", encoding="utf-8") as f:
        tickets = json.load(f)
    bodies = {t["id"]: t["body"] for t in tickets}
    # the handout doesn't promise unique ids -- only call the model once per id
    pending = set(bodies)

    fetch = Recorder().fetch if mode == "record" else replay_fetch
    answers = []
    try:
        for tid in pending:
            label, why = parse(fetch(tid, make_request(bodies[tid])))
            answers.append({"id": tid, "label": label, "justification": why})
    except Fail as e:
        print("%s failed: %s" % (mode, e), file=sys.stderr)
        return 1

    os.makedirs(OUT_DIR, exist_ok=True)
    tmp = os.path.join(OUT_DIR, "answers.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        # sort_keys + fixed indent => stable bytes
        json.dump(answers, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, os.path.join(OUT_DIR, "answers.json"))
    log_line(mode=mode, answers=len(answers))
    print("%s: %d answers -> out/answers.json" % (mode, len(answers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
