"""What we send to the model, and how we read its answer."""

import json
import re

LABELS = ("billing", "bug", "account", "feature_request", "other")

SYSTEM = (
    "You are a support triage assistant. Classify the customer's ticket with exactly one "
    f"label from this list: {', '.join(LABELS)}. "
    'Respond with a JSON object: {"label": "<label>", "justification": "<one sentence>"}.'
)

_LINE = re.compile(r"^\s*[-*]?\s*(label|justification)\s*:\s*(.*?)\s*$", re.IGNORECASE)


def build_request(ticket):
    """The part of the request that decides the answer (no model id: see README)."""
    return {
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Ticket {ticket['id']}\n\n{ticket['body']}"},
        ],
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }


def _clean_label(value):
    label = str(value or "").strip().strip("\"'`.").lower().replace("-", "_").replace(" ", "_")
    return label if label in LABELS else "other"


def parse_reply(content):
    """JSON first, then `label: ...` / `justification: ...` lines."""
    text = (content or "").strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    label = justification = None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        label, justification = data.get("label"), data.get("justification")
    else:
        for line in text.splitlines():
            m = _LINE.match(line)
            if not m:
                continue
            if m.group(1).lower() == "label" and label is None:
                label = m.group(2)
            elif m.group(1).lower() == "justification" and justification is None:
                justification = m.group(2)
    return _clean_label(label), " ".join(str(justification or "").split())
