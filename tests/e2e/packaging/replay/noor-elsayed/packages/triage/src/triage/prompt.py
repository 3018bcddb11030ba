"""What we ask the model, and how we read what it says back."""

from __future__ import annotations

import json
import re

from triage import LABELS

SYSTEM = (
    "You triage customer support tickets for a SaaS product.\n"
    f"Pick exactly one label from: {', '.join(LABELS)}.\n"
    'Reply with a JSON object only: {"label": "...", "justification": "one short sentence"}'
)


def build_messages(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Ticket {ticket['id']}:\n{ticket['body']}"},
    ]


class UnusableReply(ValueError):
    pass


_KV = re.compile(r"^\W*(label|justification)\W*\s*:\s*(.+?)\s*$", re.I)


def parse_reply(text: str | None) -> tuple[str, str]:
    """JSON first, then `label: x` / `justification: y` lines. Raises UnusableReply."""
    if not text or not text.strip():
        raise UnusableReply("empty reply")
    body = text.strip()
    if body.startswith("```"):
        body = re.sub(r"^```\w*\s*|\s*```$", "", body)
    fields: dict[str, str] = {}
    try:
        obj = json.loads(body)
        if isinstance(obj, dict):
            fields = {k.lower(): v for k, v in obj.items() if isinstance(v, str)}
    except json.JSONDecodeError:
        for line in body.splitlines():
            m = _KV.match(line)
            if m:
                fields.setdefault(m[1].lower(), m[2])
    label = fields.get("label", "").strip().strip("\"'`*.").lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        raise UnusableReply(f"no valid label in reply: {text[:120]!r}")
    justification = " ".join(fields.get("justification", "").split())
    return label, justification
