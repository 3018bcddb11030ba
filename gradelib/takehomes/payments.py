"""The `payments` checks: gateway scenarios, key scope, tests red on the draft, draft diff, note."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, TypeVar

from gradelib import safefs, safetext
from gradelib.errors import UnsafeFile
from gradelib.gateway import Gateway, GatewayCounts, GatewayRequest
from gradelib.lazy import cached
from gradelib.result import LineResult, Outcome, Report, Tier
from gradelib.rubric import Rubric, default_rubric, takehome_data
from gradelib.sandbox import Limits, RunResult, Sandbox, Service, tool

TAKEHOME = "payments"
HANDOUT_FILES = (
    ("HANDOUT.md", "README.md"),
    ("draft/checkout.mjs", "checkout.mjs"),
    ("gateway", "gateway"),
)
CHECKOUT = "checkout.mjs"
NOTE = "NOTE.md"
PACKAGE_JSON = "package.json"
DRIVER = "driver.mjs"
DRAFT = ("draft", "checkout.mjs")
RESULT_MARKER = "GRADELIB_RESULT "
AMOUNT = 4200
GATEWAY_PORT = 8099
GATEWAY_ENV = {"GATEWAY_URL": "http://{host}:{port}"}
SCENARIOS = ("transient", "restart", "outage", "slow")
SCENARIO_LIMITS = Limits(wall_seconds=30, cpu_seconds=30)
SLOW_LIMITS = Limits(wall_seconds=40, cpu_seconds=40)
TEST_LIMITS = Limits(wall_seconds=120, cpu_seconds=120)
NPM_ENV = {
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    "npm_config_offline": "true",
}
MAX_REQUESTS = 50  # per run: more than this is a flood, and the kit stops the client
MAX_ATTEMPTS = 4  # the handout: one attempt and up to 3 retries
BACKOFF_MIN_GAP = 0.02  # seconds: shorter gaps are immediate retries, not backoff
BACKOFF_SHRINK = 0.8  # a gap may be this fraction of the previous one (jitter) and still count
# Load on the grading machine only ever lengthens a gap, so the outage run is repeated (fresh copy,
# fresh gateway) and each gap taken as the least seen; not for runs that already took long.
OUTAGE_RUNS = 3
OUTAGE_REPEAT_UNDER_SECONDS = 5.0
REWRITE_RATIO = 0.5  # similarity to the draft under which checkout.mjs is a rewrite
NPM_PLACEHOLDER = "no test specified"  # `npm init`'s default test script, which only fails
# What `node --test` finds on its own (Node 20): *.test.js, *-test.js, *_test.js, test-*.js,
# test.js and anything under a test/ folder, each also as .mjs and .cjs.
TEST_FILE = re.compile(r"(^|/)(test/.*|[^/]*[.\-_]test|test-[^/]*|test)\.[cm]?js$")
EXIT_UNSETTLED = 13  # node's exit status when top-level await never settles
MAX_SOURCE_BYTES = 1024 * 1024
MAX_NOTE_BYTES = 256 * 1024
MAX_PACKAGE_BYTES = 256 * 1024
MAX_ROWS = 100
MAX_HINTS = 200
NODE_MISSING = (
    "node is not installed on the grading machine: install Node.js 20"
    " (`apt-get install nodejs`, or the README's setup command)"
)
NPM_MISSING = (
    "the submission's tests need npm, which is not installed on the grading machine:"
    " `apt-get install npm` (or the README's setup command)"
)

T = TypeVar("T")
KeyScope = Literal["per_attempt", "per_call", "persisted", "unknown"]
KEY_SCOPE_TIERS: Mapping[str, Tier] = {
    "per_attempt": "weak",
    "per_call": "acceptable",
    "persisted": "strong",
}
# Hints shown to the reviewer beside the note; never scored. (kind, label, pattern)
HINT_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    ("raw_output", "quotes raw gateway output", re.compile(
        r"[\"'](requests|distinct_keys|distinctKeys|charges)[\"']\s*:|gateway: #\d", re.I)),
    ("restart", "restarts / crashes", re.compile(
        r"\b(restart\w*|crash\w*|killed|sigkill|reboot\w*|process (dies|died|exits))\b", re.I)),
    ("timeout", "timeouts", re.compile(
        r"\b(time ?outs?|timed out|timing out|abortcontroller|abortsignal)\b", re.I)),
    ("partial_write", "partial / atomic writes", re.compile(
        r"\b(partial(ly)? (writes?|written|responses?|failures?)|atomic\w*|fsync|half[- ]written"
        r"|torn writes?|truncated)\b", re.I)),
    ("idempotency", "idempotency / dedupe", re.compile(
        r"idempoten\w*|\bde-?dup\w*|\bduplicat\w*|double[- ]charg\w*|charged twice|two charges",
        re.I)),
    ("assistant", "the assistant used", re.compile(
        r"\b(copilot|chatgpt|gpt-?\d\w*|claude|cursor|gemini|codeium|tabnine|cody|monkeycode"
        r"|assistant|llm)\b", re.I)),
)  # fmt: skip
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
EXPLANATION_HINTS = ("idempotency", "restart")
BLAST_RADIUS_HINTS = ("timeout", "partial_write", "idempotency")


# -- pure parts: tested without a sandbox --------------------------------------------------
def gaps(times: Sequence[float]) -> list[float]:
    """Seconds between consecutive attempts."""
    return [later - earlier for earlier, later in pairwise(times)]


def has_backoff(between: Sequence[float]) -> bool:
    """True when the client waits between attempts and the waits do not shrink much.

    At least two gaps, each at least BACKOFF_MIN_GAP, each at least BACKOFF_SHRINK of the
    one before. One attempt (no gaps) or immediate retries mean no backoff.
    """
    if len(between) < 2 or any(gap < BACKOFF_MIN_GAP for gap in between):
        return False
    return all(later >= earlier * BACKOFF_SHRINK for earlier, later in pairwise(between))


def least_gaps(runs: Sequence[Sequence[float]]) -> list[float]:
    """Each gap the least seen over runs that made as many attempts as the first (load only adds)."""
    if not runs:
        return []
    alike = [run for run in runs if len(run) == len(runs[0])]
    return [min(column) for column in zip(*alike, strict=True)]


def classify_key_scope(requests: int, distinct_keys: int, keyless: int, restart_same_key: bool | None) -> KeyScope:
    """Key scope from the transient scenario's counts and the restart scenario's keys.

    No request: unknown. A request without a key, or more than one key: a key per attempt
    (every attempt is a new payment to the gateway). One key: per call, or persisted when
    the process after a restart sent the same key as the one that was killed.
    """
    if requests == 0:
        return "unknown"
    if keyless or distinct_keys >= 2:
        return "per_attempt"
    return "persisted" if restart_same_key else "per_call"


def same_key_after_restart(requests: Sequence[GatewayRequest], first_run_requests: int) -> bool | None:
    """Whether the first request after the restart carried the killed run's first key."""
    if not requests or first_run_requests < 1 or len(requests) <= first_run_requests:
        return None
    before, after = requests[0].key, requests[first_run_requests].key
    return before is not None and before == after


