"""Running one scenario in the sandbox: the deliverer starts the consumer, delivers, and reports."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from gradelib.takehome import (
    Limits,
    RunResult,
    Sandbox,
    UnsafeFile,
    cached,
    clipped_text,
    first_error_line,
    read_file,
    result_key,
    tool,
    without_result,
)

from gradelib_webhooks.judge import LEDGER, Delivery, Ledger, Verdict, judge, parse_ledger
from gradelib_webhooks.scenarios import Scenario

DELIVERER = "deliverer.py"
STATE = "state"
MAX_LEDGER_BYTES = 1024 * 1024
MAX_DELIVERIES = 50
# Two restarts of a slow starter (10 s each at most), a stalled delivery and redelivery rounds fit.
SCENARIO_LIMITS = Limits(wall_seconds=45, cpu_seconds=45)
PYTHON_MISSING = "python3 is not on the sandbox PATH: the kit's deliverer needs it"


@dataclass(frozen=True)
class ScenarioRun:
    """One scenario: the deliveries, the consumer's starts, the ledger it left, and the verdict."""

    scenario: Scenario
    deliveries: tuple[Delivery, ...] = ()
    starts: tuple[dict[str, Any], ...] = ()
    ledger: Ledger = Ledger(problem="the scenario did not run")
    run: RunResult | None = None
    port: int | None = None  # where the consumer listened: the deliverer's own connections go there
    problem: str | None = None  # why the run says nothing (the consumer never started, a hang, no result)
    skipped: str | None = None

    @property
    def measured(self) -> bool:
        """True when the deliveries happened and the ledger can be judged."""
        return self.skipped is None and self.problem is None

    @cached
    def verdict(self) -> Verdict:
        """What the ledger shows against the scenario's expectations."""
        return judge(self.scenario, self.ledger)

    @property
    def crashes(self) -> int:
        """Times the consumer exited on its own and the kit started it again."""
        return sum(1 for start in self.starts if start.get("why") == "crashed")

    def unmeasured(self) -> str | None:
        """Why this scenario measured nothing, or None."""
        if self.skipped:
            return f"{self.scenario.name} did not run: {self.skipped}"
        if self.problem:
            return f"{self.scenario.name}: {self.problem}"
        return None

    def evidence(self) -> dict[str, Any]:
        """JSON-ready: what was sent and answered, what the ledger holds, the verdict, the run."""
        run = None
        if self.run is not None:
            run = {**self.run.evidence(), "stdout_tail": without_result(self.run.tail("stdout"))}
            # the consumer's own attempts only: the deliverer's connections to it are the kit's
            to_consumer = f"127.0.0.1:{self.port}"
            run["connections"] = [c.describe() for c in self.run.network_attempts if to_consumer not in c.describe()]
        return {
            "scenario": self.scenario.name,
            "about": self.scenario.about,
            "skipped": self.skipped,
            "problem": self.problem,
            "deliveries": [delivery.to_dict() for delivery in self.deliveries],
            "starts": list(self.starts),
            "ledger": self.ledger.to_dict(),
            "verdict": self.verdict.to_dict() if self.measured else None,
            "run": run,
        }


class DeliveryRunner:
    """Runs scenarios in one grading's sandbox, each in a fresh copy with an empty `state/`."""

    def __init__(self, box: Sandbox, command: Sequence[str]) -> None:
        self.box = box
        self.command = tuple(command)

    @cached
    def deliverer(self) -> Path:
        """The deliverer script, where the sandbox user can read it (written once, before threads share it)."""
        return self.box.kit_file(DELIVERER, resources.files(__package__).joinpath(DELIVERER).read_bytes())

    def run(self, scenario: Scenario, *, skipped: str | None = None) -> ScenarioRun:
        """One sandboxed command: the deliverer runs the scenario against the copy's consumer."""
        if skipped is not None:
            return ScenarioRun(scenario, skipped=skipped)
        python = tool("python3")
        if python is None:
            return ScenarioRun(scenario, skipped=PYTHON_MISSING)
        copy = self.box.copy(scenario.name)
        clear_state(copy)  # a line judges only what this run wrote: a shipped ledger is gone
        plan = self.box.kit_file(f"scenario-{scenario.name}.json", scenario.to_json().encode())
        with result_key(copy) as key:  # read and deleted by the deliverer before the consumer starts
            argv = [python, "-I", str(self.deliverer), str(plan), str(key.file), *self.command]
            run = self.box.run(argv, copy, limits=SCENARIO_LIMITS)
        result = key.parse(run.stdout)
        ledger = read_ledger(copy)
        if result is None:
            return ScenarioRun(scenario, ledger=ledger, run=run, problem=_no_result(run))
        deliveries = tuple(
            Delivery.from_dict(raw)
            for raw in (result.get("deliveries") or [])[:MAX_DELIVERIES]
            if isinstance(raw, dict)
        )
        starts = tuple(_start(raw) for raw in (result.get("starts") or [])[:MAX_DELIVERIES] if isinstance(raw, dict))
        problem = result.get("problem")
        port = result.get("port")
        return ScenarioRun(
            scenario,
            deliveries=deliveries,
            starts=starts,
            ledger=ledger,
            run=run,
            port=port if isinstance(port, int) else None,
            problem=clipped_text(str(problem), 300) if problem else None,
        )


def clear_state(copy: Path) -> None:
    """Remove `state/` from a copy (a link is removed, never followed)."""
    state = copy / STATE
    if state.is_symlink() or state.is_file():
        state.unlink()
    elif state.is_dir():
        shutil.rmtree(state)


def read_ledger(copy: Path) -> Ledger:
    """The ledger the consumer left in the copy, read without following links."""
    try:
        data = read_file(copy, LEDGER, MAX_LEDGER_BYTES)
    except UnsafeFile as exc:
        return Ledger(problem=f"{LEDGER} {exc.reason}")
    return parse_ledger(data)


def _no_result(run: RunResult) -> str:
    if run.timed_out:
        return f"the scenario did not finish within {SCENARIO_LIMITS.wall_seconds:g} s; killed"
    if run.output_limit_hit:
        return "the consumer printed more than the output limit; killed"
    said = first_error_line(run.stderr)
    return f"the deliverer reported nothing ({run.status()})" + (f": {said}" if said else "")


def _start(raw: dict[str, Any]) -> dict[str, Any]:
    error = raw.get("error")
    return {
        "why": str(raw.get("why")),
        "step": raw.get("step"),
        "ready": bool(raw.get("ready")),
        "exit_code": raw.get("exit_code"),
        "error": clipped_text(str(error), 300) if error else None,
    }
