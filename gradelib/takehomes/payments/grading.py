"""The `payments` checks: gateway scenarios, key scope, tests red on the draft, draft diff, note."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gradelib import safetext
from gradelib.environment import Environment
from gradelib.errors import UnsafeFile
from gradelib.lazy import cached
from gradelib.result import LineResult, Outcome, Report, Tier
from gradelib.sandbox import Limits, safefs, tool
from gradelib.sandbox.masking import mask_data
from gradelib.takehomes import kitfault
from gradelib.takehomes.base import BaseGrading
from gradelib.takehomes.installguard import install_failed, needs_install
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
from gradelib.takehomes.payments.gateway import GatewayCounts
from gradelib.takehomes.payments.keyscope import (
    KeyScope,
    classify_key_scope,
    draft_diff,
    draft_lines_kept,
    has_backoff,
    least_gaps,
    same_key_after_restart,
)
from gradelib.takehomes.payments.notehints import find_hints, hint_lines
from gradelib.takehomes.payments.suites import FIXES
from gradelib.takehomes.plugin import FailureMode, fact_is
from gradelib.takehomes.rubric import Rubric, takehome_data

TAKEHOME = "payments"
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
MIN_MASKED_KEY_CHARS = 16  # shorter keys are not random ones, and masking them would garble text
# What a generated key looks like (a UUID, a token): masked, since it differs on every grading. Anything
# else (`order-4200`, or markup a hostile client sends as its key) is shown, escaped, as evidence.
GENERATED_KEY = re.compile(r"[\w\-:.]+")
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


def _lines(numbers: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:8])
    return shown + (", ..." if len(numbers) > 8 else "")


class PaymentsGrading(BaseGrading):
    """Grades one `payments` submission; each check runs (and caches) the sandbox runs it needs."""

    TAKEHOME = TAKEHOME
    FLAG_RUNTIME_DEPENDENCIES = True  # the handout allows no new dependencies

    def __init__(
        self,
        submission: Path,
        *,
        name: str | None = None,
        rubric: Rubric | None = None,
        environment: Environment | None = None,
    ) -> None:
        super().__init__(submission, name=name, rubric=rubric, environment=environment)

    # -- facts about the submission ----------------------------------------------------------
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

    # -- sandbox runs (cached) -----------------------------------------------------------------
    @cached
    def runner(self) -> ClientRunner:
        """Runs the client and the tests in this grading's sandbox, with the node found (or set)."""
        node = self.environment.node
        installed = {name: version for name, version, _dev in node.packages} if node else {}
        return ClientRunner(self.box, self.node, installed)

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

    # -- measured facts ------------------------------------------------------------------------
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

    # -- masking -------------------------------------------------------------------------------
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
        labels: dict[str, str] = {}
        for name in SCENARIOS:
            run = self.__dict__.get(name)
            for scenario in (run, *(self.__dict__.get("outage_repeats", ()) if name == "outage" else ())):
                for request in scenario.requests if scenario is not None else ():
                    key = request.key
                    generated = key is not None and len(key) >= MIN_MASKED_KEY_CHARS and GENERATED_KEY.fullmatch(key)
                    if key is not None and generated and key not in labels:
                        labels[key] = f"<key-{len(labels) + 1}>"
        return masks | labels

    def _masked(self, data: Any) -> Any:
        return mask_data(data, self._masks())

    # -- the five lines ------------------------------------------------------------------------
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

    @needs_install
    def found_defect(self) -> LineResult:
        """Strong only when the suite is green on their code and a test is red on the draft, green on a fix."""
        tests = self.tests
        evidence: dict[str, Any] = {
            "tests": tests.evidence(),
            "draft": self.draft,
            "backoff_survived": self.backoff,
            "outage": {
                "attempts": self.outage.counts.requests,
                "gaps_ms": [round(gap * 1000) for gap in self.outage_gaps[:MAX_ROWS]],
                "gaps_ms_per_run": [
                    [round(gap * 1000) for gap in run.gaps()[:MAX_ROWS]] for run in (self.outage, *self.outage_repeats)
                ],
                **self.outage.evidence(),
            },
        }
        extra = self._client_remarks()
        if tests.own is not None and tests.own.flaky:
            flaky = _listed(tests.own.flaky)
            extra = f"; {flaky} failed on one of two runs on their code and passed on the other (timing?)" + extra
        if tests.problem:
            return self._line("found_defect", "unverified", tests.problem, evidence)
        if tests.kind is None:
            message = "no tests in the submission: the reviewer decides from the note" + extra
            return self._line("found_defect", "needs_review", message, evidence)
        own = tests.own
        if own is None:  # tests found but no run on their code: said by never_ran below
            return self._line("found_defect", "needs_review", "the tests were found but not run", evidence)
        runs = [run.run for run in (own, tests.draft) if run is not None]
        if found := kitfault.first(runs, self.environment):
            return self._line("found_defect", "error", f"the tests could not run: {found[0]}", evidence)
        if why := own.never_ran:
            message = f"the tests never ran on the candidate's code ({why}): neither green nor red"
            return self._line("found_defect", "needs_review", message + extra, evidence)
        if why := own.unread:
            message = f"the tests say nothing on the candidate's code ({why}): neither green nor red"
            return self._line("found_defect", "needs_review", message + extra, evidence)
        catching = tests.catching()
        red = tests.red_on_draft_tests()
        if tests.draft is not None and (why := tests.draft.unread) and own.green:
            message = f"tests green on the candidate's code; on the draft {why}: neither red nor green"
            return self._line("found_defect", "needs_review", message + extra, evidence)
        if not own.green:
            message = f"the tests are red on the candidate's own code ({own.summary()})"
            if catching:
                message += f"; {_catching_text(catching)}"
        elif catching:
            message = f"tests green on the candidate's code; {_catching_text(catching)}: a test catches the defect"
            return self._line("found_defect", "pass", message + extra, evidence, "strong")
        elif red:
            message = (
                f"tests green on the candidate's code; {_listed(red)} red on the draft but red on the kit's"
                " minimal fixes too: they fail for another reason than the key (an API or files of their own)"
            )
        else:
            message = "tests green on the candidate's code and green on the draft too: they never touch the defect"
        return self._line("found_defect", "needs_review", message + extra, evidence)

    def _client_remarks(self) -> str:
        """What else a reviewer of the defect should see: a rewrite, the outage behaviour."""
        remarks = []
        draft = self.draft
        if draft.get("rewrite"):
            remarks.append(
                f"{CHECKOUT} is a rewrite of the draft that also removed the backoff (it keeps"
                f" {draft['draft_lines_kept']:.0%} of the draft's lines, and the outage gaps do not grow)"
            )
        outage = self.outage
        if why := outage.unmeasured:
            remarks.append(why)
        else:
            last = outage.last
            if last is not None and last.outcome == "resolved":
                remarks.append("it resolves during an outage: a silently dropped payment")
            if outage.counts.requests > MAX_ATTEMPTS:
                remarks.append(f"{outage.counts.requests} attempts in the outage (at most {MAX_ATTEMPTS} allowed)")
            if not self.backoff:
                remarks.append("no growing backoff in the outage run")
            if outage.problem:
                remarks.append(f"outage run: {outage.problem}")
        return "; " + "; ".join(remarks) if remarks else ""

    @needs_install
    def key_scope(self) -> LineResult:
        """Transient + restart scenarios: a key per attempt, per call, or persisted."""
        transient, restart, orders = self.transient, self.restart, self.orders
        evidence = {"transient": transient.evidence(), "restart": restart.evidence(), "orders": orders.evidence()}
        if self.node is None:
            return self._line("key_scope", "unverified", NODE_MISSING, evidence)
        if found := kitfault.first([run.run for run in transient.runs], self.environment):
            return self._line("key_scope", "error", f"the client could not run: {found[0]}", evidence)
        if problem := self.unrunnable or transient.problem:
            return self._line("key_scope", "fail", f"the client does not work: {problem}", evidence)
        scope = self.key_scope_fact
        counts = transient.counts
        seen = f"transient: {counts.requests} request(s), {counts.distinct_keys} distinct key(s)"
        if scope == "unknown":
            run = transient.runs[0]
            said = f": {run.error}" if run.error else ""
            message = f"the client never reached the gateway ({seen}); chargeWithRetry {run.outcome}{said}"
            return self._line("key_scope", "fail", message, evidence)
        tier = KEY_SCOPE_TIERS[scope]
        if self.same_key_for_different_orders:
            mismatches = orders.conflicts()["amount_mismatch"]
            refused = f"the gateway refused the second order ({mismatches} answer(s) 400: key known, other amount)"
            if self.same_key_across_copies:
                message = (
                    f"the same key for different orders ({', '.join(ORDER_SCENARIOS)} are separate orders): to the"
                    " gateway they are one payment, so later orders would never be charged"
                )
                message += f"; in one process, {refused}" if self.key_reused_for_other_amount else ""
            else:
                message = f"one key for two orders of different amounts: {refused}, so later orders are never charged"
            return self._line("key_scope", "fail", message, evidence, "weak")
        if scope == "per_attempt":
            keyless = any(request.key is None for request in transient.requests)
            why = "a request without any key" if keyless else "a new key on every attempt"
            message = f"{why} ({seen}): to the gateway a retry is a second payment"
            return self._line("key_scope", "fail", message, evidence, tier)
        restart_counts = json.dumps(restart.counts.to_dict())
        if scope == "persisted":
            message = (
                "one key per call, persisted before the request: after the kill the new process"
                f" sent the same key (restart: {restart_counts})"
            )
        else:
            if self.restart_same_key is None:
                why = restart.problem or restart.skipped or "no request after the restart"
                after = f"the restart run was inconclusive ({why})"
            else:
                after = "after the kill the new process sent a new key: the key lives only in memory"
            single = " (only one attempt was made: no retry happened)" if counts.requests == 1 else ""
            message = f"one key per call{single} ({seen}); {after}"
        return self._line("key_scope", "pass", message, evidence, tier)

    def _note_evidence(self, kinds: Sequence[str] | None) -> dict[str, Any]:
        text, problem = self.note
        hints = [h for h in self.hints if kinds is None or h["kind"] in kinds]
        if kinds is not None:
            return {"hints": hints, "note": f"{NOTE} is shown with the evidence line"}
        note_html = safetext.markdown_html(text) if text is not None else None
        return {"note_file": NOTE, "note_problem": problem, "note_html": note_html, "hints": hints}

    @needs_install
    def evidence(self) -> LineResult:
        """The note, rendered safely, with hints where raw gateway output appears."""
        evidence = self._note_evidence(None)
        if self.note[0] is None:
            return self._line("evidence", "needs_review", f"no note to read: {self.note[1]}", evidence)
        raw = hint_lines(self.hints, "raw_output")
        blocks = hint_lines(self.hints, "code_block")
        seen = [
            f"raw gateway output on line(s) {_lines(raw)}" if raw else "no raw gateway output quoted",
            f"code blocks at line(s) {_lines(blocks)}" if blocks else "no code blocks",
        ]
        return self._line("evidence", "needs_review", f"reviewer reads {NOTE}: " + "; ".join(seen), evidence)

    @needs_install
    def explanation(self) -> LineResult:
        """Does the note name idempotency, explain the restart gap? Reviewer judgment."""
        evidence = self._note_evidence(EXPLANATION_HINTS)
        if self.note[0] is None:
            return self._line("explanation", "needs_review", f"no note to read: {self.note[1]}", evidence)
        found = [
            f"{label} on line(s) {_lines(hint_lines(self.hints, kind))}"
            for kind, label in (("idempotency", "idempotency / dedupe"), ("restart", "restarts / crashes"))
            if hint_lines(self.hints, kind)
        ]
        neither = "the note mentions neither idempotency nor restarts"
        message = "the note mentions " + "; ".join(found) if found else neither
        return self._line("explanation", "needs_review", message + " (reviewer judges)", evidence)

    @needs_install
    def blast_radius(self) -> LineResult:
        """Does the note name what else is unsafe? The slow scenario beside it. Reviewer judgment."""
        slow = self.slow
        evidence = {**self._note_evidence(BLAST_RADIUS_HINTS), "slow": slow.evidence()}
        found = [
            f"{label} on line(s) {_lines(hint_lines(self.hints, kind))}"
            for kind, label in (("timeout", "timeouts"), ("partial_write", "partial / atomic writes"),
                                ("idempotency", "duplicates"))
            if hint_lines(self.hints, kind)
        ]  # fmt: skip
        note = "the note mentions " + "; ".join(found) if found else "the note names no other risk"
        if self.note[0] is None:
            note = f"no note to read: {self.note[1]}"
        if slow.skipped:
            measured = f"slow scenario not run: {slow.skipped}" if not self.unrunnable else "slow scenario not run"
        elif why := slow.unmeasured:
            measured = why
        else:
            measured = f"slow scenario: {_slow_verdict(slow.counts, slow.conflicts()['key_in_use'])}"
        return self._line("blast_radius", "needs_review", f"{note}; {measured} (reviewer judges)", evidence)

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
        data = safefs.read_file(root, rel, max_bytes)
    except UnsafeFile as exc:
        return None, f"{rel} {exc.reason}"
    if data is None:
        return None, f"no {rel} in the submission"
    return data.decode("utf-8", errors="replace"), None


