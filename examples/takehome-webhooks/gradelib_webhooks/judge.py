"""Judging one scenario from what the consumer applied (its ledger) and what it answered (pure)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gradelib_webhooks.scenarios import Scenario

LEDGER = "state/ledger.json"
GENUINE = "genuine"


@dataclass(frozen=True)
class Delivery:
    """One delivery the provider made, as the deliverer logged it."""

    n: int
    event: str
    kind: str  # genuine | tampered | wrong_secret | unsigned
    step: int
    round: int  # 0: a scenario step; 1+: the provider's redelivery rounds
    status: int | None  # None: no answer within the provider's timeout (error says why)
    error: str | None = None
    late_status: int | None = None  # the answer that came after the provider gave up
    ms: int = 0

    @property
    def accepted(self) -> bool:
        """Answered 2xx (in time or late)."""
        return any(s is not None and 200 <= s < 300 for s in (self.status, self.late_status))

    @property
    def rejected_4xx(self) -> bool:
        """Answered 4xx in time."""
        return self.status is not None and 400 <= self.status < 500

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Delivery:
        """From the deliverer's JSON (fields it does not know are left out)."""

        def number(key: str) -> int | None:
            value = raw.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        return cls(
            n=number("n") or 0,
            event=str(raw.get("event")),
            kind=str(raw.get("kind")),
            step=number("step") or 0,
            round=number("round") or 0,
            status=number("status"),
            error=str(raw["error"]) if raw.get("error") is not None else None,
            late_status=number("late_status"),
            ms=number("ms") or 0,
        )

    def to_dict(self) -> dict[str, Any]:
        """A table row."""
        return {
            "n": self.n,
            "event": self.event,
            "kind": self.kind,
            "step": self.step if self.round == 0 else f"redelivery {self.round}",
            "status": self.status,
            "late_status": self.late_status,
            "error": self.error,
        }


@dataclass(frozen=True)
class Ledger:
    """What the consumer left in state/ledger.json: the ids it applied, in order, and the balances."""

    applied: tuple[str, ...] = ()
    balances: Mapping[str, int] = field(default_factory=dict)
    problem: str | None = None  # why the file says nothing (missing, not JSON, not the handout's shape)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"applied": list(self.applied), "balances": dict(self.balances), "problem": self.problem}


def parse_ledger(data: bytes | None) -> Ledger:
    """The ledger file's content (None: no file) in the handout's shape, or why it is not."""
    if data is None:
        return Ledger(problem=f"no {LEDGER} after the run")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return Ledger(problem=f"{LEDGER} is not JSON: {exc}")
    if not isinstance(document, dict):
        return Ledger(problem=f"{LEDGER} is not a JSON object")
    applied, balances = document.get("applied"), document.get("balances")
    if not isinstance(applied, list) or not isinstance(balances, dict):
        return Ledger(problem=f'{LEDGER} needs "applied" (a list of event ids) and "balances" (an object)')
    listed = [entry.get("id") if isinstance(entry, dict) else entry for entry in applied]  # {"id": ...} tolerated
    ids = [entry for entry in listed if isinstance(entry, str)]
    if len(ids) != len(listed):
        return Ledger(problem=f'{LEDGER}: "applied" must list event ids (strings)')
    numbers = {str(k): v for k, v in balances.items()}
    if not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer() for v in numbers.values()
    ):
        return Ledger(problem=f'{LEDGER}: "balances" must map accounts to whole numbers of cents')
    return Ledger(applied=tuple(ids), balances={k: int(v) for k, v in numbers.items()})


