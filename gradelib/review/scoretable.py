"""The read-only table of reviewer scores on one submission: blind to colleagues' values until you have scored.

Blindness between reviewers: a viewer sees another reviewer's value and comment on a
line only once they have saved their own score for that line, or when the lead reveals
(`reveal`, or `GRADELIB_REVEAL` set). Without a viewer (the table stored in a report)
nobody's values are shown unless revealed: the table says who scored which line and
when, and the cohort summary is where every value is shown.

The calibration meeting's records follow the same rule: the value a meeting resolved for
a line shows once the viewer has saved their own score for that line, and the decision on
the candidate once they have scored every line the kit left to humans.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from gradelib import settings
from gradelib.display.card import SCORES_ANCHOR
from gradelib.display.render import STYLE, Html, badge
from gradelib.gradebook import Gradebook, ScoreEntry, utc_now
from gradelib.gradebook.identity import shown_name
from gradelib.gradebook.meetingrecords import Decision, Resolution, latest_decisions, latest_resolutions
from gradelib.result import LineResult
from gradelib.review.scoring import ReviewLine, review_lines
from gradelib.safetext import clipped_text, html_visible
from gradelib.takehomes.rubric import Rubric

ENV_HEADLESS = settings.ENV_HEADLESS  # set for papermill runs (the batch, the summary): no live widgets
NEEDS_YOU = "needs you"
NO_CHOICE = "-"
NO_SCORES = "No reviewer scores saved yet."
HIDDEN_FOR_VIEWER = "scored; hidden until you save yours for this line"
HIDDEN_STATIC = "scored; value hidden (blind review)"
TAKEN = "Score table taken {when} from the gradebook; <code>gradelib tables</code> refreshes it."
TAKEN_TEXT = "score table taken {when}"
NEEDS_YOU_COLOUR = "#8250df"
HIDDEN_COLOUR = "#57606a"
RESOLVED_HIDDEN_FOR_VIEWER = "resolved by the meeting; shown once you save yours for this line"
RESOLVED_HIDDEN_STATIC = "resolved by the meeting; value hidden (blind review)"
DECISION_HIDDEN = "A decision is recorded; it shows once you have scored every line left to reviewers."
SCORE_TABLE_CLASS = "gl-score-table"  # marks the table in a report, so tests and refreshes find it


def visible(
    viewer: str | None, line_id: str, reviewer: str, scores: Mapping[tuple[str, str], Any], reveal: bool
) -> bool:
    """Whether `viewer` may see `reviewer`'s value and comment on a line."""
    if reveal:
        return True
    who = (viewer or "").strip()
    return bool(who) and (reviewer == who or (line_id, who) in scores)


def current_table(
    gradebook: Gradebook,
    takehome: str,
    name: str,
    rubric: Rubric,
    *,
    reveal: bool = False,
    lines: Sequence[LineResult] | None = None,
    viewer: str | None = None,
    taken: str | None = None,
) -> Html:
    """Read-only table of the kit's suggestion and each reviewer's current score, blind as described above.

    The submission is named by its blind label ("Submission #3") unless `reveal`. `lines`
    are the kit's results when the caller has fresher ones than the gradebook. `taken`
    (an ISO time) adds when the table was taken, for a table stored in a report.
    """
    review = review_lines(rubric, lines if lines is not None else gradebook.latest_lines(takehome, name))
    scores = gradebook.current_scores(takehome, name)
    shown = shown_name(gradebook, takehome, name, reveal)
    resolutions, decision = meeting_records(gradebook, takehome, name)
    return score_table(
        takehome, shown, review, scores, viewer=viewer, reveal=reveal, taken=taken,
        resolutions=resolutions, decision=decision,
    )  # fmt: skip


def meeting_records(gradebook: Gradebook, takehome: str, name: str) -> tuple[dict[str, Resolution], Decision | None]:
    """The resolutions in force on a submission (line_id -> resolution) and its decision in force."""
    resolved = latest_resolutions(gradebook.resolutions(takehome, name))
    decided = latest_decisions(gradebook.decisions(takehome, name))
    return {line_id: r for (_, _, line_id), r in resolved.items()}, decided.get((takehome, name))


