"""Running a candidate's payment client and tests in the sandbox against the gateway."""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.takehome import (
    Limits,
    RunResult,
    Sandbox,
    Service,
    cached,
    clipped_text,
    first_error_line,
    result_key,
    takehome_data,
    tool,
    without_result,
)
from gradelib.takehomes.payments.fakegateway import Gateway, GatewayCounts, GatewayRequest
from gradelib.takehomes.payments.keyscope import BACKOFF_MIN_GAP, gaps, has_backoff, least_gaps
from gradelib.takehomes.payments.suites import HANDOUT_PORT, SuiteRuns, find_tests, run_suites

__all__ = ["ClientRun", "ClientRunner", "ScenarioRun", "SuiteRuns", "find_tests", "tap_summary"]

CHECKOUT = "checkout.mjs"
PACKAGE_JSON = "package.json"
DRIVER = "driver.mjs"
DRIVER_FOLDER = "payments"  # the take-home's package-data folder, where the driver ships
WITH_STUB = "with-stub.mjs"  # runs a suite with the handout's gateway stub listening (package data too)
HANDOUT_STUB = ("gateway", "server.mjs")  # the handout's own stub, as candidates receive it
AMOUNT = 4200
ORDERS_AMOUNTS = (4200, 1700)  # the orders scenario: two separate orders, one process
GATEWAY_PORT = HANDOUT_PORT
GATEWAY_ENV = {"GATEWAY_URL": "http://{host}:{port}"}
SCENARIO_LIMITS = Limits(wall_seconds=30, cpu_seconds=30)
SLOW_LIMITS = Limits(wall_seconds=40, cpu_seconds=40)
TEST_LIMITS = Limits(wall_seconds=120, cpu_seconds=120)
MAX_REQUESTS = 50  # per run: more than this is a flood, and the kit stops the client
# Load on the grading machine only ever lengthens a gap, so the outage run is repeated (fresh copy,
# fresh gateway) and each gap taken as the least seen; not for clients whose waits alone already
# took long (their waits, not the run: a loaded machine starts Node slowly).
OUTAGE_RUNS = 3
OUTAGE_EXTRA_RUNS = 3  # more, one at a time, while real waits still look shorter than the one before
OUTAGE_REPEAT_UNDER_SECONDS = 5.0
EXIT_UNSETTLED = 13  # node's exit status when top-level await never settles
SCENARIO_RUNS = 1 + 2 + OUTAGE_RUNS + OUTAGE_EXTRA_RUNS + 1  # transient, restart (two), outage, orders
# The candidate's code (twice when red: a flake; once more with the handout's stub), the draft, the two fixes.
TEST_VARIANTS = 6
# The most one grading's sandboxed runs can take, their wall limits summed (the batch's deadline is built on it).
RUN_SECONDS = (
    SCENARIO_RUNS * SCENARIO_LIMITS.wall_seconds + SLOW_LIMITS.wall_seconds + TEST_VARIANTS * TEST_LIMITS.wall_seconds
)
LOADED_OUTCOMES = ("resolved", "rejected")
MAX_ROWS = 100
NODE_MISSING = (
    "node is not installed on the grading machine: install Node.js 20"
    " (`apt-get install nodejs`, or the README's setup command)"
)
NPM_MISSING = (
    "the submission's tests need npm, which is not installed on the grading machine:"
    " `apt-get install npm` (or the README's setup command)"
)