def find_hints(text: str) -> list[dict[str, Any]]:
    """Lines of a note worth a reviewer's look: raw output, code blocks, and topics.

    Each hint has the 1-based line number, its kind, a label and the line as plain text
    (control characters removed; every view escapes it).
    """
    hints: list[dict[str, Any]] = []
    in_fence = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            if not in_fence:
                hints.append(_hint(number, "code_block", "fenced code block", line))
            in_fence = not in_fence
        for kind, label, pattern in HINT_PATTERNS:
            if pattern.search(line):
                hints.append(_hint(number, kind, label, line))
        if len(hints) >= MAX_HINTS:
            break
    return hints[:MAX_HINTS]


def _hint(number: int, kind: str, label: str, line: str) -> dict[str, Any]:
    return {"line": number, "kind": kind, "label": label, "text": safetext.plain(line.strip())}


def hint_lines(hints: Sequence[Mapping[str, Any]], kind: str) -> list[int]:
    """Line numbers of the hints of one kind."""
    return [int(h["line"]) for h in hints if h.get("kind") == kind]


def draft_diff(candidate: str, draft: str) -> tuple[str, float]:
    """Unified diff from the model draft to the candidate's checkout.mjs, and their similarity."""
    old, new = draft.splitlines(keepends=True), candidate.splitlines(keepends=True)
    unified = "".join(difflib.unified_diff(old, new, "draft/checkout.mjs", CHECKOUT))
    return unified, round(difflib.SequenceMatcher(None, draft, candidate).ratio(), 3)


