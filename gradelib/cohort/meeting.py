"""What the lead records in a calibration meeting: a line's agreed value, a candidate's decision, a rubric note.

Every record is checked against the rubric before it is kept (a tier the line has, points
within its maximum, a reason), appended to the gradebook (who, when, why; a later record
supersedes an earlier one, nothing is deleted), and named by blind label in what it says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from gradelib.errors import RecordRefused, RubricError, UnknownTakehome
from gradelib.gradebook import Gradebook, SubmissionRow
from gradelib.gradebook.meeting import Decision, Resolution, latest_resolutions
from gradelib.review.clarifications import Clarification, add_clarification, clarifications_path
from gradelib.review.scoring import ENV_REVIEWER
from gradelib.settings import DEFAULT_DECISIONS as DEFAULT_DECISIONS
from gradelib.settings import ENV_DECISIONS as ENV_DECISIONS  # the team's own wording, e.g. "advance,hold,decline"
from gradelib.settings import current_settings
from gradelib.takehomes.rubric import Rubric, RubricLine, default_rubric, load_rubric


def decision_choices(choices: str | None = None) -> tuple[str, ...]:
    """The decisions a lead can record: `choices` (comma-separated), else GRADELIB_DECISIONS, else the defaults."""
    if choices is None:
        return current_settings().decisions
    words = tuple(dict.fromkeys(word.strip() for word in choices.split(",") if word.strip()))
    return words or DEFAULT_DECISIONS


def rubric_for(takehome: str, path: str | Path | None = None) -> Rubric:
    """The rubric a record is checked against: the file given, else the packaged one (RecordRefused if none)."""
    try:
        return load_rubric(Path(path), takehome=takehome) if path else default_rubric(takehome)
    except (RubricError, UnknownTakehome) as exc:
        raise RecordRefused(str(exc)) from exc


def find_submission(book: Gradebook, takehome: str, label: str) -> SubmissionRow:
    """A submission by blind label ("Submission #3", "#3", "3") or by name; RecordRefused when there is none."""
    row = book.submission_by_label(takehome, label) or book.submission(takehome, label)
    if row is None:
        raise RecordRefused(f"no {takehome} submission {label!r} in {book.path}")
    return row


def _line(rubric: Rubric, line_id: str) -> RubricLine:
    try:
        return rubric.line(line_id)
    except KeyError:
        known = ", ".join(rubric.line_ids)
        raise RecordRefused(f"{rubric.takehome} has no line {line_id!r} (its lines: {known})") from None


def checked_value(line: RubricLine, value: str) -> str:
    """The value as kept: a tier the line has, or points from 0 to the line's maximum."""
    text = value.strip()
    if line.tiers:
        if text not in line.tiers:
            raise RecordRefused(f"{line.id}: {value!r} is not one of its tiers ({', '.join(line.tiers)})")
        return text
    try:
        points = float(text)
    except ValueError:
        raise RecordRefused(f"{line.id}: {value!r} is not a number of points") from None
    top = line.max_points
    if not math.isfinite(points) or points < 0 or (top is not None and points > top):
        raise RecordRefused(f"{line.id}: {value!r} is outside 0 to {top:g}" if top is not None else f"{value!r}")
    return f"{points:g}"


def _who(by: str | None) -> str:
    who = (by or current_settings().reviewer).strip()
    if not who:
        raise RecordRefused(f"say who records it: --by NAME (or set {ENV_REVIEWER})")
    return who


def _why(why: str | None) -> str:
    text = (why or "").strip()
    if not text:
        raise RecordRefused('a meeting record needs a reason: --why "..."')
    return text


def resolve(
    book: Gradebook,
    takehome: str,
    label: str,
    line_id: str,
    value: str,
    why: str | None,
    by: str | None = None,
    *,
    rubric: Rubric | None = None,
) -> Resolution:
    """Record the value the meeting agreed for one line of one submission; it replaces the mean from now on."""
    line = _line(rubric or rubric_for(takehome), line_id)
    row = find_submission(book, takehome, label)
    return book.add_resolution(row.takehome, row.name, line.id, checked_value(line, value), _why(why), _who(by))


def decide(
    book: Gradebook,
    takehome: str,
    label: str,
    decision: str,
    why: str | None,
    by: str | None = None,
    *,
    choices: tuple[str, ...] | None = None,
) -> Decision:
    """Record the decision for one candidate (one of `choices`, default `decision_choices()`)."""
    allowed = choices or decision_choices()
    word = decision.strip()
    if word not in allowed:
        raise RecordRefused(f"{decision!r} is not a decision here; choose one of {', '.join(allowed)}")
    row = find_submission(book, takehome, label)
    return book.add_decision(row.takehome, row.name, word, _why(why), _who(by))


@dataclass(frozen=True)
class Promoted:
    """A resolution promoted to a rubric clarification: where it was written, and whether it was new."""

    clarification: Clarification
    path: Path
    added: bool


def clarify(
    book: Gradebook,
    takehome: str,
    label: str,
    line_id: str,
    *,
    note: str | None = None,
    rubric: Rubric | None = None,
    report: str = "",
) -> Promoted:
    """Promote the resolution in force on a line of a submission to a clarification beside the rubric file.

    The note is the resolution's reason unless given; the example is the submission's blind label.
    """
    chosen = rubric or rubric_for(takehome)
    line = _line(chosen, line_id)
    row = find_submission(book, takehome, label)
    current = latest_resolutions(book.resolutions(row.takehome, row.name)).get((row.takehome, row.name, line.id))
    if current is None:
        raise RecordRefused(
            f"{row.blind_label} has no resolution on {line.id} to promote: record one first (gradelib resolve)"
        )
    clarification = Clarification(
        uid=current.uid,
        takehome=row.takehome,
        line_id=line.id,
        value=current.value,
        note=(note or "").strip() or current.reason,
        example=row.blind_label,
        report=report,
        by=current.resolved_by,
        at=current.created_at,
    )
    added = add_clarification(chosen, clarification)
    return Promoted(clarification, clarifications_path(chosen), added)