def tap_summary(output: str) -> dict[str, int]:
    """The `# tests N`, `# pass N`, `# fail N` counts of a node:test (TAP) run."""
    found = re.findall(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$", output, re.M)
    return {name: int(count) for name, count in found}


@dataclass(frozen=True)
class ClientRun:
    """One run of the driver: the sandbox result and what chargeWithRetry did."""

    run: RunResult
    outcome: str | None  # resolved / rejected / no_export / import_error; None: no result
    value: Any
    error: str | None
    unhandled: tuple[str, ...]
    requests: int  # charge requests this run made
    stop_reason: str | None  # "flood" or "restart" when the kit stopped it
    calls: tuple[Mapping[str, Any], ...] = ()  # each chargeWithRetry call: amount, outcome, value, error
    wall_seconds: float = 0.0  # the run's time limit, for a message that reads the same on every grading

    @property
    def problem(self) -> str | None:
        """Why this run says nothing about the client's behaviour, or None."""
        if self.stop_reason == "flood":
            return f"flooded the gateway: stopped after {self.requests} requests (limit {MAX_REQUESTS})"
        if self.run.timed_out:
            return f"hung: no result within {self.wall_seconds:g} s ({self.requests} requests); killed"
        if self.run.output_limit_hit:
            return "printed more than the output limit; killed"
        if self.outcome == "no_export":
            return self.error or f"{CHECKOUT} does not export a function chargeWithRetry"
        if self.outcome == "import_error":
            return f"{CHECKOUT} cannot be imported as an ES module: {self.error}"
        if self.outcome is None and self.stop_reason is None:
            if self.run.exit_code == EXIT_UNSETTLED:
                return "chargeWithRetry never settled: node exited with nothing left to wait for"
            said = first_error_line(self.run.stderr) or first_error_line(self.run.stdout)
            return f"crashed: {self.run.status()} without a result" + (f": {said}" if said else "")
        return None

    @property
    def loaded(self) -> bool:
        """True when the client was imported and ran: its behaviour was measured (a hang or flood too)."""
        if self.outcome in LOADED_OUTCOMES:
            return True
        return self.outcome is None and (self.requests > 0 or self.run.timed_out or self.stop_reason is not None)

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "outcome": self.outcome,
            "value": self.value,
            "error": self.error,
            "problem": self.problem,
            "requests": self.requests,
            "stopped_by_kit": self.stop_reason,
            "unhandled": list(self.unhandled),
            "calls": [dict(call) for call in self.calls],
            "run": {**self.run.evidence(), "stdout_tail": without_result(self.run.tail("stdout"))},
        }


