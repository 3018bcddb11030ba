"""The verdict card of one submission: its report's lines in rubric order, and who has scored what awaits review.

The one function every report's notebook calls for its opening card (through
`NotebookGrading.verdicts`), and the one `gradelib tables` calls to take it again from the
gradebook. Blind: the card names the reviewers who scored a line, never their values.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gradelib.display.card import CardLine, Total, verdict_card
from gradelib.display.render import Html, isolation_warning, points_text
from gradelib.gradebook import Gradebook, ScoreEntry
from gradelib.gradebook.identity import lookup
from gradelib.intake import ingest
from gradelib.result import Report
from gradelib.review.scoring import ReviewLine, review_lines
from gradelib.takehomes.rubric import Rubric


def card_lines(report: Report, rubric: Rubric, scores: Mapping[tuple[str, str], Any]) -> list[CardLine]:
    """Every rubric line, in rubric order, as the card shows it; `scores` is keyed (line id, reviewer)."""
    return [_card_line(line, sorted(r for (line_id, r) in scores if line_id == line.line_id)) for line in
            review_lines(rubric, report.lines)]  # fmt: skip


def _card_line(line: ReviewLine, scored_by: list[str]) -> CardLine:
    kit = line.kit
    points = points_text(kit) if kit is not None else ""
    if kit is not None and kit.tier and kit.max_points is not None:
        points = f"{points} ({kit.tier})"
    return CardLine(
        line_id=line.line_id,
        title=line.title,
        outcome=line.kit_outcome,
        points=points,
        message=line.kit_message,
        needs_human=line.needs_human,
        scored_by=tuple(scored_by),
    )


def report_card(report: Report, rubric: Rubric, scores: Mapping[tuple[str, str], Any] | None = None) -> Html:
    """The card of a report: its lines (verdict, points, reason, link), the total, what awaits a reviewer."""
    lines = card_lines(report, rubric, scores or {})
    return verdict_card(lines, Total.of(report), warning=isolation_warning(report))


def saved_scores(
    gradebook: Path | str | None, takehome: str, labels: tuple[str, ...]
) -> dict[tuple[str, str], ScoreEntry]:
    """The current scores on a submission (by blind label, name or folder), from a gradebook file that exists.

    Never creates a gradebook: a notebook opened on a new submission has none, and then no scores.
    """
    if gradebook is None or not Path(gradebook).is_file():
        return {}
    with Gradebook(Path(gradebook)) as book:
        keys = (key for text in labels if text for key in (text, ingest.submission_name(Path(text))))
        for label in dict.fromkeys(keys):
            row = lookup(book, takehome, label)
            if row is not None:
                return dict(book.current_scores(takehome, row.name))
    return {}


def stored_card(book: Gradebook, takehome: str, name: str, rubric: Rubric) -> Html | None:
    """The card as the gradebook has it now (the latest graded run, the current scores); None without a run."""
    run = book.latest_run(takehome, name, graded_only=True)
    if run is None:
        return None
    report = Report(takehome, name, tuple(book.lines(run.id)), run.facts)
    return report_card(report, rubric, book.current_scores(takehome, name))
