import json
import re

LABELS = ("billing", "bug", "account", "feature_request", "other")

PROMPT = """Classify the support ticket below into one of: billing, bug, account, feature_request, other.
Respond with JSON only, like {"label": "bug", "justification": "<one sentence>"}."""


def messages(ticket):
    return [
        {"role": "system", "content": PROMPT},
        {"role": "user", "content": ticket["body"]},
    ]


def normalise_label(value):
    if not isinstance(value, str):
        return None
    value = re.sub(r"[\s\-]+", "_", value.strip().strip("'\"`*.").lower())
    return value if value in LABELS else None


def read_answer(content):
    """Return (label, justification) from the model's text, or None if there is no valid label."""
    if not content:
        return None
    text = content.strip()
    m = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S)
    if m:
        text = m.group(1)
    try:
        data = json.loads(text)
    except ValueError:
        data = {}
        for line in text.splitlines():
            if ":" in line:
                k, v = line.split(":", 1)
                k = k.strip(" -*#").lower()
                if k in ("label", "justification"):
                    data.setdefault(k, v.strip())
    if not isinstance(data, dict):
        return None
    label = normalise_label(data.get("label"))
    if label is None:
        return None
    return label, " ".join(str(data.get("justification", "")).split())
