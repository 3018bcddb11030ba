"""The runs every `webhooks` line reads, each done once per grading and cached: the five delivery scenarios
(each in a fresh copy), what the consumer's ledger says of them, and the note."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from gradelib.takehome import BaseGrading, LineResult, Tier, UnsafeFile, cached, install_failed, read_file, tool

from gradelib_webhooks.deliveries import DeliveryRunner, ScenarioRun
from gradelib_webhooks.judge import GENUINE, first_answer
from gradelib_webhooks.notes import constant_time_compare, find_hints
from gradelib_webhooks.scenarios import SCENARIO_NAMES, load

TAKEHOME = "webhooks"
LABELS = {"late_status": "status after the timeout"}  # its evidence keys as a reader says them (TakeHome.labels)
NOTE = "NOTE.md"
# The consumer the handout asks for, in the order the kit looks for it, and how it is started.
CONSUMERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("consumer.mjs", ("node", "consumer.mjs")),
    ("consumer.py", ("python", "consumer.py")),
)
CONSUMER_FILES = tuple(name for name, _ in CONSUMERS)
HANDOUT_FILES = (
    ("HANDOUT.md", "README.md"),
    ("draft/consumer.mjs", "consumer.mjs"),
    ("handout/send_event.py", "send_event.py"),
)
DRAFT = ("draft", "consumer.mjs")
MAX_SOURCE_BYTES = 1024 * 1024
MAX_NOTE_BYTES = 256 * 1024
EXACTLY_ONCE = ("duplicates", "slow", "restart")
IN_ONE_PROCESS = ("duplicates", "slow")
FIRST = "duplicates"  # run first: when the consumer cannot even start, the others are skipped
NODE_MISSING = "node is not installed on the grading machine: install Node.js 20 (the README's setup command)"

Dedupe = Literal["none", "in_memory", "persisted", "unknown"]
Reordering = Literal["applied_early", "lost", "refused", "parked", "unknown"]
DEDUPE_TIERS: dict[str, Tier] = {"none": "weak", "in_memory": "acceptable", "persisted": "strong"}


class WebhooksRuns(BaseGrading):
    """One `webhooks` submission's runs and readings, each started on first use and kept; the lines judge them."""

    TAKEHOME = TAKEHOME

    # -- the submission ------------------------------------------------------------------------

    @cached
    def consumer(self) -> tuple[str | None, tuple[str, ...], str | None]:
        """(consumer file, the command that starts it, why there is none usable)."""
        for name, command in CONSUMERS:
            try:
                data = read_file(self.submission, name, MAX_SOURCE_BYTES)
            except UnsafeFile as exc:
                return name, command, f"{name} {exc.reason}"
            if data is not None:
                return name, command, None
        return None, (), f"no {' or '.join(CONSUMER_FILES)} in the submission"

    @cached
    def source(self) -> str | None:
        """The consumer's source text (for hints), or None."""
        name, _, problem = self.consumer
        if name is None or problem:
            return None
        data = read_file(self.submission, name, MAX_SOURCE_BYTES)
        return data.decode("utf-8", errors="replace") if data is not None else None

    @cached
    def note(self) -> tuple[str | None, str | None]:
        """(text of NOTE.md, why there is none)."""
        try:
            data = read_file(self.submission, NOTE, MAX_NOTE_BYTES)
        except UnsafeFile as exc:
            return None, f"{NOTE} {exc.reason}"
        if data is None:
            return None, f"no {NOTE} in the submission"
        return data.decode("utf-8", errors="replace"), None

    @cached
    def hints(self) -> list[dict[str, Any]]:
        """Hints about the note for the reviewer."""
        text, _ = self.note
        return find_hints(text) if text is not None else []

    @cached
    def missing_tool(self) -> str | None:
        """Why the kit cannot run this consumer on this machine (no node), or None."""
        name, _, _ = self.consumer
        if name == "consumer.mjs" and tool("node") is None:
            return NODE_MISSING
        return None

    @cached
    def unrunnable(self) -> str | None:
        """Why no scenario can run (no install, no consumer, no node), or None."""
        return install_failed(self.environment) or self.consumer[2] or self.missing_tool

    @cached
    def runner(self) -> DeliveryRunner:
        """Runs the scenarios in this grading's sandbox."""
        return DeliveryRunner(self.box, self.consumer[1])

    def _scenario(self, name: str) -> ScenarioRun:
        skipped = self.unrunnable
        if skipped is None and name != FIRST and not self.first_start_ok:
            skipped = f"the {FIRST} run already showed: {self.runs_first.problem}"
        return self.runner.run(load()[name], skipped=skipped)

    @cached
    def runs_first(self) -> ScenarioRun:
        """The first scenario, run before the others."""
        return self.runner.run(load()[FIRST], skipped=self.unrunnable)

    @property
    def first_start_ok(self) -> bool:
        """The consumer started at all in the first scenario."""
        run = self.runs_first
        return run.skipped is None and any(start.get("ready") for start in run.starts)

    @cached
    def duplicates(self) -> ScenarioRun:
        """The same event again, right after itself and twice at once."""
        return self.runs_first

    @cached
    def slow(self) -> ScenarioRun:
        """A stalled consumer: the provider times out and redelivers while the first is pending."""
        return self._scenario("slow")

    @cached
    def restart(self) -> ScenarioRun:
        """Killed between deliveries and started again; an answered event is redelivered."""
        return self._scenario("restart")

    @cached
    def out_of_order(self) -> ScenarioRun:
        """A refund before its charge, a restart in between."""
        return self._scenario("out_of_order")

    @cached
    def bad_signature(self) -> ScenarioRun:
        """A tampered copy before the genuine event, a wrong secret, no signature."""
        return self._scenario("bad_signature")

    def scenarios(self) -> dict[str, ScenarioRun]:
        """Every scenario, run on first use."""
        return {name: getattr(self, name) for name in SCENARIO_NAMES}

    def prefetch_tasks(self) -> tuple[Callable[[], object], ...]:
        """The scenarios side by side (they wait on timeouts and restarts more than they compute).

        The deliverer is written and the first scenario run before the threads start: the others
        are skipped when the consumer cannot start.
        """
        if self.unrunnable:
            return ()
        self.runner.deliverer  # noqa: B018 - written once, before the threads share it
        self.runs_first  # noqa: B018
        return (lambda: self.slow, lambda: self.restart, lambda: self.out_of_order, lambda: self.bad_signature)

    @cached
    def dedupe(self) -> Dedupe:
        """none (applied twice in one process) / in_memory (only after a restart) / persisted / unknown."""
        runs = [self.scenarios()[name] for name in EXACTLY_ONCE]
        if not all(run.measured for run in runs):
            return "unknown"
        if any(self.scenarios()[name].verdict.doubled for name in IN_ONE_PROCESS):
            return "none"
        restart = self.restart.verdict
        others_clean = all(self.scenarios()[name].verdict.clean for name in IN_ONE_PROCESS)
        if restart.doubled and not restart.lost and others_clean:
            return "in_memory"
        return "persisted" if others_clean and restart.clean else "unknown"

    @cached
    def reordering(self) -> Reordering:
        """What happened to the refund that came before its charge."""
        run = self.out_of_order
        if not run.measured or run.verdict.ledger_problem:
            return "unknown"
        refund, _charge = next(iter(run.scenario.refunds().items()))
        if refund in run.verdict.early:
            return "applied_early"
        if refund in run.verdict.lost:
            return "lost"
        first = first_answer(run.deliveries, refund)
        return "parked" if first is not None and first.accepted else "refused"

    def forged(self) -> list[Any]:
        """The forged deliveries of the bad_signature run."""
        return [d for d in self.bad_signature.deliveries if d.kind != GENUINE]

    @cached
    def genuine_lost_to_forgery(self) -> bool | None:
        """True when a genuine event whose tampered copy came first was never applied."""
        run = self.bad_signature
        if not run.measured or run.verdict.ledger_problem:
            return None
        return any(event_id in run.verdict.lost for event_id in run.scenario.forged_amounts())

    def facts(self) -> dict[str, Any]:
        """What the kit measured; None: not measured."""
        runs = self.scenarios()
        measured = {name: run for name, run in runs.items() if run.measured and not run.verdict.ledger_problem}
        sig = measured.get("bad_signature")
        source = self.source
        return {
            "consumer": self.consumer[0],
            "dedupe": self.dedupe,
            "out_of_order": self.reordering,
            "forged_applied": bool(sig.verdict.forged_applied) if sig else None,
            "forged_rejected_4xx": all(d.rejected_4xx for d in self.forged()) if sig else None,
            "genuine_lost_to_forgery": self.genuine_lost_to_forgery,
            "constant_time_compare": constant_time_compare(source) if source is not None else None,
            "doubled_events": {name: list(run.verdict.doubled) for name, run in measured.items()},
            "lost_events": {name: list(run.verdict.lost) for name, run in measured.items()},
            "scenarios_clean": {name: run.verdict.clean for name, run in measured.items()},
            "crashes": sum(run.crashes for run in runs.values()),
            "consumer_problem": self.unrunnable
            or next((r.unmeasured() for r in runs.values() if r.unmeasured()), None),
            # read by the kit's report views (`render.isolation_warning`): how the runs were isolated
            "isolation": self.duplicates.run.isolation.mode if self.duplicates.run else None,
            "isolation_reason": self.duplicates.run.isolation.reason if self.duplicates.run else None,
        }

    def _unworkable(self, line_id: str, names: Sequence[str], evidence: dict[str, Any]) -> LineResult | None:
        """The line's result when its scenarios measured nothing (no consumer, no node, it never ran)."""
        if self.missing_tool:
            return self._line(line_id, "unverified", self.missing_tool, evidence)
        if self.consumer[2]:
            return self._line(line_id, "error", self.consumer[2], evidence)
        for name in names:
            run = self.scenarios()[name]
            if why := run.unmeasured():
                return self._line(line_id, "fail", f"the consumer does not work: {why}", evidence)
            if run.verdict.ledger_problem:
                return self._line(line_id, "fail", f"{name}: {run.verdict.ledger_problem}", evidence)
        return None


def balances_text(balances: Mapping[str, int]) -> str:
    """Balances as one short JSON object, by account."""
    return json.dumps(dict(sorted(balances.items())), separators=(", ", ": "))


def draft_path() -> Path:
    """The model's draft as shipped (for tests and the README)."""
    from importlib import resources

    return Path(str(resources.files(__package__).joinpath(*DRAFT)))
