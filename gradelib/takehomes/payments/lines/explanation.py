"""Line 4, explanation: where the note names idempotency and the restart gap; the reviewer's call."""

from __future__ import annotations

from gradelib.takehome import LineResult
from gradelib.takehomes.payments.notehints import hint_lines
from gradelib.takehomes.payments.runs import EXPLANATION_HINTS, PaymentsRuns, line_numbers


def judge(grading: PaymentsRuns) -> LineResult:
    """Does the note name idempotency, explain the restart gap? Reviewer judgment."""
    evidence = grading._note_evidence(EXPLANATION_HINTS)
    if grading.note[0] is None:
        return grading._line("explanation", "needs_review", f"no note to read: {grading.note[1]}", evidence)
    found = [
        f"{label} on line(s) {line_numbers(hint_lines(grading.hints, kind))}"
        for kind, label in (("idempotency", "idempotency / dedupe"), ("restart", "restarts / crashes"))
        if hint_lines(grading.hints, kind)
    ]
    neither = "the note mentions neither idempotency nor restarts"
    message = "the note mentions " + "; ".join(found) if found else neither
    return grading._line("explanation", "needs_review", message + " (reviewer judges)", evidence)
