import json
import re

from . import LABELS

SYSTEM = (
    "Classify the customer's support ticket.\n"
    "Labels: billing, bug, account, feature_request, other.\n"
    "Output exactly one JSON object with keys label and justification (a single sentence)."
)


def chat_messages(ticket):
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": ticket["body"]},
    ]


def interpret(content):
    """-> (label, justification) or None when the reply is unusable."""
    if not isinstance(content, str):
        return None
    text = content.strip()
    text = re.sub(r"^```(?:json)?|```$", "", text).strip()
    fields = None
    if text.startswith("{"):
        try:
            fields = json.loads(text)
        except ValueError:
            fields = None
    if not isinstance(fields, dict):
        fields = {}
        for line in text.splitlines():
            m = re.match(r"^\W*(label|justification)\W*:\s*(.*)$", line.strip(), re.IGNORECASE)
            if m and m.group(1).lower() not in fields:
                fields[m.group(1).lower()] = m.group(2)
    label = re.sub(r"[\s-]+", "_", str(fields.get("label", "")).strip(" '\"*`.").lower())
    if label not in LABELS:
        return None
    return label, " ".join(str(fields.get("justification", "")).split())
