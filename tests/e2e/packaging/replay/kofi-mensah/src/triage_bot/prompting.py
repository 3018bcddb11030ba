"""The prompt we send and how we read the model's reply."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from triage_bot import LABELS

SYSTEM_PROMPT = "\n".join(
    [
        "You are the first-line triage step for a software company's support inbox.",
        "Classify the ticket into exactly one of these labels: " + ", ".join(LABELS) + ".",
        "Answer with one JSON object and no other text:",
        '{"label": "<one of the labels>", "justification": "<one sentence>"}',
    ]
)

_LINE = re.compile(r"^[\s*#>-]*(label|justification)[\s*]*[:=][\s*]*(.*?)\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^```[A-Za-z]*\s*\n?(.*?)\n?\s*```$", re.DOTALL)


class BadReply(ValueError):
    """The reply holds no label we can use."""


@dataclass(frozen=True)
class Decision:
    label: str
    justification: str


def messages_for(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Ticket id: {ticket['id']}\n\n{ticket['body']}"},
    ]


def _clean_label(raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    label = re.sub(r"[\s-]+", "_", raw.strip().strip("\"'`*.,").lower())
    return label if label in LABELS else None


def decode(content: object) -> Decision:
    """A JSON object `{"label", "justification"}`, or `label: X` / `justification: Y` lines."""
    if not isinstance(content, str) or not content.strip():
        raise BadReply("empty reply")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()

    fields: dict = {}
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        fields = parsed
    else:
        for line in text.splitlines():
            hit = _LINE.match(line)
            if hit and hit.group(1).lower() not in fields:
                fields[hit.group(1).lower()] = hit.group(2)

    label = _clean_label(fields.get("label"))
    if label is None:
        raise BadReply(f"no usable label in {text[:100]!r}")
    justification = " ".join(str(fields.get("justification") or "").split())
    return Decision(label, justification)