def stored_table(
    gradebook: Gradebook,
    takehome: str,
    name: str,
    rubric: Rubric,
    *,
    reveal: bool = False,
    lines: Sequence[LineResult] | None = None,
) -> Html:
    """The table as a report stores it: no viewer, taken now (`lines`: a run the gradebook does not hold yet)."""
    return current_table(gradebook, takehome, name, rubric, reveal=reveal, lines=lines, taken=utc_now())


def score_table(
    takehome: str,
    shown: str,
    review: Sequence[ReviewLine],
    scores: Mapping[tuple[str, str], ScoreEntry],
    *,
    viewer: str | None = None,
    reveal: bool = False,
    taken: str | None = None,
    resolutions: Mapping[str, Resolution] | None = None,
    decision: Decision | None = None,
    anchored: bool = True,
) -> Html:
    """The table itself, from the review lines and current scores (and the meeting's records, blind).

    `anchored`: it carries the id the verdict card links to (not when the live panel, which has it, shows it).
    """
    resolutions = resolutions or {}
    reviewers = sorted({reviewer for _, reviewer in scores})
    known = {line.line_id for line in review}
    extra = sorted({line_id for line_id, _ in scores if line_id not in known})  # lines the rubric no longer has
    head = "".join(f"<th>{html_visible(clipped_text(reviewer, 80))}</th>" for reviewer in reviewers)
    hidden = HIDDEN_FOR_VIEWER if (viewer or "").strip() else HIDDEN_STATIC
    rows, text = [], [f"{takehome}: {shown}: reviewer scores"]

    def cell(line_id: str, reviewer: str, kit_value: str | None) -> str:
        entry = scores.get((line_id, reviewer))
        if entry is None:
            return ""
        if not visible(viewer, line_id, reviewer, scores, reveal):
            return (
                f'<i style="color:{HIDDEN_COLOUR}">{html_visible(hidden)}</i>'
                f"<br><small>{html_visible(when(entry.created_at))}</small>"
            )
        return _score_cell(entry, kit_value)

    def agreed(line_id: str) -> str:
        return _resolution_cell(resolutions.get(line_id), line_id, viewer_name, scores, reveal)

    viewer_name = (viewer or "").strip()
    meeting_head = "<th>meeting agreed</th>" if resolutions else ""
    for line in review:
        cells = "".join(f"<td>{cell(line.line_id, r, line.kit_value)}</td>" for r in reviewers)
        if resolutions:
            cells += f"<td>{agreed(line.line_id)}</td>"
        waiting = line.needs_human and not any((line.line_id, r) in scores for r in reviewers)
        marker = f' <span style="color:{NEEDS_YOU_COLOUR}"><b>{html_visible(NEEDS_YOU)}</b></span>' if waiting else ""
        rows.append(f"<tr><td>{html_visible(line.title)}{marker}</td><td>{_kit_cell(line)}</td>{cells}</tr>")
        saved = ", ".join(
            f"{clipped_text(r, 80)}={clipped_text(scores[(line.line_id, r)].value, 40)}"
            if visible(viewer, line.line_id, r, scores, reveal)
            else f"{clipped_text(r, 80)} scored"
            for r in reviewers
            if (line.line_id, r) in scores
        )
        text.append(f"  {line.title}: kit {line.kit_value or NO_CHOICE} ({line.kit_outcome}); {saved or NEEDS_YOU}")
    for line_id in extra:
        cells = "".join(f"<td>{cell(line_id, r, None)}</td>" for r in reviewers)
        cells += f"<td>{agreed(line_id)}</td>" if resolutions else ""
        rows.append(f"<tr><td>{html_visible(clipped_text(line_id, 80))}</td><td>(not in this rubric)</td>{cells}</tr>")
    empty = f"<p>{html_visible(NO_SCORES)}</p>" if not scores else ""
    decided = _decision_html(decision, review, scores, viewer_name, reveal)
    stamp = f"<p><small>{TAKEN.format(when=html_visible(when(taken)))}</small></p>" if taken else ""
    if taken:
        text.insert(1, f"  ({TAKEN_TEXT.format(when=when(taken))})")
    anchor = f' id="{SCORES_ANCHOR}"' if anchored else ""
    body = (
        f'{STYLE}<div class="gl-card {SCORE_TABLE_CLASS}"{anchor}><b>{html_visible(takehome)}: '
        f"{html_visible(clipped_text(shown, 120))}</b>,"
        f" reviewer scores{empty}<table><tr><th>line</th><th>kit suggests</th>{head}{meeting_head}</tr>"
        f"{''.join(rows)}</table>{decided}{stamp}</div>"
    )
    return Html(body, "\n".join(text))


