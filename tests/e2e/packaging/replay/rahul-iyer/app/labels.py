import json
import re

ALLOWED = ["billing", "bug", "account", "feature_request", "other"]

SYSTEM_MESSAGE = (
    "You are a support triage bot. For the ticket you are given, choose one label from "
    + json.dumps(ALLOWED)
    + ' and reply with JSON only: {"label": "...", "justification": "..."} where the justification is one sentence.'
)


def build_prompt(ticket):
    return [
        {"role": "system", "content": SYSTEM_MESSAGE},
        {"role": "user", "content": "Ticket #" + ticket["id"] + ": " + ticket["body"]},
    ]


def clean_label(raw):
    label = re.sub(r"[^a-z_ -]", "", str(raw or "").lower()).strip().replace(" ", "_").replace("-", "_")
    return label if label in ALLOWED else None


def parse_model_output(text):
    """Returns {"label":..., "justification":...} or None."""
    if not text:
        return None
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[-1].rsplit("```", 1)[0]
    try:
        obj = json.loads(text)
    except ValueError:
        obj = {}
        for line in text.splitlines():
            key, _, value = line.partition(":")
            key = key.strip(" *-_#").lower()
            if _ and key in ("label", "justification") and key not in obj:
                obj[key] = value.strip()
    if not isinstance(obj, dict):
        return None
    label = clean_label(obj.get("label"))
    if not label:
        return None
    return {"label": label, "justification": " ".join(str(obj.get("justification") or "").split())}
