"""Ticket triage: ./run.sh record | ./run.sh replay"""

import json
import logging
import os
import sys
from pathlib import Path

from llm import CassetteClient, ModelError, OpenAIClient

LABELS = ("billing", "bug", "account", "feature_request", "other")
PARAMS = {"temperature": 0}

SYSTEM = (
    "You are a support engineer triaging tickets. Pick the single best label from: "
    + ", ".join(LABELS)
    + '. Return JSON only: {"label": "<label>", "justification": "<one sentence>"}'
)


def messages_for(ticket):
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ticket["body"]},
    ]


def parse(text):
    text = (text or "").strip()
    try:
        data = json.loads(text)
        label, why = data["label"], data.get("justification", "")
    except (ValueError, KeyError, TypeError):
        label, why = "", ""
        for line in text.splitlines():
            name, _, value = line.partition(":")
            if name.strip().lower() == "label" and not label:
                label = value.strip()
            elif name.strip().lower() == "justification" and not why:
                why = value.strip()
    label = str(label).strip().lower().replace(" ", "_").replace("-", "_")
    return (label if label in LABELS else "other"), " ".join(str(why).split())


def main(mode):
    Path("out").mkdir(exist_ok=True)
    logging.basicConfig(
        filename="out/run.log",
        level=logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        encoding="utf-8",
    )
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    logging.getLogger().addHandler(console)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpx2").setLevel(logging.WARNING)

    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))
    client = OpenAIClient() if mode == "record" else CassetteClient()

    rows = []
    try:
        for ticket in tickets:
            label, why = parse(client.complete(messages_for(ticket), PARAMS))
            rows.append({"id": ticket["id"], "label": label, "justification": why})
    except ModelError as exc:
        print(f"{mode} failed: {exc}", file=sys.stderr)
        return 1

    tmp = Path("out/answers.json.tmp")
    tmp.write_text(json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, "out/answers.json")
    logging.info("%s done: %d rows, %d API calls", mode, len(rows), client.calls)
    print(f"{mode}: {len(rows)} rows written to out/answers.json")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("record", "replay"):
        sys.exit("usage: python3 main.py record|replay")
    sys.exit(main(sys.argv[1]))
