"""Line 3, evidence: what the note shows of a run (raw gateway output, code blocks); the reviewer's call."""

from __future__ import annotations

from gradelib.takehome import LineResult
from gradelib.takehomes.payments.notehints import hint_lines
from gradelib.takehomes.payments.runs import NOTE, PaymentsRuns, line_numbers


def judge(grading: PaymentsRuns) -> LineResult:
    """The note, rendered safely, with hints where raw gateway output appears."""
    evidence = grading._note_evidence(None)
    if grading.note[0] is None:
        return grading._line("evidence", "needs_review", f"no note to read: {grading.note[1]}", evidence)
    raw = hint_lines(grading.hints, "raw_output")
    blocks = hint_lines(grading.hints, "code_block")
    seen = [
        f"raw gateway output on line(s) {line_numbers(raw)}" if raw else "no raw gateway output quoted",
        f"code blocks at line(s) {line_numbers(blocks)}" if blocks else "no code blocks",
    ]
    return grading._line("evidence", "needs_review", f"reviewer reads {NOTE}: " + "; ".join(seen), evidence)
