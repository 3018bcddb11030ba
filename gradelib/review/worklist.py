"""What a reviewer still has to score: calibration anchors first, then a stable random order of their own."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from gradelib.gradebook import Gradebook
from gradelib.review.rubric import default_rubric
from gradelib.review.scoring import review_lines


@dataclass(frozen=True)
class Pending:
    """One submission with lines awaiting this reviewer."""

    takehome: str
    label: str  # "Submission #N", or the name when revealed
    lines: tuple[str, ...]
    notebook: str | None
    anchor: bool = False  # a calibration anchor: everyone scores it, first


def _order_key(reviewer: str, takehome: str, name: str) -> str:
    """Shuffled per reviewer, the same every time: sequence effects don't line up across reviewers."""
    return hashlib.sha256(f"{reviewer}\0{takehome}\0{name}".encode()).hexdigest()


def queue(book: Gradebook, reviewer: str, *, takehome: str | None = None, reveal: bool = False) -> list[Pending]:
    """Submissions whose human lines this reviewer has not scored yet; the lead's anchors come first."""
    found: list[tuple[bool, str, Pending]] = []
    anchors = {row.id for row in book.anchors(takehome)}
    for row in book.submissions(takehome):
        run = book.latest_run(row.takehome, row.name, graded_only=True)
        if run is None:
            continue
        lines = book.latest_lines(row.takehome, row.name)
        human = [r.line_id for r in review_lines(default_rubric(row.takehome), lines) if r.needs_human]
        scored = {line_id for (line_id, who) in book.current_scores(row.takehome, row.name) if who == reviewer}
        todo = tuple(line for line in human if line not in scored)
        if todo:
            label = row.name if reveal else row.blind_label
            anchor = row.id in anchors
            pending = Pending(row.takehome, label, todo, run.notebook, anchor)
            found.append((not anchor, _order_key(reviewer, row.takehome, row.name), pending))
    return [pending for _, _, pending in sorted(found, key=lambda item: item[:2])]
