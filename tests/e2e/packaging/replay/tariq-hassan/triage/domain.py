from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import Enum


class Label(str, Enum):
    BILLING = "billing"
    BUG = "bug"
    ACCOUNT = "account"
    FEATURE_REQUEST = "feature_request"
    OTHER = "other"


LABEL_VALUES = [label.value for label in Label]

SYSTEM_PROMPT = f"""You are an experienced support agent. Read the ticket and decide which queue it belongs to.
Queues: {", ".join(LABEL_VALUES)}.
Answer strictly as JSON: {{"label": "<queue>", "justification": "<one sentence>"}}"""


@dataclass(frozen=True)
class Verdict:
    label: Label
    justification: str

    def row(self, ticket_id: str) -> dict:
        return {"id": ticket_id, "label": self.label.value, "justification": self.justification}


def conversation(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Ticket {ticket['id']}:\n{ticket['body']}"},
    ]


def read_verdict(reply: str | None) -> Verdict | None:
    if not reply:
        return None
    text = reply.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, flags=re.S)
    if fenced:
        text = fenced.group(1)
    try:
        fields = json.loads(text)
    except json.JSONDecodeError:
        fields = {}
        for raw in text.splitlines():
            name, sep, value = raw.partition(":")
            name = name.strip().strip("*_- ").lower()
            if sep and name in {"label", "justification"}:
                fields.setdefault(name, value.strip())
    if not isinstance(fields, dict):
        return None
    raw_label = str(fields.get("label", "")).strip().strip("\"'`.").lower().replace(" ", "_").replace("-", "_")
    try:
        label = Label(raw_label)
    except ValueError:
        return None
    return Verdict(label, " ".join(str(fields.get("justification", "")).split()))