@dataclass(frozen=True)
class Verdict:
    """What one scenario shows: each genuine event applied exactly once, forgeries never, order kept."""

    scenario: str
    counts: Mapping[str, int]  # every event of the scenario -> times it appears in "applied"
    doubled: tuple[str, ...]  # genuine events applied more than once
    lost: tuple[str, ...]  # genuine events never applied
    forged_applied: tuple[str, ...]  # events whose forged delivery was applied
    early: tuple[str, ...]  # refunds applied before their charge
    unknown: tuple[str, ...]  # ids in "applied" the provider never sent
    balances_expected: Mapping[str, int]
    balances_found: Mapping[str, int]
    ledger_problem: str | None = None

    @property
    def balances_ok(self) -> bool:
        """The balances are the ones every genuine event applied once gives (zero accounts may be left out)."""
        accounts = set(self.balances_expected) | set(self.balances_found)
        return all(self.balances_expected.get(a, 0) == self.balances_found.get(a, 0) for a in accounts)

    @property
    def clean(self) -> bool:
        """Nothing wrong."""
        problems = (self.doubled, self.lost, self.forged_applied, self.early, self.unknown)
        return self.ledger_problem is None and not any(problems) and self.balances_ok

    def describe(self) -> str:
        """One phrase: what went wrong, or that nothing did."""
        if self.ledger_problem:
            return self.ledger_problem
        parts = []
        if self.doubled:
            parts.append("applied more than once: " + _counted(self.doubled, self.counts))
        if self.lost:
            parts.append("never applied: " + ", ".join(self.lost))
        if self.forged_applied:
            parts.append("forged delivery applied: " + ", ".join(self.forged_applied))
        if self.early:
            parts.append("refund applied before its charge: " + ", ".join(self.early))
        if self.unknown:
            parts.append("unknown ids in the ledger: " + ", ".join(self.unknown[:3]))
        if not self.balances_ok:
            parts.append(f"balances {_balances(self.balances_found)}, expected {_balances(self.balances_expected)}")
        return "; ".join(parts) if parts else "each event applied exactly once, balances right"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "clean": self.clean,
            "summary": self.describe(),
            "counts": dict(self.counts),
            "doubled": list(self.doubled),
            "lost": list(self.lost),
            "forged_applied": list(self.forged_applied),
            "refund_before_charge": list(self.early),
            "unknown_ids": list(self.unknown),
            "balances_expected": dict(self.balances_expected),
            "balances_found": dict(self.balances_found),
            "ledger_problem": self.ledger_problem,
        }


def judge(scenario: Scenario, ledger: Ledger) -> Verdict:
    """Compare what the consumer applied with what exactly-once delivery of the genuine events gives."""
    expected = scenario.expected_balances()
    if ledger.problem:
        return Verdict(scenario.name, {}, (), (), (), (), (), expected, {}, ledger.problem)
    counts = {event.id: ledger.applied.count(event.id) for event in scenario.events}
    genuine = [event.id for event in scenario.genuine]
    doubled = tuple(e for e in genuine if counts[e] > 1)
    lost = tuple(e for e in genuine if counts[e] == 0)
    forged = [event.id for event in scenario.events if event.forged_only and counts[event.id] > 0]
    forged += _tampered_applied(scenario, ledger)
    position = {event_id: ledger.applied.index(event_id) for event_id in genuine if counts[event_id]}
    early = tuple(
        refund
        for refund, charge in scenario.refunds().items()
        if refund in position and (charge not in position or position[refund] < position[charge])
    )
    known = {event.id for event in scenario.events}
    unknown = tuple(dict.fromkeys(e for e in ledger.applied if e not in known))
    return Verdict(scenario.name, counts, doubled, lost, tuple(forged), early, unknown, expected, dict(ledger.balances))


def _tampered_applied(scenario: Scenario, ledger: Ledger) -> list[str]:
    """Tampered copies whose amount shows in the balance (instead of, or on top of, the genuine one)."""
    found = []
    expected = scenario.expected_balances()
    by_id = {event.id: event for event in scenario.events}
    for event_id, amount in scenario.forged_amounts().items():
        event = by_id[event_id]
        off = ledger.balances.get(event.account, 0) - expected.get(event.account, 0)
        if off in (amount - event.amount, amount):
            found.append(event_id)
    return found


def first_answer(deliveries: Sequence[Delivery], event_id: str) -> Delivery | None:
    """The first genuine delivery of an event."""
    return next((d for d in deliveries if d.event == event_id and d.kind == GENUINE), None)


def _counted(ids: Sequence[str], counts: Mapping[str, int]) -> str:
    return ", ".join(f"{event_id} x{counts[event_id]}" for event_id in ids)


def _balances(balances: Mapping[str, int]) -> str:
    return json.dumps(dict(sorted(balances.items())), separators=(", ", ": "))
