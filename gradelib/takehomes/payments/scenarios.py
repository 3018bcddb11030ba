"""Gateway scenarios as data: the steps a fake payment gateway follows, read from TOML."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gradelib.takehome import ScenarioError

PACKAGED_SCENARIOS = ("payments", "scenarios.toml")
SCENARIO_FIELDS = frozenset({"description", "steps"})
STEP_FIELDS = frozenset({"status", "delay", "hang", "charge", "processed"})
# Answered before any processing started (Stripe stores no result for these): not replayed.
UNPROCESSED_STATUSES = frozenset({429}) | frozenset(range(500, 600))


@dataclass(frozen=True)
class Step:
    """What the gateway does with the Nth charge request of a scenario; the last step repeats."""

    status: int
    delay: float = 0.0
    hang: bool = False
    charge: bool = True
    processed: bool | None = None  # None: decided by the status (see `stored`)

    @property
    def moves_money(self) -> bool:
        """True when a request meeting this step is charged (2xx or hung, and charge is on)."""
        return self.charge and (self.hang or 200 <= self.status < 300)

    @property
    def stored(self) -> bool:
        """True when the gateway processed the request, so its answer is kept and replayed for its key.

        By default every answer but a 5xx or a 429 is: those come before any processing (an
        unavailable gateway, a rate limit), and Stripe stores no result for them, so a retry
        with the same key is a new attempt. `processed` in the scenario overrides it (a 500 that
        happened while charging is stored like any other answer).
        """
        if self.processed is not None:
            return self.processed
        return self.status not in UNPROCESSED_STATUSES


@dataclass(frozen=True)
class Scenario:
    """A named script of gateway behaviour."""

    name: str
    description: str
    steps: tuple[Step, ...]

    def step(self, index: int) -> Step:
        """The step for the request with this 0-based index (the last step repeats)."""
        return self.steps[min(index, len(self.steps) - 1)]


def load_scenarios(path: Path | None = None) -> dict[str, Scenario]:
    """Read a scenarios TOML file (default: the packaged one) into Scenario values by name."""
    if path is None:
        resource = resources.files("gradelib.takehomes").joinpath(*PACKAGED_SCENARIOS)
        where, text = str(resource), resource.read_text(encoding="utf-8")
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ScenarioError(where, f"cannot read scenarios file: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(where, f"not valid TOML: {exc}") from exc
    tables = data.get("scenarios")
    if not isinstance(tables, dict) or not tables:
        raise ScenarioError(where, "no [scenarios.NAME] tables")
    return {name: _parse_scenario(where, name, table) for name, table in tables.items()}


def _parse_scenario(where: str, name: str, table: object) -> Scenario:
    def bad(reason: str) -> ScenarioError:
        return ScenarioError(where, reason, scenario=name)

    if not isinstance(table, dict):
        raise bad("must be a table")
    if unknown := sorted(set(table) - SCENARIO_FIELDS):
        raise bad(f"unknown field(s) {', '.join(unknown)}")
    description, raw_steps = table.get("description", ""), table.get("steps")
    if not isinstance(description, str):
        raise bad("description must be a string")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise bad("steps must be a non-empty array of tables")
    steps: list[Step] = []
    for number, raw in enumerate(raw_steps):
        if not isinstance(raw, dict):
            raise bad(f"step {number} must be a table")
        if unknown := sorted(set(raw) - STEP_FIELDS):
            raise bad(f"step {number}: unknown field(s) {', '.join(unknown)}")
        status, delay = raw.get("status"), raw.get("delay", 0.0)
        hang, charge, processed = raw.get("hang", False), raw.get("charge", True), raw.get("processed")
        if type(status) is not int or not 100 <= status <= 599:
            raise bad(f"step {number}: status must be an integer from 100 to 599")
        if type(delay) not in (int, float) or not math.isfinite(delay) or delay < 0:
            raise bad(f"step {number}: delay must be a number of seconds >= 0")
        if not isinstance(hang, bool) or not isinstance(charge, bool) or not isinstance(processed, bool | None):
            raise bad(f"step {number}: hang, charge and processed must be true or false")
        steps.append(Step(status=status, delay=float(delay), hang=hang, charge=charge, processed=processed))
    return Scenario(name=name, description=" ".join(description.split()), steps=tuple(steps))
