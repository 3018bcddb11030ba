"""What a reviewer still has to score: calibration anchors first, then a stable random order of their own."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from gradelib.errors import ReviewerMissing
from gradelib.gradebook import Gradebook
from gradelib.gradebook.identity import label_for
from gradelib.review.scoring import review_lines
from gradelib.settings import ENV_REVIEWER, current_settings
from gradelib.takehomes.rubric import Rubric, default_rubric

REVIEWER_FLAG = "--reviewer"


@dataclass(frozen=True)
class Pending:
    """One submission with lines awaiting this reviewer."""

    takehome: str
    label: str  # "Submission #N", or the name when revealed
    lines: tuple[str, ...]
    notebook: str | None
    anchor: bool = False  # a calibration anchor: everyone scores it, first


def whose(reviewer: str | None) -> str:
    """Whose queue: `reviewer`, else GRADELIB_REVIEWER (as the panel and the meeting's commands read it);
    ReviewerMissing when neither names one."""
    name = (reviewer or current_settings().reviewer).strip()
    if not name:
        raise ReviewerMissing(REVIEWER_FLAG, ENV_REVIEWER)
    return name


def _order_key(reviewer: str, takehome: str, name: str) -> str:
    """Shuffled per reviewer, the same every time: sequence effects don't line up across reviewers."""
    return hashlib.sha256(f"{reviewer}\0{takehome}\0{name}".encode()).hexdigest()


def queue(book: Gradebook, reviewer: str, *, takehome: str | None = None, reveal: bool = False) -> list[Pending]:
    """Submissions whose human lines this reviewer has not scored yet; the lead's anchors come first."""
    found: list[tuple[bool, str, Pending]] = []
    anchors = {row.id for row in book.anchors(takehome)}
    with book.snapshot():  # one state: a batch writing meanwhile cannot pair a run with another run's lines
        graded_runs, latest_lines = book.latest_runs(graded_only=True), book.latest_lines_by_submission(evidence=False)
        current_scores = book.current_scores_by_submission()
    rubrics: dict[str, Rubric] = {}  # read once per take-home, not once per submission
    for row in book.submissions(takehome):
        run = graded_runs.get(row.id)
        if run is None:
            continue
        if row.takehome not in rubrics:
            rubrics[row.takehome] = default_rubric(row.takehome)
        lines = latest_lines.get(row.id, [])
        human = [r.line_id for r in review_lines(rubrics[row.takehome], lines) if r.needs_human]
        scored = {line_id for (line_id, who) in current_scores.get(row.id, {}) if who == reviewer}
        todo = tuple(line for line in human if line not in scored)
        if todo:
            label = label_for(row, reveal=reveal)
            anchor = row.id in anchors
            pending = Pending(row.takehome, label, todo, run.notebook, anchor)
            found.append((not anchor, _order_key(reviewer, row.takehome, row.name), pending))
    return [pending for _, _, pending in sorted(found, key=lambda item: item[:2])]
