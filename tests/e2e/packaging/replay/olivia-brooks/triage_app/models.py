from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Label = Literal["billing", "bug", "account", "feature_request", "other"]
LABELS: tuple[str, ...] = Label.__args__


class Ticket(BaseModel):
    id: str
    body: str


class Answer(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    label: Label
    justification: str


class Message(BaseModel):
    role: str
    content: str | None = None


class Choice(BaseModel):
    index: int = 0
    message: Message
    finish_reason: str | None = None


class ChatCompletion(BaseModel):
    """The parts of an OpenAI chat completion we read; the rest is kept (extra="allow")."""

    model_config = ConfigDict(extra="allow")

    id: str | None = None
    model: str | None = None
    choices: list[Choice]


class Cassette(BaseModel):
    ticket_id: str
    fingerprint: str
    request: dict
    response: ChatCompletion
