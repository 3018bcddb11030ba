"""What the model is asked for and how its reply is read."""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ValidationError, field_validator

from .errors import TriageError

Label = Literal["billing", "bug", "account", "feature_request", "other"]
LABELS: tuple[str, ...] = ("billing", "bug", "account", "feature_request", "other")

SYSTEM_PROMPT = (
    "You triage customer support tickets for a SaaS product.\n"
    f"Pick exactly one label from: {', '.join(LABELS)}.\n"
    "Reply with a single JSON object and nothing else, for example:\n"
    '{"label": "billing", "justification": "Mentions a second charge on the same invoice."}\n'
    "The justification is one short sentence."
)

_KV_LINE = re.compile(r"^\s*(label|justification)\s*[:=]\s*(.+?)\s*$", re.IGNORECASE)


class Triage(BaseModel):
    label: Label
    justification: str

    @field_validator("label", mode="before")
    @classmethod
    def _normalise_label(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip().strip("`'\".").lower().replace("-", "_").replace(" ", "_")
        return value

    @field_validator("justification", mode="before")
    @classmethod
    def _one_line(cls, value: object) -> object:
        if isinstance(value, str):
            return " ".join(value.split())
        return value


class UnusableReply(TriageError):
    """The model answered, but not with a label we can use."""


def build_messages(ticket: dict[str, str]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Ticket {ticket['id']}:\n{ticket['body']}"},
    ]


def parse_reply(content: str | None) -> Triage:
    """JSON object first; fall back to `label: X` / `justification: Y` lines."""
    text = (content or "").strip()
    if text.startswith("```"):
        text = text.strip("`").strip()
        if text.lower().startswith("json"):
            text = text[4:].strip()

    fields: dict[str, str] = {}
    try:
        data = json.loads(text)
        if isinstance(data, dict):
            fields = data
    except json.JSONDecodeError:
        for line in text.splitlines():
            match = _KV_LINE.match(line)
            if match:
                fields.setdefault(match.group(1).lower(), match.group(2))

    try:
        return Triage.model_validate(fields)
    except ValidationError as exc:
        raise UnusableReply(f"could not read a label from the reply: {text[:120]!r}") from exc
