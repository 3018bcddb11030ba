"""Resolutions: the value a calibration meeting agrees for one line of one submission, and their clarifications.

Every record is checked against the rubric before it is kept (a line the rubric has, named by
its id or its title as the agenda prints it; a tier the line has, or points within its
maximum; a reason; who records it), appended to the gradebook (a later record supersedes an
earlier one, nothing is deleted), and named by blind label in what it says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from gradelib.cohort import agreement
from gradelib.cohort.table import Cohort
from gradelib.display.render import STYLE, Html, table_html
from gradelib.errors import RecordRefused, RubricError, UnknownTakehome
from gradelib.gradebook import Gradebook
from gradelib.gradebook.clarified import Clarification
from gradelib.gradebook.identity import find_submission
from gradelib.gradebook.meetingrecords import Resolution, latest_resolutions
from gradelib.review.scoring import ENV_REVIEWER
from gradelib.settings import current_settings
from gradelib.takehomes.rubric import Rubric, RubricLine, default_rubric, load_rubric


def rubric_for(takehome: str, path: str | Path | None = None) -> Rubric:
    """The rubric a record is checked against: the file given, else the packaged one (RecordRefused if none)."""
    try:
        return load_rubric(Path(path), takehome=takehome) if path else default_rubric(takehome)
    except (RubricError, UnknownTakehome) as exc:
        raise RecordRefused(str(exc)) from exc


def _plain(text: str) -> str:
    """Text as a lead may type a line's name: case and runs of whitespace do not matter."""
    return " ".join(text.split()).casefold()


def rubric_line(rubric: Rubric, named: str) -> RubricLine:
    """The line `named` by its id ("some_line") or its title as the agenda prints it ("Some line").

    Case and whitespace do not matter; RecordRefused, listing every line's id and title, when
    no line or more than one line has that name.
    """
    wanted = _plain(named)
    found = [line for line in rubric.lines if wanted and wanted in (_plain(line.id), _plain(line.title))]
    if len(found) == 1:
        return found[0]
    known = ", ".join(f"{line.id} ({line.title})" for line in rubric.lines)
    what = (
        f"{rubric.takehome}: {named!r} names more than one line"
        if found
        else f"{rubric.takehome} has no line {named!r}"
    )
    raise RecordRefused(f"{what} (its lines, by id or title: {known})")


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


def recorded_by(by: str | None) -> str:
    """Who records a meeting's record: `by`, else GRADELIB_REVIEWER; RecordRefused when neither says."""
    who = (by or current_settings().reviewer).strip()
    if not who:
        raise RecordRefused(f"say who records it: --by NAME (or set {ENV_REVIEWER})")
    return who


def reason(why: str | None) -> str:
    """The reason a meeting's record is kept with; RecordRefused when there is none."""
    text = (why or "").strip()
    if not text:
        raise RecordRefused('a meeting record needs a reason: --why "..."')
    return text


def resolve(
    book: Gradebook,
    takehome: str,
    label: str,
    line: str,
    value: str,
    why: str | None,
    by: str | None = None,
    *,
    rubric: Rubric | None = None,
) -> Resolution:
    """Record the value the meeting agreed for one line (its id or title) of one submission; it replaces the mean."""
    chosen = rubric_line(rubric or rubric_for(takehome), line)
    row = find_submission(book, takehome, label)
    return book.add_resolution(
        row.takehome, row.name, chosen.id, checked_value(chosen, value), reason(why), recorded_by(by)
    )


@dataclass(frozen=True)
class Promoted:
    """A resolution promoted to a rubric clarification: the gradebook that keeps it, and whether it was new."""

    clarification: Clarification
    path: Path
    added: bool


def clarify(
    book: Gradebook,
    takehome: str,
    label: str,
    line: str,
    *,
    note: str | None = None,
    rubric: Rubric | None = None,
    report: str = "",
) -> Promoted:
    """Promote the resolution in force on a line (its id or title) of a submission to a clarification.

    The clarification is kept in the gradebook, the team's (never beside the rubric file, which may be
    the installed kit's); its note is the resolution's reason unless given; its example is the
    submission, shown by its blind label.
    """
    chosen = rubric or rubric_for(takehome)
    picked = rubric_line(chosen, line)
    row = find_submission(book, takehome, label)
    current = latest_resolutions(book.resolutions(row.takehome, row.name)).get((row.takehome, row.name, picked.id))
    if current is None:
        raise RecordRefused(
            f"{row.blind_label} has no resolution on {picked.id} to promote: record one first (gradelib resolve)"
        )
    clarification = Clarification(
        uid=current.uid,
        takehome=row.takehome,
        line_id=picked.id,
        value=current.value,
        note=(note or "").strip() or current.reason,
        example=row.blind_label,
        report=report,
        by=current.resolved_by,
        at=current.created_at,
        submission=row.name,
    )
    added = book.add_clarification(clarification)
    return Promoted(clarification, book.path, added)


def resolutions_view(cohort: Cohort) -> Html:
    """The resolutions in force in the selection: the agreed value, why, who and when, beside the reviewers' values."""
    rows = []
    for entry in cohort.entries:
        titles = {line.id: line.title for line in cohort.rubric_lines.get(entry.submission.takehome, ())}
        for line_id, res in sorted(entry.resolutions.items()):
            given = ", ".join(f"{who} {s.value}" for (lid, who), s in sorted(entry.scores.items()) if lid == line_id)
            rows.append(
                {
                    "take-home": entry.submission.takehome,
                    "submission": entry.submission.blind_label,
                    "name": entry.submission.name,
                    "line": titles.get(line_id, line_id),
                    "agreed": res.value,
                    "reviewers gave": given or "-",
                    "why": res.reason,
                    "by": res.resolved_by,
                    "when": res.created_at[:16].replace("T", " "),
                }
            )
    if not rows:
        return agreement.note("No line resolved yet in this selection.")
    return Html(f'{STYLE}<div class="gl-card">{table_html(rows)}</div>', f"{len(rows)} resolution(s)")
