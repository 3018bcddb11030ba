"""The `payments` take-home's grading: its five rubric lines in rubric order, each judged in its own module
(`lines/`) from the runs they share (`runs.py`), and the views its notebook shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gradelib.takehome import FailureMode, LineResult, Report, Rubric, fact_is, line
from gradelib.takehomes.payments.lines import blast_radius, evidence, explanation, found_defect, key_scope
from gradelib.takehomes.payments.runs import PaymentsRuns

ATTEMPTS_VIEW = "attempts"


class PaymentsGrading(PaymentsRuns):
    """Grades one `payments` submission: each line runs (and caches) what it needs, then judges it."""

    @line("found_defect")
    def found_defect(self) -> LineResult:
        """A test red on the draft and green on the candidate's code (`lines/found_defect.py`)."""
        return found_defect.judge(self)

    @line("key_scope")
    def key_scope(self) -> LineResult:
        """The key's scope, from the keys the gateway saw (`lines/key_scope.py`)."""
        return key_scope.judge(self)

    @line("evidence")
    def evidence(self) -> LineResult:
        """What the note shows of a run, for the reviewer (`lines/evidence.py`)."""
        return evidence.judge(self)

    @line("explanation")
    def explanation(self) -> LineResult:
        """Where the note explains idempotency and the restart gap, for the reviewer (`lines/explanation.py`)."""
        return explanation.judge(self)

    @line("blast_radius")
    def blast_radius(self) -> LineResult:
        """What else the note finds unsafe, beside the slow scenario (`lines/blast_radius.py`)."""
        return blast_radius.judge(self)

    def views(self) -> dict[str, Any]:
        """The gateway's request log of every scenario (the notebook's timeline and table)."""
        return {ATTEMPTS_VIEW: self.attempts()}


def check(submission: Path, *, name: str | None = None, rubric: Rubric | None = None) -> Report:
    """Grade one payments submission folder."""
    with PaymentsGrading(submission, name=name, rubric=rubric) as grading:
        return grading.report()


FAILURE_MODES: tuple[FailureMode, ...] = (
    FailureMode("per-attempt idempotency key", fact_is("key_scope", "per_attempt")),
    FailureMode("key lost on restart (per call)", fact_is("key_scope", "per_call")),
    FailureMode("payment dropped in an outage", fact_is("dropped_payment_on_outage", True)),
    FailureMode("no backoff between retries", fact_is("backoff", False)),
    FailureMode("no test catches the key", fact_is("tests_red_on_draft", False)),
    FailureMode("no tests", fact_is("tests_kind", None)),
)


GRADING = PaymentsGrading