def _resolution_cell(
    record: Resolution | None, line_id: str, viewer: str, scores: Mapping[tuple[str, str], ScoreEntry], reveal: bool
) -> str:
    """The meeting's value on a line, once the viewer has saved theirs on it (or revealed); else that there is one."""
    if record is None:
        return ""
    if not (reveal or (bool(viewer) and (line_id, viewer) in scores)):
        hidden = RESOLVED_HIDDEN_FOR_VIEWER if viewer else RESOLVED_HIDDEN_STATIC
        return f'<i style="color:{HIDDEN_COLOUR}">{html_visible(hidden)}</i>'
    return (
        f"<b>{html_visible(clipped_text(record.value, 40))}</b> \u2713"
        f'<div style="white-space:pre-wrap">{html_visible(clipped_text(record.reason, 2000))}</div>'
        f"<small>{html_visible(clipped_text(record.resolved_by, 80))}, {html_visible(when(record.created_at))}</small>"
    )


def _decision_html(
    decision: Decision | None,
    review: Sequence[ReviewLine],
    scores: Mapping[tuple[str, str], ScoreEntry],
    viewer: str,
    reveal: bool,
) -> str:
    """The decision in force, once the viewer has scored every human line (or revealed); else that one exists."""
    if decision is None:
        return ""
    owed = [line for line in review if line.needs_human and (line.line_id, viewer) not in scores]
    if not (reveal or (viewer and not owed)):
        return f'<p><i style="color:{HIDDEN_COLOUR}">{html_visible(DECISION_HIDDEN)}</i></p>'
    return (
        f"<p><b>Decision: {html_visible(clipped_text(decision.decision, 40))}</b>"
        f" ({html_visible(clipped_text(decision.decided_by, 80))}, {html_visible(when(decision.created_at))}):"
        f" {html_visible(clipped_text(decision.reason, 2000))}</p>"
    )


def _kit_cell(line: ReviewLine) -> str:
    value = f" <b>{html_visible(line.kit_value)}</b>" if line.kit_value is not None else f" {NO_CHOICE}"
    message = f"<br><small>{html_visible(clipped_text(line.kit_message))}</small>" if line.kit_message else ""
    return f"{badge(line.kit_outcome)}{value}{message}"


def _score_cell(entry: ScoreEntry, kit_value: str | None) -> str:
    value = str(entry.value)
    override = " (overrides the kit)" if kit_value is not None and value != kit_value else ""
    comment = str(entry.comment or "")
    said = f'<div style="white-space:pre-wrap">{html_visible(clipped_text(comment, 2000))}</div>' if comment else ""
    return (
        f"<b>{html_visible(clipped_text(value, 40))}</b>{html_visible(override)}{said}"
        f"<small>{html_visible(when(entry.created_at))}</small>"
    )


def when(created_at: Any) -> str:
    """A stored ISO 8601 time as 'YYYY-MM-DD HH:MM', in UTC when it has a zone."""
    try:
        moment = datetime.fromisoformat(str(created_at))
    except ValueError:
        return clipped_text(created_at, 40)
    if moment.utcoffset() is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
