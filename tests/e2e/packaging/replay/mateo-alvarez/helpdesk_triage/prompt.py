import json
import re
from dataclasses import dataclass

from . import LABELS

INSTRUCTIONS = f"""You are triaging support tickets.
Allowed labels: {", ".join(LABELS)}.
Return a JSON object with two keys:
  "label": one of the allowed labels
  "justification": one sentence explaining the choice
Return nothing except the JSON object."""


@dataclass(frozen=True)
class Verdict:
    label: str
    justification: str


def messages_for(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": f"[{ticket['id']}] {ticket['body']}"},
    ]


def _label(value) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip().strip("'\"`.*").lower().replace(" ", "_").replace("-", "_")
    return value if value in LABELS else None


def read_verdict(content: str | None) -> Verdict | None:
    """None if the reply holds no usable label (JSON or `label:` lines)."""
    text = (content or "").strip()
    text = re.sub(r"^```[a-zA-Z]*\s*|\s*```$", "", text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = {}
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            key = key.strip().strip("-*# ").lower()
            if sep and key in ("label", "justification") and key not in data:
                data[key] = value.strip()
    if not isinstance(data, dict):
        return None
    label = _label(data.get("label"))
    if label is None:
        return None
    justification = " ".join(str(data.get("justification") or "").split())
    return Verdict(label, justification)
