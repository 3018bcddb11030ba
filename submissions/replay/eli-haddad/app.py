"""Triage 20 support tickets with an LLM.

replay: answers come from cassettes/ (what gets graded)
record: calls the model and refreshes cassettes/
"""

import json
import logging
import os
import sys
from pathlib import Path

from clients import CassetteMissing, LiveClient, ModelUnavailable, ReplayClient

LABELS = ["billing", "bug", "account", "feature_request", "other"]
PARAMS = {"temperature": 0}

PROMPT = """You are triaging support tickets for a SaaS product.
Choose one label from this list: {labels}.
Answer as JSON: {{"label": "...", "justification": "..."}} with a one-sentence justification.

Ticket {id}:
{body}
"""


def parse_answer(text):
    text = text.strip()
    try:
        obj = json.loads(text)
        label, justification = obj["label"], obj.get("justification", "")
    except (ValueError, KeyError, TypeError):
        label, justification = "", ""
        for line in text.splitlines():
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "label" and not label:
                label = value.strip()
            elif name == "justification" and not justification:
                justification = value.strip()
    label = str(label).strip().lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        label = "other"
    return label, " ".join(str(justification).split())


def setup_logging():
    Path("out").mkdir(exist_ok=True)
    logging.basicConfig(
        filename="out/run.log",
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        encoding="utf-8",
    )
    # warnings also go to the terminal
    console = logging.StreamHandler()
    console.setLevel(logging.WARNING)
    logging.getLogger().addHandler(console)


def main(mode):
    setup_logging()
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))
    live = LiveClient()
    client = live if mode == "record" else ReplayClient(fallback=live)

    rows = []
    try:
        for t in tickets:
            prompt = PROMPT.format(labels=", ".join(LABELS), id=t["id"], body=t["body"])
            label, justification = parse_answer(client.complete(prompt, PARAMS))
            rows.append({"id": t["id"], "label": label, "justification": justification})
    except (CassetteMissing, ModelUnavailable) as e:
        print(f"{mode} failed: {e}", file=sys.stderr)
        return 1

    tmp = Path("out/answers.json.tmp")
    tmp.write_text(json.dumps(rows, sort_keys=True, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, "out/answers.json")
    logging.info("%s finished: %d rows, %d live calls", mode, len(rows), live.calls)
    print(f"{mode}: wrote {len(rows)} rows to out/answers.json")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("replay", "record"):
        sys.exit("usage: python3 app.py replay|record")
    sys.exit(main(sys.argv[1]))
