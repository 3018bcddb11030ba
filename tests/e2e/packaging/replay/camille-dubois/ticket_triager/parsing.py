from __future__ import annotations

import json
import re

from ticket_triager import LABEL_ORDER, LABELS

SYSTEM = (
    "Triage the following support ticket. Allowed labels (pick one): "
    + ", ".join(LABEL_ORDER)
    + '.\nRespond with a single JSON object: {"label": "<label>", "justification": "<one line>"}'
)


def messages(ticket: dict) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ticket["body"]}]


def parse(content: str | None) -> tuple[str, str] | None:
    if not content or not content.strip():
        return None
    text = re.sub(r"^\s*```(?:json)?\s*|\s*```\s*$", "", content)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = {}
        for key, value in re.findall(r"(?im)^\W*(label|justification)\W*\s*:\s*(.+)$", text):
            data.setdefault(key.lower(), value.strip())
    if not isinstance(data, dict):
        return None
    label = re.sub(r"[ -]+", "_", str(data.get("label", "")).strip().strip("\"'`.").lower())
    if label not in LABELS:
        return None
    return label, " ".join(str(data.get("justification", "")).split())
