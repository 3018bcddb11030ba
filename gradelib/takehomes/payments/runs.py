"""The runs every `payments` line reads, each done once per grading and cached: the gateway scenarios, the
candidate's tests on their code, the draft and its fixes, the draft comparison, the note."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gradelib.takehome import (
    BaseGrading,
    Limits,
    LineResult,
    Outcome,
    Tier,
    UnsafeFile,
    cached,
    computed,
    install_failed,
    markdown_html,
    mask_data,
    read_file,
    takehome_data,
    tool,
)
from gradelib.takehomes.payments.clientruns import (
    CHECKOUT,
    MAX_ROWS,
    NODE_MISSING,
    SCENARIO_LIMITS,
    SLOW_LIMITS,
    ClientRunner,
    ScenarioRun,
    SuiteRuns,
)
from gradelib.takehomes.payments.keyscope import (
    KeyScope,
    classify_key_scope,
    draft_diff,
    draft_lines_kept,
    has_backoff,
    key_labels,
    least_gaps,
    same_key_after_restart,
)
from gradelib.takehomes.payments.notehints import find_hints

TAKEHOME = "payments"
# Its evidence keys as a reader says them: the record hands them to the report's cards, the views to their tables.
LABELS = {
    "chargeId": "charge id",
    "idempotencyKey": "idempotency key",
    "distinct_keys": "distinct keys",
    "gaps_ms": "gaps between attempts (ms)",
    "gaps_ms_per_run": "gaps per run (ms)",
    "red_on_draft": "red on the model's draft",
    "green_on_own": "green on their own code",
    "key_in_use": "key in use (409)",
    "amount_mismatch": "amount mismatch (400)",
}
ORDER_SCENARIOS = ("transient", "outage", "slow")  # each one order, each in a fresh copy
HANDOUT_FILES = (
    ("HANDOUT.md", "README.md"),
    ("draft/checkout.mjs", "checkout.mjs"),
    ("gateway", "gateway"),
)
NOTE = "NOTE.md"
DRAFT = ("draft", "checkout.mjs")
SCENARIOS = ("transient", "restart", "outage", "slow", "orders")
MAX_ATTEMPTS = 4  # the handout: one attempt and up to 3 retries
REWRITE_RATIO = 0.5  # share of checkout.mjs matching the draft under which it is far from it (shown only)
REWRITE_KEPT = 0.5  # share of the draft's lines under which checkout.mjs no longer has the draft's structure
# Masks for what changes from one grading to the next (the sandbox's temp paths, random keys).
PATH_MASKS = {"submission": "<submission>", "home": "<home>", "tmp": "<tmp>"}
KIT_FOLDER = "kit"
FIX_NAMES = {"per_call_fix": "one key per call", "persisted_fix": "key persisted before the request"}
MAX_SOURCE_BYTES = 1024 * 1024
MAX_NOTE_BYTES = 256 * 1024
KEY_SCOPE_TIERS: Mapping[str, Tier] = {
    "per_attempt": "weak",
    "per_call": "acceptable",
    "persisted": "strong",
}
EXPLANATION_HINTS = ("idempotency", "restart")
BLAST_RADIUS_HINTS = ("timeout", "partial_write", "idempotency")


def line_numbers(numbers: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:8])
    return shown + (", ..." if len(numbers) > 8 else "")


class PaymentsRuns(BaseGrading):
    """One `payments` submission's runs and readings, each started on first use and kept (`cached`); the
    lines judge them."""

    TAKEHOME = TAKEHOME
    FLAG_RUNTIME_DEPENDENCIES = True  # the handout allows no new dependencies

    @cached
    def node(self) -> str | None:
        """The node binary on the sandbox PATH."""
        return tool("node")

    @cached
    def checkout(self) -> tuple[str | None, str | None]:
        """(source of checkout.mjs, why it cannot be used)."""
        return _read_text(self.submission, CHECKOUT, MAX_SOURCE_BYTES)

    @cached
    def draft_source(self) -> str:
        """The model's first draft that ships with the handout."""
        return takehome_data(TAKEHOME).joinpath(*DRAFT).read_text(encoding="utf-8")

    @cached
    def note(self) -> tuple[str | None, str | None]:
        """(text of NOTE.md, why there is none)."""
        return _read_text(self.submission, NOTE, MAX_NOTE_BYTES)

    @cached
    def hints(self) -> list[dict[str, Any]]:
        """Hints about the note for the reviewer."""
        text, _ = self.note
        return find_hints(text) if text is not None else []

    @cached
    def unrunnable(self) -> str | None:
        """Why the client cannot be run at all (no node, no usable checkout.mjs, no install), or None."""
        if failed := install_failed(self.environment):
            return failed
        if self.node is None:
            return NODE_MISSING
        return self.checkout[1]

    @cached
    def runner(self) -> ClientRunner:
        """Runs the client and the tests in this grading's sandbox, with the node found (or set)."""
        node = self.environment.node
        installed = {name: version for name, version, _dev in node.packages} if node else {}
        return ClientRunner(self.box, self.node, installed, self.environment.script_runner())

    def _scenario(self, name: str, limits: Limits, runs: int = 1) -> ScenarioRun:
        skipped = None
        if why := self.unrunnable or (self.transient.problem if name != "transient" else None):
            skipped = why if self.unrunnable else f"the transient run already showed: {why}"
        return self.runner.scenario(name, limits, runs, skipped=skipped)

    @cached
    def transient(self) -> ScenarioRun:
        """First attempt 503, then 200: distinct keys tell a key per attempt from per call."""
        return self._scenario("transient", SCENARIO_LIMITS)

    @cached
    def restart(self) -> ScenarioRun:
        """Killed at its first request (charged, never answered), then run again in the copy."""
        return self._scenario("restart", SCENARIO_LIMITS, runs=2)

    @cached
    def outage(self) -> ScenarioRun:
        """Always 503: attempts, gaps between them, and whether the promise resolves."""
        return self._scenario("outage", SCENARIO_LIMITS)

    @cached
    def outage_repeats(self) -> tuple[ScenarioRun, ...]:
        """More outage runs, each in a fresh copy, when the first one showed waits worth measuring."""
        return self.runner.outage_repeats(self.outage)

    @cached
    def outage_gaps(self) -> list[float]:
        """Seconds between outage attempts: each gap the least seen over the outage runs."""
        repeats = [run.gaps() for run in self.outage_repeats if not run.problem]
        return least_gaps([self.outage.gaps(), *repeats])

    @cached
    def slow(self) -> ScenarioRun:
        """The first answer takes 8 s: does a retry after a timeout keep the key?"""
        return self._scenario("slow", SLOW_LIMITS)

    @cached
    def orders(self) -> ScenarioRun:
        """Two orders of different amounts in one process: is a key ever reused for another amount?"""
        return self._scenario("orders", SCENARIO_LIMITS)

    def scenarios(self) -> dict[str, ScenarioRun]:
        """All the scenarios, run on first use."""
        return {name: getattr(self, name) for name in SCENARIOS}

    def attempts(self) -> dict[str, list[dict[str, Any]]]:
        """The request log of each scenario as rows (for tables and the timeline chart)."""
        rows: dict[str, list[dict[str, Any]]] = self._masked(
            {name: run.rows() for name, run in self.scenarios().items()}
        )
        return rows

    @cached
    def tests(self) -> SuiteRuns:
        """The candidate's tests on their code, the model draft and the kit's fixes, in fresh copies."""
        if failed := install_failed(self.environment):
            return SuiteRuns(None, (), problem=failed)
        return self.runner.tests(self.submission)

    @cached
    def restart_same_key(self) -> bool | None:
        """Same key from the process started after the kill (None: inconclusive)."""
        restart = self.restart
        if restart.skipped or len(restart.runs) < 2:
            return None
        return same_key_after_restart(restart.requests, restart.runs[0].requests)

    @cached
    def key_scope_fact(self) -> KeyScope:
        """per_attempt / per_call / persisted / unknown, from transient and restart."""
        transient = self.transient
        if transient.skipped or transient.problem:
            return "unknown"
        keyless = sum(1 for request in transient.requests if request.key is None)
        counts = transient.counts
        return classify_key_scope(counts.requests, counts.distinct_keys, keyless, self.restart_same_key)

    @property
    def key_reused_for_other_amount(self) -> bool | None:
        """True when the orders run sent one key for both amounts (None: not measured)."""
        orders = self.orders
        if not orders.measured:
            return None
        amounts: dict[str, set[str]] = {}
        for request in orders.requests:
            if request.key is not None:
                amounts.setdefault(request.key, set()).add(json.dumps(request.amount))
        return any(len(seen) > 1 for seen in amounts.values())

    @property
    def same_key_across_copies(self) -> bool:
        """True when separate orders (scenarios in fresh copies) all sent one and the same key."""
        firsts = []
        for scenario in (self.transient, self.outage, self.slow):
            keys = [request.key for request in scenario.requests if request.key is not None]
            if keys:
                firsts.append(keys[0])
        return len(firsts) >= 2 and len(set(firsts)) == 1

    @property
    def same_key_for_different_orders(self) -> bool:
        """True when separate orders carried one key: across fresh copies, or both orders of one run."""
        return self.same_key_across_copies or bool(self.key_reused_for_other_amount)

    @cached
    def draft(self) -> dict[str, Any]:
        """The candidate's checkout.mjs against the packaged draft: text, structure, and the backoff."""
        source = self.checkout[0]
        if source is None:
            return {"problem": self.checkout[1]}
        unified, ratio = draft_diff(source, self.draft_source)
        kept = draft_lines_kept(source, self.draft_source)
        backoff = self.backoff
        restructured = kept < REWRITE_KEPT
        # The article's failure mode is a rewrite that also removes the backoff: new structure
        # alone (persistence, helpers around the draft's loop) is not one, and needs the outage run.
        rewrite = (None if backoff is None else not backoff) if restructured else False
        return {
            "similarity": ratio,
            "draft_lines_kept": kept,
            "restructured": restructured,
            "backoff": backoff,
            "rewrite": rewrite,
            "unified_diff": unified,
        }

    @property
    def backoff(self) -> bool | None:
        """Growing waits between outage attempts; None when the outage run measured nothing."""
        return has_backoff(self.outage_gaps) if self.outage.measured else None

    def facts(self) -> dict[str, Any]:
        """What the kit measured, in the stable shape of TAKEHOMES.md, then extras; None: not measured."""
        outage, slow, transient, restart = self.outage, self.slow, self.transient, self.restart
        last = outage.last
        measured = outage.measured
        facts: dict[str, Any] = self._masked(
            {
                "key_scope": self.key_scope_fact,
                "tests_green_on_own": self.tests.green_on_own,
                "tests_red_on_draft": self.tests.red_on_draft,
                "dropped_payment_on_outage": (last is not None and last.outcome == "resolved") if measured else None,
                "outage_attempts": outage.counts.requests if measured else None,
                "backoff": self.backoff,
                "slow_distinct_keys": slow.counts.distinct_keys if slow.measured else None,
                "same_key_for_different_orders": self.same_key_for_different_orders,
                "key_reused_for_other_amount": self.key_reused_for_other_amount,
                "transient_requests": transient.counts.requests if transient.measured else None,
                "transient_distinct_keys": transient.counts.distinct_keys if transient.measured else None,
                "restart_same_key": self.restart_same_key,
                "restart_charges": restart.counts.charges if restart.measured else None,
                "outage_gaps_ms": [round(gap * 1000) for gap in self.outage_gaps[:MAX_ROWS]] if measured else None,
                "outage_outcome": last.outcome if last else None,
                "slow_requests": slow.counts.requests if slow.measured else None,
                "slow_key_in_use_answers": slow.conflicts()["key_in_use"] if slow.measured else None,
                "draft_similarity": self.draft.get("similarity"),
                "draft_rewrite": self.draft.get("rewrite"),
                "tests_kind": self.tests.kind,
                "tests_catching_the_key": list(self.tests.catching()),
                "client_problem": self.unrunnable or transient.problem,
                "isolation": transient.runs[0].run.isolation.mode if transient.runs else None,
                "isolation_reason": transient.runs[0].run.isolation.reason if transient.runs else None,
                "runtime_dependencies": self.environment.runtime_dependencies(),
            }
        )
        return facts

    def _masks(self) -> dict[str, str]:
        """What differs between two gradings of one submission: the sandbox's paths, random keys."""
        masks: dict[str, str] = {}
        root = self.box.root
        if str(root) not in ("", "."):
            masks[str(root)] = "<sandbox>"
            masks[str(root / KIT_FOLDER)] = "<kit>"
            with contextlib.suppress(OSError):
                for folder in root.iterdir():
                    for name, placeholder in PATH_MASKS.items():
                        masks[str(folder / name)] = placeholder
        # The outage repeats come last: how many there are depends on the machine's load, and a
        # label must not shift with it (grading twice gives the same messages).
        scenarios = [computed(self, name) for name in SCENARIOS]
        ordered = (*scenarios, *computed(self, "outage_repeats", ()))
        labels = key_labels(scenario.requests for scenario in ordered if scenario is not None)
        return masks | labels

    def _masked(self, data: Any) -> Any:
        return mask_data(data, self._masks())

    def _line(
        self,
        line_id: str,
        outcome: Outcome,
        message: str,
        evidence: Mapping[str, Any],
        tier: Tier | None = None,
    ) -> LineResult:
        masks = self._masks()
        return super()._line(line_id, outcome, mask_data(message, masks), mask_data(dict(evidence), masks), tier)

    def _note_evidence(self, kinds: Sequence[str] | None) -> dict[str, Any]:
        text, problem = self.note
        hints = [h for h in self.hints if kinds is None or h["kind"] in kinds]
        if kinds is not None:
            return {"hints": hints, "note": f"{NOTE} is shown with the evidence line"}
        note_html = markdown_html(text) if text is not None else None
        return {"note_file": NOTE, "note_problem": problem, "note_html": note_html, "hints": hints}

    def prefetch_tasks(self) -> tuple[Callable[[], object], ...]:
        """The scenarios and the tests: they wait (timeouts, backoff, a slow gateway) more than compute.

        The driver is written and the transient run made first: the other scenarios are skipped
        when the transient run shows a problem.
        """
        if self.unrunnable:
            return ()
        self.runner.driver  # noqa: B018 - written once, before the threads share it
        self.transient  # noqa: B018
        return (lambda: self.slow, lambda: self.tests, lambda: (self.restart, self.orders), lambda: self.outage_gaps)


def _read_text(root: Path, rel: str, max_bytes: int) -> tuple[str | None, str | None]:
    try:
        data = read_file(root, rel, max_bytes)
    except UnsafeFile as exc:
        return None, f"{rel} {exc.reason}"
    if data is None:
        return None, f"no {rel} in the submission"
    return data.decode("utf-8", errors="replace"), None
