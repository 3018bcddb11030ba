"""Line 4, explanation: where the note talks about duplicates, restarts and signatures; the reviewer's call."""

from __future__ import annotations

from gradelib.takehome import LineResult, markdown_html

from gradelib_webhooks.notes import hint_lines
from gradelib_webhooks.runs import NOTE, WebhooksRuns


def judge(grading: WebhooksRuns) -> LineResult:
    """Does the note explain the draft's restart gap? Reviewer judgment, with hints."""
    text, problem = grading.note
    evidence = {
        "note_file": NOTE,
        "note_problem": problem,
        "note_html": markdown_html(text) if text is not None else None,
        "hints": grading.hints,
    }
    if text is None:
        return grading._line("explanation", "needs_review", f"no note to read: {problem}", evidence)
    kinds = (("duplicates", "duplicates / redelivery"), ("restart", "restarts"), ("signature", "signatures"))
    found = [
        f"{label} on line(s) {', '.join(map(str, hint_lines(grading.hints, kind)[:8]))}"
        for kind, label in kinds
        if hint_lines(grading.hints, kind)
    ]
    said = "the note mentions " + "; ".join(found) if found else "the note names neither duplicates nor restarts"
    return grading._line("explanation", "needs_review", said + " (reviewer judges)", evidence)
