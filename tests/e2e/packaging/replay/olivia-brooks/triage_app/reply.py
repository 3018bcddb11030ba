from __future__ import annotations

import json
import re

from triage_app.models import LABELS

PROMPT = (
    "You are triaging tickets for a support team. Allowed labels: "
    + ", ".join(LABELS)
    + '. Reply only with JSON like {"label": "billing", "justification": "one sentence why"}.'
)


def messages_for(ticket) -> list[dict]:
    return [{"role": "system", "content": PROMPT}, {"role": "user", "content": ticket.body}]


_LINE = re.compile(r"^\s*\**\s*(label|justification)\s*\**\s*:\s*(.*?)\s*$", re.I)


def parse_reply(text: str | None) -> tuple[str, str] | None:
    if not text:
        return None
    s = text.strip()
    if s.startswith("```"):
        s = re.sub(r"^```[\w]*\s*", "", s)
        s = re.sub(r"\s*```$", "", s)
    data: dict = {}
    try:
        loaded = json.loads(s)
        if isinstance(loaded, dict):
            data = loaded
    except json.JSONDecodeError:
        for line in s.splitlines():
            m = _LINE.match(line)
            if m:
                data.setdefault(m.group(1).lower(), m.group(2))
    label = str(data.get("label", "")).strip().strip("'\"`").lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        return None
    return label, " ".join(str(data.get("justification", "")).split())
