from __future__ import annotations

import json
import re

LABELS = ("billing", "bug", "account", "feature_request", "other")

_PLAIN = re.compile(
    r"label\s*:\s*(?P<label>[A-Za-z_\- ]+?)\s*(?:\n|/|$).*?justification\s*:\s*(?P<why>.+)",
    re.IGNORECASE | re.DOTALL,
)


def normalise_label(raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    label = raw.strip().strip("\"'`*.").lower().replace("-", "_").replace(" ", "_")
    return label if label in LABELS else None


def parse_answer(content: str | None) -> tuple[str, str] | None:
    """(label, justification) from a JSON reply or from `label: X / justification: Y` text."""
    text = (content or "").strip()
    if text.startswith("```"):
        text = re.sub(r"^```\w*\s*|\s*```$", "", text)
    label = why = None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, dict):
        label, why = obj.get("label"), obj.get("justification")
    else:
        m = _PLAIN.search(text)
        if m:
            label, why = m.group("label"), m.group("why")
    label = normalise_label(label)
    if label is None:
        return None
    return label, " ".join(str(why or "").split())
