"""Turn the model's message content into (label, justification)."""

import json
import re

LABELS = ["billing", "bug", "account", "feature_request", "other"]

_FIELD = re.compile(r"^\W*(label|justification)\W*\s*[:=-]\s*(.*)$", re.I)


def _norm_label(raw):
    raw = (raw or "").strip().strip("\"'`*.").lower()
    raw = re.sub(r"[\s-]+", "_", raw)
    return raw if raw in LABELS else "other"


def parse(content):
    text = (content or "").strip()
    # some models wrap JSON in ``` fences
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        label, why = obj.get("label"), obj.get("justification")
    else:
        found = {}
        for line in text.splitlines():
            m = _FIELD.match(line.strip())
            if m:
                found.setdefault(m.group(1).lower(), m.group(2).strip())
        label, why = found.get("label"), found.get("justification")
    return _norm_label(label), " ".join(str(why or "").split())
