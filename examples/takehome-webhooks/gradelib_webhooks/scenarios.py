"""The delivery scenarios, read from `scenarios.toml`: what each one sends and what it expects."""

from __future__ import annotations

import functools
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

SCENARIOS_FILE = "scenarios.toml"
SUCCEEDED = "charge.succeeded"
REFUNDED = "charge.refunded"
SCENARIO_NAMES = ("duplicates", "slow", "restart", "out_of_order", "bad_signature")


@dataclass(frozen=True)
class Event:
    """One event of a scenario; `forged_only` events are only ever sent with a bad signature."""

    id: str
    type: str
    charge: str
    account: str
    amount: int
    forged_only: bool = False

    @property
    def effect(self) -> int:
        """What applying it does to the account's balance."""
        return self.amount if self.type == SUCCEEDED else -self.amount


@dataclass(frozen=True)
class Scenario:
    """One scenario: its events, its steps (as the deliverer reads them), what it expects."""

    name: str
    title: str
    about: str
    events: tuple[Event, ...]
    steps: tuple[Mapping[str, Any], ...]
    redelivery_rounds: int
    provider_timeout_seconds: float

    @property
    def genuine(self) -> tuple[Event, ...]:
        """The events the provider really sends: each must be applied exactly once."""
        return tuple(event for event in self.events if not event.forged_only)

    def expected_balances(self) -> dict[str, int]:
        """The balances once every genuine event is applied exactly once (forgeries never)."""
        balances: dict[str, int] = {}
        for event in self.genuine:
            balances[event.account] = balances.get(event.account, 0) + event.effect
        return balances

    def refunds(self) -> dict[str, str]:
        """Each refund event's id -> the id of its charge's event (which must be applied first)."""
        charges = {event.charge: event.id for event in self.genuine if event.type == SUCCEEDED}
        return {
            event.id: charges[event.charge]
            for event in self.genuine
            if event.type == REFUNDED and event.charge in charges
        }

    def forged_amounts(self) -> dict[str, int]:
        """Event id -> the amount its tampered copy carries."""
        return {str(step["forge"]): int(step["amount"]) for step in self.steps if step.get("how") == "tampered"}

    def restarts(self) -> int:
        """How many planned restarts the steps hold."""
        return sum(1 for step in self.steps if step.get("restart"))

    def to_json(self) -> str:
        """The scenario as the deliverer reads it."""
        return json.dumps(
            {
                "name": self.name,
                "events": [event.__dict__ for event in self.events],
                "steps": [dict(step) for step in self.steps],
                "redelivery_rounds": self.redelivery_rounds,
                "provider_timeout_seconds": self.provider_timeout_seconds,
            }
        )


def parse(document: Mapping[str, Any]) -> dict[str, Scenario]:
    """Scenarios by name, from the parsed TOML."""
    found = {}
    for name, raw in document["scenarios"].items():
        found[name] = Scenario(
            name=name,
            title=str(raw["title"]),
            about=str(raw["about"]),
            events=tuple(Event(**event) for event in raw["events"]),
            steps=tuple(raw["steps"]),
            redelivery_rounds=int(document["redelivery_rounds"]),
            provider_timeout_seconds=float(document["provider_timeout_seconds"]),
        )
    return found


@functools.cache
def load() -> dict[str, Scenario]:
    """The packaged scenarios, by name."""
    data = resources.files(__package__).joinpath(SCENARIOS_FILE).read_bytes()
    return parse(tomllib.loads(data.decode("utf-8")))
