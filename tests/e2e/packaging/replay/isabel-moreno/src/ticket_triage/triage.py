"""Prompt + reply parsing (no I/O)."""

from __future__ import annotations

import json
import re
from typing import NamedTuple

LABELS = ("billing", "bug", "account", "feature_request", "other")

SYSTEM = """\
You label customer support tickets. Use exactly one of: billing, bug, account, feature_request, other.
Return a JSON object: {"label": <label>, "justification": <one sentence>}. Nothing else."""


class Triage(NamedTuple):
    label: str
    justification: str


def prompt_messages(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Ticket {ticket['id']}\n\n{ticket['body']}"},
    ]


def parse(content: str | None) -> Triage | None:
    if not content:
        return None
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        obj = {}
        for match in re.finditer(r"(?mi)^[\s*-]*(label|justification)[\s*]*:\s*(.+?)\s*$", text):
            obj.setdefault(match.group(1).lower(), match.group(2))
    if not isinstance(obj, dict):
        return None
    label = str(obj.get("label", "")).strip(" \"'`*.").lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        return None
    return Triage(label, " ".join(str(obj.get("justification", "")).split()))