def _slow_verdict(counts: GatewayCounts, key_in_use: int = 0) -> str:
    """What the slow scenario's counts say about a retry after a client-side timeout."""
    seen = f"{counts.requests} request(s), {counts.distinct_keys} distinct key(s)"
    if counts.requests <= 1:
        return f"{seen}: no retry, the client waited for the slow answer"
    busy = f", {key_in_use} answered 409 while the first was still in flight" if key_in_use else ""
    if counts.distinct_keys == 1:
        return f"{seen}{busy}: the retry after the timeout kept the key"
    return f"{seen}: the retry after the timeout carried another key (a second payment to the gateway)"


def _listed(names: Sequence[str], limit: int = 3) -> str:
    """`"a", "b" and 2 more test(s)`."""
    shown = ", ".join(json.dumps(name, ensure_ascii=False) for name in names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"{len(names)} test(s) ({shown}{more})"


def _catching_text(catching: Mapping[str, Sequence[str]]) -> str:
    """Which tests went red on the draft and green on the kit's minimal fixes (each under the first fix)."""
    by_fix = []
    for number, fix in enumerate(FIXES):
        tests = [name for name, fixes in catching.items() if fixes[0] == fix]
        if tests:
            only = "only " if number else ""
            by_fix.append(f"{_listed(tests)} red on the draft and green {only}with {FIX_NAMES[fix]}")
    return "; ".join(by_fix)


FAILURE_MODES: tuple[FailureMode, ...] = (
    FailureMode("per-attempt idempotency key", fact_is("key_scope", "per_attempt")),
    FailureMode("key lost on restart (per call)", fact_is("key_scope", "per_call")),
    FailureMode("payment dropped in an outage", fact_is("dropped_payment_on_outage", True)),
    FailureMode("no backoff between retries", fact_is("backoff", False)),
    FailureMode("no test catches the key", fact_is("tests_red_on_draft", False)),
    FailureMode("no tests", fact_is("tests_kind", None)),
)


def check(submission: Path, *, name: str | None = None, rubric: Rubric | None = None) -> Report:
    """Grade one payments submission folder."""
    with PaymentsGrading(submission, name=name, rubric=rubric) as grading:
        return grading.report()


def tier_rows(report: Report, rubric: Rubric) -> list[dict[str, Any]]:
    """The tier table: each line's tiers, the kit's suggestion, and whether it awaits a reviewer."""
    rows = []
    for line in report.lines:
        try:
            rubric_line = rubric.line(line.id)
        except KeyError:
            continue
        rows.append(
            {
                "line": rubric_line.title,
                "kit suggests": line.tier or "-",
                "outcome": line.outcome,
                "awaits reviewer": "yes" if line.outcome in ("needs_review", "error") else "no",
                **{tier: rubric_line.descriptions.get(tier, "") for tier in rubric_line.tiers},
                "message": line.message,
            }
        )
    return rows


GRADING = PaymentsGrading