def tap_summary(output: str) -> dict[str, int]:
    """The `# tests N`, `# pass N`, `# fail N` counts of a node:test (TAP) run."""
    found = re.findall(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)\s*$", output, re.M)
    return {name: int(count) for name, count in found}


def _lines(numbers: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:8])
    return shown + (", ..." if len(numbers) > 8 else "")


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The driver's result: the last GRADELIB_RESULT line of stdout, or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            try:
                result = json.loads(line[len(RESULT_MARKER) :])
            except ValueError:
                return None
            return result if isinstance(result, dict) else None
    return None


# -- records of runs ------------------------------------------------------------------------
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

    @property
    def problem(self) -> str | None:
        """Why this run says nothing about the client's behaviour, or None."""
        if self.stop_reason == "flood":
            return f"flooded the gateway: stopped after {self.requests} requests (limit {MAX_REQUESTS})"
        if self.run.timed_out:
            return f"hung: no result after {self.run.duration:.0f} s ({self.requests} requests); killed"
        if self.run.output_limit_hit:
            return "printed more than the output limit; killed"
        if self.outcome == "no_export":
            return self.error or f"{CHECKOUT} does not export a function chargeWithRetry"
        if self.outcome == "import_error":
            return f"{CHECKOUT} cannot be imported as an ES module: {self.error}"
        if self.outcome is None and self.stop_reason is None:
            if self.run.exit_code == EXIT_UNSETTLED:
                return "chargeWithRetry never settled: node exited with nothing left to wait for"
            last = self.run.tail("stderr", 1) or self.run.tail("stdout", 1)
            said = f": {safetext.plain(last, 160)}" if last.strip() else ""
            return f"crashed: {self.run.status()} without a result{said}"
        return None

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
            "run": self.run.evidence(),
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
            }
            rows.append(row)
        return rows

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary: counts, runs, and the request table."""
        return {
            "skipped": self.skipped,
            "counts": self.counts.to_dict(),
            "runs": [run.evidence() for run in self.runs],
            "requests": self.rows(),
        }


@dataclass(frozen=True)
class SuiteRuns:
    """The candidate's tests on their own code and with the model draft in its place."""

    kind: str | None  # "npm", "node" or None (no tests)
    command: tuple[str, ...]
    own: RunResult | None = None
    draft: RunResult | None = None
    problem: str | None = None

    @property
    def green_on_own(self) -> bool | None:
        """Exit 0 on the candidate's code; None without tests."""
        return None if self.own is None else self.own.ok

    @property
    def red_on_draft(self) -> bool | None:
        """Anything but a clean exit 0 with the draft in place; None without tests."""
        return None if self.draft is None else not self.draft.ok

    def evidence(self) -> dict[str, Any]:
        """A JSON-ready summary of both runs."""
        runs = {"own": self.own, "draft": self.draft}
        return {
            "kind": self.kind,
            "command": " ".join(self.command),
            "problem": self.problem,
            "green_on_own": self.green_on_own,
            "red_on_draft": self.red_on_draft,
            **{
                name: {**run.evidence(), "summary": tap_summary(run.stdout + run.stderr)}
                for name, run in runs.items()
                if run is not None
            },
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


class PaymentsGrading:
    """Grades one `payments` submission; each check runs (and caches) the sandbox runs it needs."""

    def __init__(self, submission: Path, *, name: str | None = None, rubric: Rubric | None = None) -> None:
        self.submission = Path(submission)
        self.name = name or self.submission.name
        self.rubric = rubric or default_rubric(TAKEHOME)
        self.box = Sandbox(self.submission)

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
        """Why the client cannot be run at all (no node, no usable checkout.mjs), or None."""
        if self.node is None:
            return NODE_MISSING
        return self.checkout[1]

    # -- sandbox runs (cached) -----------------------------------------------------------------
    @cached
    def driver(self) -> Path:
        """The driver script, where the sandbox user can read it."""
        return self.box.kit_file(DRIVER, takehome_data(TAKEHOME).joinpath(DRIVER).read_bytes())

    def _client(self, copy: Path, gateway: Gateway, limits: Limits, *, at_first_request: bool = False) -> ClientRun:
        stopper = _Stopper(gateway, at_first_request=at_first_request)
        service = Service("gateway", GATEWAY_PORT, gateway.serve, GATEWAY_ENV)
        argv = [self.node or "node", str(self.driver), str(copy / CHECKOUT), str(AMOUNT)]
        run = self.box.run(argv, copy, limits=limits, services=[service], stop_when=stopper)
        result = parse_result(run.stdout) or {}
        outcome = result.get("outcome")
        error = result.get("error")
        return ClientRun(
            run=run,
            outcome=str(outcome) if outcome is not None else None,
            value=result.get("value"),
            error=safetext.plain(error, 500) if error is not None else None,
            unhandled=tuple(safetext.plain(u, 300) for u in result.get("unhandled") or [])[:5],
            requests=stopper.made(),
            stop_reason=stopper.reason if run.stopped else None,
        )

    def _scenario(self, name: str, limits: Limits, runs: int = 1) -> ScenarioRun:
        gateway = Gateway(name)
        if why := self.unrunnable or (self.transient.problem if name != "transient" else None):
            skipped = why if self.unrunnable else f"not run, the transient run already showed: {why}"
            return ScenarioRun(name, (), (), gateway.counts(), skipped=skipped)
        copy = self.box.copy(name)
        done = []
        for number in range(runs):
            restart = runs > 1 and number == 0
            done.append(self._client(copy, gateway, limits, at_first_request=restart))
        return ScenarioRun(name, tuple(done), gateway.requests, gateway.counts())

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
        first = self.outage
        if first.problem or len(first.gaps()) < 2 or first.runs[0].run.duration > OUTAGE_REPEAT_UNDER_SECONDS:
            return ()
        return tuple(self._scenario("outage", SCENARIO_LIMITS) for _ in range(OUTAGE_RUNS - 1))

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
        found = find_tests(self.submission)
        if found is None:
            return SuiteRuns(None, ())
        kind, command = found
        if self.node is None:
            return SuiteRuns(kind, command, problem=NODE_MISSING)
        binary = tool(command[0])
        if binary is None:
            return SuiteRuns(kind, command, problem=NPM_MISSING)
        own = self._test_run([binary, *command[1:]], self.box.copy("tests-own"))
        draft_copy = self.box.copy("tests-draft")
        target = draft_copy / CHECKOUT
        try:
            if target.is_symlink() or target.is_file():
                target.unlink()
            target.write_text(self.draft_source, encoding="utf-8")
            target.chmod(0o644)
        except OSError as exc:
            return SuiteRuns(kind, command, own, problem=f"cannot put the draft in place of {CHECKOUT}: {exc}")
        draft = self._test_run([binary, *command[1:]], draft_copy)
        return SuiteRuns(kind, command, own, draft)

    def _test_run(self, argv: Sequence[str], copy: Path) -> RunResult:
        service = Service("gateway", GATEWAY_PORT, Gateway("transient").serve, GATEWAY_ENV)
        return self.box.run(argv, copy, env=NPM_ENV, limits=TEST_LIMITS, services=[service])

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

    def report(self) -> Report:
        """All five lines, in rubric order."""
        checks: dict[str, Callable[[], LineResult]] = {
            "found_defect": self.found_defect,
            "key_scope": self.key_scope,
            "evidence": self.evidence,
            "explanation": self.explanation,
            "blast_radius": self.blast_radius,
        }
        lines = tuple(checks[line_id]() for line_id in self.rubric.line_ids if line_id in checks)
        return Report(TAKEHOME, self.name, lines, self.facts())


def _read_text(root: Path, rel: str, max_bytes: int) -> tuple[str | None, str | None]:
    try:
        data = safefs.read_file(root, rel, max_bytes)
    except UnsafeFile as exc:
        return None, f"{rel} {exc.reason}"
    if data is None:
        return None, f"no {rel} in the submission"
    return data.decode("utf-8", errors="replace"), None


def find_tests(root: Path) -> tuple[str, tuple[str, ...]] | None:
    """("npm", npm test) for a package.json test script, ("node", node --test) for test files."""
    try:
        package = json.loads(safefs.read_file(root, PACKAGE_JSON, MAX_PACKAGE_BYTES) or b"null")
    except (UnsafeFile, ValueError):
        package = None
    scripts = package.get("scripts") if isinstance(package, dict) else None
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if isinstance(script, str) and script.strip() and NPM_PLACEHOLDER not in script:
        return "npm", ("npm", "test")
    for path in safefs.list_files(root):
        parts = Path(path).parts
        if "node_modules" in parts:
            continue
        if TEST_FILE.search(path):
            return "node", ("node", "--test")
    return None


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