@dataclass(frozen=True)
class ScenarioRun:
    """One gateway scenario: the client runs against it and the requests it logged."""

    scenario: str
    runs: tuple[ClientRun, ...]
    requests: tuple[GatewayRequest, ...]
    counts: GatewayCounts
    skipped: str | None = None

    @property
    def problem(self) -> str | None:
        """The first run problem (a restart's planned kill is not one)."""
        return next((run.problem for run in self.runs if run.problem), None)

    @property
    def last(self) -> ClientRun | None:
        """The last client run."""
        return self.runs[-1] if self.runs else None

    @property
    def measured(self) -> bool:
        """True when the scenario ran and every client run in it was imported and ran."""
        return self.skipped is None and bool(self.runs) and all(run.loaded for run in self.runs)

    @property
    def unmeasured(self) -> str | None:
        """Why the scenario measured nothing (skipped, the client not imported), or None."""
        if self.skipped is not None:
            return f"the {self.scenario} scenario did not run: {self.skipped}"
        if not self.measured:
            why = self.problem or "the client never ran"
            return f"the {self.scenario} scenario measured nothing: {why}"
        return None

    def conflicts(self) -> dict[str, int]:
        """How often the gateway answered 409 (key in flight) and 400 (key known with another amount)."""
        kinds = ("key_in_use", "amount_mismatch")
        return {kind: sum(1 for request in self.requests if request.conflict == kind) for kind in kinds}

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        return gaps([request.time for request in self.requests])

    def rows(self) -> list[dict[str, Any]]:
        """The request log as table rows; time in seconds since the first request."""
        start = self.requests[0].time if self.requests else 0.0
        first_run = self.runs[0].requests if len(self.runs) > 1 else None
        rows = []
        for request in self.requests[:MAX_ROWS]:
            row: dict[str, Any] = {}
            if first_run is not None:
                row["run"] = 1 if request.index < first_run else 2
            row |= {
                "index": request.index,
                "time": round(request.time - start, 3),
                "key": request.key,
                "attempt": request.attempt,
                "status": "hung" if request.status is None else request.status,
                "charged": request.charged,
                "idempotency": "replayed" if request.deduped else request.conflict,
            }
            rows.append(row)
        return rows

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary: counts, runs, and the request table."""
        return {
            "skipped": self.skipped,
            "counts": self.counts.to_dict(),
            "conflicts": self.conflicts(),
            "runs": [run.evidence() for run in self.runs],
            "requests": self.rows(),
        }


class _Stopper:
    """stop_when for one run: a flood, or (restart) the first request reaching the gateway."""

    def __init__(self, gateway: Gateway, *, at_first_request: bool = False) -> None:
        self.gateway = gateway
        self.base = gateway.counts().requests
        self.at_first_request = at_first_request
        self.reason: str | None = None

    def made(self) -> int:
        return self.gateway.counts().requests - self.base

    def __call__(self) -> bool:
        made = self.made()
        if made > MAX_REQUESTS:
            self.reason = "flood"
        elif self.at_first_request and made >= 1:
            self.reason = "restart"
        return self.reason is not None


class ClientRunner:
    """Runs the driver and the candidate's tests in one grading's sandbox, each against a fresh gateway."""

    def __init__(
        self,
        box: Sandbox,
        node: str | None,
        installed: Mapping[str, str] | None = None,
        scripts: tuple[str, ...] | None = None,
    ) -> None:
        """`installed`: the node packages the submission's declaration installed, name -> version."""
        self.box = box
        self.node = node
        self.installed = dict(installed or {})
        self.scripts = scripts  # how package.json's scripts start when `npm run` cannot (yarn's Plug'n'Play)

    @cached
    def driver(self) -> Path:
        """The driver script, where the sandbox user can read it."""
        return self.box.kit_file(DRIVER, takehome_data(DRIVER_FOLDER).joinpath(DRIVER).read_bytes())

    def client(
        self,
        copy: Path,
        gateway: Gateway,
        limits: Limits,
        *,
        at_first_request: bool = False,
        amounts: Sequence[int] = (AMOUNT,),
        seed: int = 0,
        machine: Path | None = None,
    ) -> ClientRun:
        """One driver run of the copy's checkout.mjs against the gateway: one order per amount.

        `machine` (the sandbox's `machine()`) keeps HOME, TMPDIR and /tmp from an earlier run.
        """
        stopper = _Stopper(gateway, at_first_request=at_first_request)
        service = Service("gateway", GATEWAY_PORT, gateway.serve, GATEWAY_ENV)
        amounts_arg = ",".join(str(amount) for amount in amounts)
        with result_key(copy) as key:  # read and deleted by the driver before the candidate's code loads
            argv = [self.node or "node", str(self.driver), str(copy / CHECKOUT), amounts_arg, str(key.file), str(seed)]
            run = self.box.run(argv, copy, limits=limits, services=[service], stop_when=stopper, machine=machine)
        result = key.parse(run.stdout) or {}
        outcome = result.get("outcome")
        error = result.get("error")
        return ClientRun(
            run=run,
            outcome=str(outcome) if outcome is not None else None,
            value=result.get("value"),
            error=clipped_text(error, 500) if error is not None else None,
            unhandled=tuple(clipped_text(u, 300) for u in result.get("unhandled") or [])[:5],
            requests=stopper.made(),
            stop_reason=stopper.reason if run.stopped else None,
            calls=tuple(_call(call) for call in (result.get("calls") or [])[:10] if isinstance(call, dict)),
            wall_seconds=limits.wall_seconds,
        )

    def scenario(self, name: str, limits: Limits, runs: int = 1, *, skipped: str | None = None) -> ScenarioRun:
        """The client run `runs` times in one fresh copy against one gateway following the scenario.

        With more than one run, the first is killed at its first request (a restart) and the next
        runs on the same machine: the same folder, HOME, TMPDIR and temp files, a new process.
        With `skipped`, nothing runs and the scenario records why.
        """
        gateway = Gateway(name)
        if skipped is not None:
            return ScenarioRun(name, (), (), gateway.counts(), skipped=skipped)
        copy = self.box.copy(name)
        machine = self.box.machine() if runs > 1 else None
        amounts = ORDERS_AMOUNTS if name == "orders" else (AMOUNT,)
        done = []
        for number in range(runs):
            restart = runs > 1 and number == 0
            seed = seed_for(name, number)
            done.append(
                self.client(
                    copy, gateway, limits, at_first_request=restart, amounts=amounts, seed=seed, machine=machine
                )
            )
        return ScenarioRun(name, tuple(done), gateway.requests, gateway.counts())

    def outage_repeats(self, first: ScenarioRun) -> tuple[ScenarioRun, ...]:
        """More outage runs, each in a fresh copy, when the first one showed waits worth measuring."""
        if first.problem or len(first.gaps()) < 2 or sum(first.gaps()) > OUTAGE_REPEAT_UNDER_SECONDS:
            return ()
        runs = [self.scenario("outage", SCENARIO_LIMITS) for _ in range(OUTAGE_RUNS - 1)]
        for _ in range(OUTAGE_EXTRA_RUNS):
            if not shrinking_waits([first, *runs]):
                break
            runs.append(self.scenario("outage", SCENARIO_LIMITS))
        return tuple(runs)

    def tests(self, submission: Path) -> SuiteRuns:
        """The candidate's tests on their code, on the model draft and on the kit's fixes, in fresh copies."""
        found = find_tests(submission)
        if found is None:
            return SuiteRuns(None, ())
        kind, command = found
        if self.node is None:
            return SuiteRuns(kind, command, problem=NODE_MISSING)
        binary = tool(command[0])
        if kind == "npm" and self.scripts:
            binary, command = self.scripts[0], (*self.scripts, command[-1])
        if binary is None:
            return SuiteRuns(kind, command, problem=NPM_MISSING)
        return run_suites(submission, binary, self.box.copy, self._test_run, self.installed, command=command)

    def _test_run(self, argv: Sequence[str], copy: Path, env: Mapping[str, str], stub: bool) -> RunResult:
        """The suite as the handout says to run it: nothing of the kit's listening and no `GATEWAY_URL` (promised
        to the client's runs only); with `stub`, the handout's own gateway stub listening on its address."""
        if stub and self.node is not None:
            argv = [self.node, str(self.with_stub), str(self.handout_stub), str(GATEWAY_PORT), "--", *argv]
        return self.box.run(argv, copy, env=env, limits=TEST_LIMITS)

    @cached
    def with_stub(self) -> Path:
        """The script that runs a suite beside the handout's stub, where the sandbox user can read it."""
        return self.box.kit_file(WITH_STUB, takehome_data(DRIVER_FOLDER).joinpath(WITH_STUB).read_bytes())

    @cached
    def handout_stub(self) -> Path:
        """The handout's gateway stub, byte for byte, where the sandbox user can read it."""
        stub = takehome_data(DRIVER_FOLDER).joinpath(*HANDOUT_STUB).read_bytes()
        return self.box.kit_file("handout-gateway.mjs", stub)


def shrinking_waits(runs: Sequence[ScenarioRun]) -> bool:
    """Real waits (each at least BACKOFF_MIN_GAP) whose least values still shrink from one to the next.

    On a loaded machine a client's first retry comes late (Node is still warming up), which makes
    a growing backoff look like a shrinking one; such a run is measured again before the kit
    says "no backoff". Immediate retries and single attempts are never repeated for this.
    """
    least = least_gaps([run.gaps() for run in runs if not run.problem])
    return len(least) >= 2 and all(gap >= BACKOFF_MIN_GAP for gap in least) and not has_backoff(least)


def seed_for(scenario: str, number: int) -> int:
    """The driver's Math.random seed for a run: the same on every grading, different for every run."""
    return zlib.crc32(f"{scenario}:{number}".encode())


def _call(call: Mapping[str, Any]) -> dict[str, Any]:
    """One chargeWithRetry call as the driver reported it, its text made safe."""
    error = call.get("error")
    return {
        "amount": call.get("amount"),
        "outcome": str(call.get("outcome")),
        "value": call.get("value"),
        "error": clipped_text(error, 500) if error is not None else None,
    }
