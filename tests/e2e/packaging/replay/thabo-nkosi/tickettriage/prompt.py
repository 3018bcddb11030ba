"""Loads the prompt template that ships inside the package and parses replies."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import yaml

TEMPLATE_FILE = Path(__file__).with_name("prompt.yaml")


@lru_cache(maxsize=1)
def template() -> dict:
    with TEMPLATE_FILE.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def labels() -> list[str]:
    return list(template()["labels"])


def messages(ticket: dict) -> list[dict]:
    t = template()
    return [
        {"role": "system", "content": t["system"].format(labels=", ".join(t["labels"])).strip()},
        {"role": "user", "content": t["user"].format(id=ticket["id"], body=ticket["body"]).strip()},
    ]


_LINE = re.compile(r"^\s*[*_-]*\s*(label|justification)\s*[*_]*\s*:\s*(.*?)\s*$", re.IGNORECASE)


def parse(content: str | None) -> tuple[str, str] | None:
    """Return (label, justification), or None when the reply has no valid label."""
    text = (content or "").strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[4:] if text.lower().startswith("json") else text
    fields: dict = {}
    try:
        loaded = json.loads(text)
        if isinstance(loaded, dict):
            fields = loaded
    except ValueError:
        for line in text.splitlines():
            m = _LINE.match(line)
            if m and m.group(1).lower() not in fields:
                fields[m.group(1).lower()] = m.group(2)
    raw = fields.get("label")
    label = raw.strip().strip("\"'`.").lower().replace(" ", "_").replace("-", "_") if isinstance(raw, str) else ""
    if label not in labels():
        return None
    justification = " ".join(str(fields.get("justification") or "").split())
    return label, justification
