"""The `payments` checks: gateway scenarios, key scope, tests red on the draft, draft diff, note."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gradelib import safefs, safetext
from gradelib.clientruns import (
    CHECKOUT,
    MAX_ROWS,
    NODE_MISSING,
    SCENARIO_LIMITS,
    SLOW_LIMITS,
    ClientRunner,
    ScenarioRun,
    SuiteRuns,
    tap_summary,
)
from gradelib.environment import Environment, prepare
from gradelib.errors import UnsafeFile
from gradelib.gateway import GatewayCounts
from gradelib.keyscope import KeyScope, classify_key_scope, draft_diff, has_backoff, least_gaps, same_key_after_restart
from gradelib.lazy import cached
from gradelib.notehints import find_hints, hint_lines
from gradelib.result import LineResult, Outcome, Report, Tier
from gradelib.rubric import Rubric, default_rubric, takehome_data
from gradelib.sandbox import Limits, RunResult, Sandbox, tool
from gradelib.takehomes.installguard import install_failed, needs_install

TAKEHOME = "payments"
ORDER_SCENARIOS = ("transient", "outage", "slow")  # each one order, each in a fresh copy
HANDOUT_FILES = (
    ("HANDOUT.md", "README.md"),
    ("draft/checkout.mjs", "checkout.mjs"),
    ("gateway", "gateway"),
)
NOTE = "NOTE.md"
DRAFT = ("draft", "checkout.mjs")
SCENARIOS = ("transient", "restart", "outage", "slow")
MAX_ATTEMPTS = 4  # the handout: one attempt and up to 3 retries
REWRITE_RATIO = 0.5  # similarity to the draft under which checkout.mjs is a rewrite
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


class PaymentsGrading:
    """Grades one `payments` submission; each check runs (and caches) the sandbox runs it needs."""

    def __init__(
        self,
        submission: Path,
        *,
        name: str | None = None,
        rubric: Rubric | None = None,
        environment: Environment | None = None,
    ) -> None:
        self.submission = Path(submission)
        self.name = name or self.submission.name
        self.rubric = rubric or default_rubric(TAKEHOME)
        self.environment = environment if environment is not None else prepare(self.submission)
        self.box = Sandbox(self.submission, environment=self.environment)

    def __enter__(self) -> PaymentsGrading:
        self.box.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.box.__exit__(*exc)

    def open(self) -> PaymentsGrading:
        """Enter the sandbox (for notebooks, where a `with` block cannot span cells)."""
        return self.__enter__()

    def close(self) -> None:
        """Remove the sandbox's workspace."""
        self.__exit__(None, None, None)

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
        return ClientRunner(self.box, self.node)

    def _scenario(self, name: str, limits: Limits, runs: int = 1) -> ScenarioRun:
        skipped = None
        if why := self.unrunnable or (self.transient.problem if name != "transient" else None):
            skipped = why if self.unrunnable else f"not run, the transient run already showed: {why}"
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
        """The first answer comes after 8 s: does a retry after a timeout keep the key?"""
        return self._scenario("slow", SLOW_LIMITS)

    def scenarios(self) -> dict[str, ScenarioRun]:
        """All four scenarios, run on first use."""
        return {name: getattr(self, name) for name in SCENARIOS}

    def attempts(self) -> dict[str, list[dict[str, Any]]]:
        """The request log of each scenario as rows (for tables and the timeline chart)."""
        return {name: run.rows() for name, run in self.scenarios().items()}

    @cached
    def tests(self) -> SuiteRuns:
        """The candidate's tests on their code, then on the model draft, in fresh copies."""
        if failed := install_failed(self.environment):
            return SuiteRuns(None, (), problem=failed)
        return self.runner.tests(self.submission, self.draft_source)

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
    def same_key_for_different_orders(self) -> bool:
        """True when separate orders (scenarios in fresh copies) all sent one and the same key."""
        firsts = []
        for scenario in (self.transient, self.outage, self.slow):
            keys = [request.key for request in scenario.requests if request.key is not None]
            if keys:
                firsts.append(keys[0])
        return len(firsts) >= 2 and len(set(firsts)) == 1

    @cached
    def draft(self) -> dict[str, Any]:
        """The candidate's checkout.mjs against the packaged draft."""
        source = self.checkout[0]
        if source is None:
            return {"problem": self.checkout[1]}
        unified, ratio = draft_diff(source, self.draft_source)
        return {"similarity": ratio, "rewrite": ratio < REWRITE_RATIO, "unified_diff": unified}

    def facts(self) -> dict[str, Any]:
        """What the kit measured, in the stable shape of TAKEHOMES.md, then extras."""
        outage, slow, transient = self.outage, self.slow, self.transient
        last = outage.last
        outage_gaps = self.outage_gaps
        return {
            "key_scope": self.key_scope_fact,
            "tests_green_on_own": self.tests.green_on_own,
            "tests_red_on_draft": self.tests.red_on_draft,
            "dropped_payment_on_outage": last is not None and last.outcome == "resolved",
            "outage_attempts": outage.counts.requests,
            "backoff": has_backoff(outage_gaps),
            "slow_distinct_keys": slow.counts.distinct_keys,
            "same_key_for_different_orders": self.same_key_for_different_orders,
            "transient_requests": transient.counts.requests,
            "transient_distinct_keys": transient.counts.distinct_keys,
            "restart_same_key": self.restart_same_key,
            "restart_charges": self.restart.counts.charges,
            "outage_gaps_ms": [round(gap * 1000) for gap in outage_gaps[:MAX_ROWS]],
            "outage_outcome": last.outcome if last else None,
            "slow_requests": slow.counts.requests,
            "draft_similarity": self.draft.get("similarity"),
            "draft_rewrite": self.draft.get("rewrite"),
            "tests_kind": self.tests.kind,
            "client_problem": self.unrunnable or transient.problem,
            "isolation": transient.runs[0].run.isolation.mode if transient.runs else None,
            "runtime_dependencies": self.environment.runtime_dependencies(),
        }

    # -- the five lines ------------------------------------------------------------------------
    def _line(
        self,
        line_id: str,
        outcome: Outcome,
        message: str,
        evidence: Mapping[str, Any],
        tier: Tier | None = None,
    ) -> LineResult:
        points, maximum = self.rubric.score(line_id, outcome, tier)
        return LineResult(line_id, outcome, message, dict(evidence), points, maximum, tier)

    @needs_install
    def found_defect(self) -> LineResult:
        """Strong only when the candidate's tests are green on their code and red on the draft."""
        tests = self.tests
        outage_gaps = self.outage_gaps
        evidence: dict[str, Any] = {
            "tests": tests.evidence(),
            "draft": self.draft,
            "backoff_survived": has_backoff(outage_gaps),
            "outage": {
                "attempts": self.outage.counts.requests,
                "gaps_ms": [round(gap * 1000) for gap in outage_gaps[:MAX_ROWS]],
                "gaps_ms_per_run": [
                    [round(gap * 1000) for gap in run.gaps()[:MAX_ROWS]] for run in (self.outage, *self.outage_repeats)
                ],
                **self.outage.evidence(),
            },
        }
        extra = self._client_remarks(evidence["backoff_survived"])
        if tests.problem:
            return self._line("found_defect", "error", tests.problem, evidence)
        if tests.kind is None:
            message = "no tests in the submission: the reviewer decides from the note" + extra
            return self._line("found_defect", "needs_review", message, evidence)
        own, draft = tests.own, tests.draft
        assert own is not None
        if not own.ok:
            message = f"the tests are red on the candidate's own code ({_test_status(own)})"
        elif draft is not None and not draft.ok:
            message = (
                f"tests green on the candidate's code and red on the model draft"
                f" ({_test_status(draft)}): a test catches the defect"
            )
            return self._line("found_defect", "pass", message + extra, evidence, "strong")
        else:
            message = "tests green on the candidate's code and green on the draft too: they never touch the defect"
        return self._line("found_defect", "needs_review", message + extra, evidence)

    def _client_remarks(self, backoff: bool) -> str:
        """What else a reviewer of the defect should see: a rewrite, the outage behaviour."""
        remarks = []
        if self.draft.get("rewrite"):
            remarks.append(f"{CHECKOUT} is a rewrite of the draft (similarity {self.draft['similarity']:.2f})")
        outage = self.outage
        if not outage.skipped:
            last = outage.last
            if last is not None and last.outcome == "resolved":
                remarks.append("it resolves during an outage: a silently dropped payment")
            if outage.counts.requests > MAX_ATTEMPTS:
                remarks.append(f"{outage.counts.requests} attempts in the outage (at most {MAX_ATTEMPTS} allowed)")
            if not backoff:
                remarks.append("no growing backoff in the outage run")
            if outage.problem:
                remarks.append(f"outage run: {outage.problem}")
        return "; " + "; ".join(remarks) if remarks else ""

    @needs_install
    def key_scope(self) -> LineResult:
        """Transient + restart scenarios: a key per attempt, per call, or persisted."""
        transient, restart = self.transient, self.restart
        evidence = {"transient": transient.evidence(), "restart": restart.evidence()}
        problem = self.unrunnable or transient.problem
        if problem:
            return self._line("key_scope", "error", f"the client could not be graded: {problem}", evidence)
        scope = self.key_scope_fact
        counts = transient.counts
        seen = f"transient: {counts.requests} request(s), {counts.distinct_keys} distinct key(s)"
        if scope == "unknown":
            run = transient.runs[0]
            said = f": {run.error}" if run.error else ""
            message = f"the client never reached the gateway ({seen}); chargeWithRetry {run.outcome}{said}"
            return self._line("key_scope", "error", message, evidence)
        tier = KEY_SCOPE_TIERS[scope]
        if self.same_key_for_different_orders:
            message = (
                f"the same key for different orders ({', '.join(ORDER_SCENARIOS)} are separate orders): to the"
                " gateway they are one payment, so later orders would never be charged"
            )
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
            measured = f"slow scenario {slow.skipped}" if not self.unrunnable else "slow scenario not run"
        else:
            measured = f"slow scenario: {_slow_verdict(slow.counts)}"
        return self._line("blast_radius", "needs_review", f"{note}; {measured} (reviewer judges)", evidence)

    def prefetch(self) -> None:
        """Run the sandbox runs side by side: they wait (timeouts, backoff, a slow gateway) more than compute."""
        if self.unrunnable:
            return
        self.runner.driver  # noqa: B018 - written once, before the threads share it
        self.transient  # noqa: B018 - the other scenarios are skipped when this one shows a problem
        tasks = (lambda: self.slow, lambda: self.tests, lambda: self.restart, lambda: self.outage_gaps)
        with ThreadPoolExecutor(len(tasks)) as pool:
            for future in [pool.submit(task) for task in tasks]:
                future.result()

    def report(self) -> Report:
        """All five lines, in rubric order."""
        self.prefetch()
        checks: dict[str, Callable[[], LineResult]] = {
            "found_defect": self.found_defect,
            "key_scope": self.key_scope,
            "evidence": self.evidence,
            "explanation": self.explanation,
            "blast_radius": self.blast_radius,
        }
        lines = tuple(checks[line_id]() for line_id in self.rubric.line_ids if line_id in checks)
        return Report(TAKEHOME, self.name, lines, self.facts(), self.environment_section())

    def environment_section(self) -> dict[str, Any]:
        """Declared, installed, refused; runtime dependencies flagged against "no new dependencies"."""
        return self.environment.evidence(flag_runtime=True)


def _read_text(root: Path, rel: str, max_bytes: int) -> tuple[str | None, str | None]:
    try:
        data = safefs.read_file(root, rel, max_bytes)
    except UnsafeFile as exc:
        return None, f"{rel} {exc.reason}"
    if data is None:
        return None, f"no {rel} in the submission"
    return data.decode("utf-8", errors="replace"), None


def _slow_verdict(counts: GatewayCounts) -> str:
    """What the slow scenario's counts say about a retry after a client-side timeout."""
    seen = f"{counts.requests} request(s), {counts.distinct_keys} distinct key(s)"
    if counts.requests <= 1:
        return f"{seen}: no retry, the client waited for the slow answer"
    if counts.distinct_keys == 1:
        return f"{seen}: the retry after the timeout kept the key"
    return f"{seen}: the retry after the timeout carried another key (a second payment to the gateway)"


def _test_status(run: RunResult) -> str:
    summary = tap_summary(run.stdout + run.stderr)
    if "tests" in summary and "fail" in summary:
        return f"{run.status()}, {summary['fail']} of {summary['tests']} failed"
    return run.status()


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
