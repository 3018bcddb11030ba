#!/usr/bin/env python3
"""Triage support tickets with a model; record once, replay forever."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from tape import BudgetExhausted, CassetteNotFound, Recorder, Replayer

HERE = Path(__file__).resolve().parent
LABELS = ("billing", "bug", "account", "feature_request", "other")
INSTRUCTIONS = f"""Classify the support ticket into one of these labels: {", ".join(LABELS)}.
Answer with JSON only, like {{"label": "bug", "justification": "one short sentence"}}."""


def build_request(ticket: dict) -> dict:
    return {
        "temperature": 0,
        "messages": [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": f"Ticket {ticket['id']}:\n{ticket['body']}"},
        ],
    }


def parse_answer(text: str) -> tuple[str, str] | None:
    text = text.strip()
    try:
        obj = json.loads(text)
        label, why = obj.get("label"), obj.get("justification")
    except (ValueError, AttributeError):
        label = re.search(r"^\s*label\s*:\s*(.+)$", text, re.I | re.M)
        why = re.search(r"^\s*justification\s*:\s*(.+)$", text, re.I | re.M)
        label, why = (label and label.group(1)), (why and why.group(1))
    if not isinstance(label, str) or not isinstance(why, str):
        return None
    label = label.strip().strip('"').lower()
    why = re.sub(r"\s+", " ", why).strip()
    return (label, why) if label in LABELS and why else None


def record_one(rec: Recorder, ticket: dict) -> tuple[str, str]:
    payload = build_request(ticket)
    for attempt in (1, 2):
        if attempt == 2:
            Recorder.pause(attempt)
        try:
            response = rec.complete(ticket["id"], payload)
            parsed = parse_answer(response["choices"][0]["message"]["content"])
        except BudgetExhausted:
            raise
        except Exception as err:
            print(f"  {ticket['id']} try {attempt}: {err}", file=sys.stderr)
            continue
        if parsed:
            rec.save(ticket["id"], payload, response)
            return parsed
        print(f"  {ticket['id']} try {attempt}: reply not usable", file=sys.stderr)
    raise RuntimeError(f"ticket {ticket['id']} failed twice")


def replay_one(rep: Replayer, ticket: dict) -> tuple[str, str]:
    content = rep.complete(ticket["id"], build_request(ticket))
    parsed = parse_answer(content)
    if parsed is None:
        raise RuntimeError(f"cassette for {ticket['id']} holds an unusable reply")
    return parsed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["record", "replay"])
    mode = ap.parse_args().mode

    out_file = HERE / "out" / "answers.json"
    out_file.unlink(missing_ok=True)  # never leave an old file that looks fine
    tickets = json.loads((HERE / "tickets.json").read_text(encoding="utf-8"))

    rows, failed = [], []
    client = Recorder() if mode == "record" else Replayer()
    for ticket in tickets:
        try:
            if mode == "record":
                label, why = record_one(client, ticket)
            else:
                label, why = replay_one(client, ticket)
        except (CassetteNotFound, BudgetExhausted) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        except RuntimeError as err:
            failed.append(str(err))
            continue
        rows.append({"id": ticket["id"], "label": label, "justification": why})

    if failed:
        print("error: " + "; ".join(failed), file=sys.stderr)
        return 1
    out_file.parent.mkdir(exist_ok=True)
    with open(out_file, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(rows, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
