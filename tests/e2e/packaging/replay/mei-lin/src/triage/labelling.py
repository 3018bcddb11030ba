from __future__ import annotations

import json
import re
from typing import Any

LABELS = ("billing", "bug", "account", "feature_request", "other")

INSTRUCTIONS = (
    "Label the support ticket with exactly one of: "
    + ", ".join(LABELS)
    + '. Return only a JSON object {"label": ..., "justification": ...}; the justification is one sentence.'
)


def prompt(ticket: dict[str, str]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": f"{ticket['id']}: {ticket['body']}"},
    ]


def _fields(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict):
        return data
    found: dict[str, Any] = {}
    for line in text.splitlines():
        match = re.match(r"\s*[*_]*(label|justification)[*_]*\s*:\s*(.*)", line, re.IGNORECASE)
        if match and match.group(1).lower() not in found:
            found[match.group(1).lower()] = match.group(2).strip()
    return found


def understand(content: str | None) -> tuple[str, str] | None:
    if not content:
        return None
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").strip()
        if text.lower().startswith("json"):
            text = text[4:]
    fields = _fields(text.strip())
    label = str(fields.get("label", "")).strip(" \"'`*.").lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        return None
    return label, " ".join(str(fields.get("justification", "")).split())
