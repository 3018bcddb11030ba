import json
import os
import sys
import time
import uuid
from pathlib import Path

from . import LABELS, cassettes

PROMPT = """Classify this customer support ticket.

Allowed labels: {labels}

Ticket:
---
{body}
---

Return a JSON object with exactly two keys, "label" and "justification" \
(one sentence). No markdown."""


def build_request(ticket):
    return {
        "messages": [{"role": "user", "content": PROMPT.format(labels=", ".join(LABELS), body=ticket["body"])}],
        "temperature": 0,
    }


def parse(content):
    content = content.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data = json.loads(content)
        label, why = data.get("label"), data.get("justification")
    except (ValueError, AttributeError):
        # plain text fallback: "label: x" / "justification: y"
        fields = {}
        for line in content.splitlines():
            k, _, v = line.partition(":")
            fields.setdefault(k.strip().lower(), v.strip())
        label, why = fields.get("label"), fields.get("justification")
    label = (label or "").strip().lower().replace(" ", "_").replace("-", "_")
    return (label if label in LABELS else "other"), " ".join((why or "").split())


def log(**entry):
    Path("out").mkdir(exist_ok=True)
    entry["ts"] = time.time()
    with open("out/run.log", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def main(mode):
    with open("tickets.json", encoding="utf-8") as fh:
        tickets = json.load(fh)

    client = None
    if mode == "record":
        from .llm import ChatClient, ModelError

        client = ChatClient()

    answers = []
    for ticket in tickets:
        trace_id = str(uuid.uuid4())  # ties an answer to its log lines
        request = build_request(ticket)
        try:
            if client:
                response, latency = client.chat(request)
                cassettes.save(request, response)
                log(trace_id=trace_id, ticket=ticket["id"], latency_s=round(latency, 3),
                    model=response.get("model"), usage=response.get("usage"))
            else:
                response = cassettes.load(request, ticket["id"])
        except cassettes.MissingCassette as e:
            sys.exit(f"replay: {e}")
        except Exception as e:
            if client and isinstance(e, ModelError):
                sys.exit(f"record: ticket {ticket['id']}: {e}")
            raise
        label, why = parse(response["choices"][0]["message"]["content"])
        answers.append({"id": ticket["id"], "label": label, "justification": why, "trace_id": trace_id})

    os.makedirs("out", exist_ok=True)
    with open("out/answers.json.tmp", "w", encoding="utf-8") as fh:
        json.dump(answers, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")
    os.replace("out/answers.json.tmp", "out/answers.json")
    log(mode=mode, tickets=len(answers), calls=client.calls if client else 0)
    print(f"{mode}: {len(answers)} answers written to out/answers.json")


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("replay", "record"):
        sys.exit("usage: python3 -m triage replay|record")
    main(sys.argv[1])
