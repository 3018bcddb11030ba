"""Did the meeting help? Agreement and leniency before the calibration meeting and now, per take-home.

"Before" is the reviewers' scores as they stood at the take-home's first resolution (each
reviewer's latest score on a line saved at or before that moment); "now" is their current
scores. Both are reviewer scores only: a resolution is the meeting's value, not a
reviewer's, so it never counts as agreement. Reviewers who re-score after the meeting
(or a calibrated next cohort) are what moves "now".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gradelib.cohort.agreement import Rating, alpha_text, leniency, line_agreement, note
from gradelib.cohort.table import Cohort, Entry, ratings_of
from gradelib.display.render import STYLE, Html, table_html
from gradelib.gradebook import Gradebook, ScoreEntry
from gradelib.safetext import html_visible

NO_MEETING = "No resolution recorded yet: once the meeting resolves a line, this compares agreement before and now."


@dataclass(frozen=True)
class Effect:
    """One take-home's agreement before its first resolution and now."""

    takehome: str
    since: str  # the first resolution's time
    lines_resolved: int  # lines of submissions in the selection with a resolution in force
    before: tuple[Rating, ...]
    now: tuple[Rating, ...]


def _scores_at(history: list[ScoreEntry], moment: str) -> dict[tuple[str, str], ScoreEntry]:
    """(line_id, reviewer) -> the latest score saved at or before `moment` (history oldest first)."""
    found: dict[tuple[str, str], ScoreEntry] = {}
    for entry in history:
        if entry.created_at <= moment:
            found[(entry.line_id, entry.reviewer)] = entry
    return found


def effects(cohort: Cohort) -> list[Effect]:
    """Per take-home with a resolution in the selection: the ratings before its first resolution, and now."""
    result = []
    with Gradebook(cohort.gradebook, readonly=True) as book, book.snapshot():
        for takehome, lines in cohort.rubric_lines.items():
            entries: list[Entry] = [e for e in cohort.entries if e.submission.takehome == takehome]
            resolved = [r for e in entries for r in e.resolutions.values()]
            if not resolved:
                continue
            first = min(r.created_at for r in book.resolutions(takehome))
            history: dict[str, list[ScoreEntry]] = {}
            for entry in book.scores(takehome):
                history.setdefault(entry.submission, []).append(entry)
            then = [replace(e, scores=_scores_at(history.get(e.submission.name, []), first)) for e in entries]
            before = [rating for e in then for rating in ratings_of(e, lines)]
            now = [rating for e in entries for rating in ratings_of(e, lines)]
            result.append(Effect(takehome, first, len(resolved), tuple(before), tuple(now)))
    return result


def effect_view(cohort: Cohort) -> Html:
    """Per take-home: lines resolved, alpha per line before and now, each reviewer's leniency before and now."""
    found = effects(cohort)
    if not found:
        return note(NO_MEETING)
    parts, text = [], []
    titles = cohort.titles
    for effect in found:
        before = {(a.takehome, a.line_id): a for a in line_agreement(effect.before)}
        now = {(a.takehome, a.line_id): a for a in line_agreement(effect.now)}
        alpha_rows = [
            {
                "line": titles.get(key, key[1]),
                "alpha before": alpha_text(before[key].alpha) if key in before else "-",
                "alpha now": alpha_text(now[key].alpha) if key in now else "-",
                "ratings now": now[key].ratings if key in now else 0,
            }
            for key in dict.fromkeys([*before, *now])
        ]
        lenient_before = {row.reviewer: row for row in leniency(effect.before)}
        lenient_now = {row.reviewer: row for row in leniency(effect.now)}
        leniency_rows = [
            {
                "reviewer": who,
                "leniency before": f"{lenient_before[who].mean_points:+.2f}" if who in lenient_before else "-",
                "leniency now": f"{lenient_now[who].mean_points:+.2f}" if who in lenient_now else "-",
            }
            for who in sorted({*lenient_before, *lenient_now})
        ]
        parts.append(
            f"<div class='gl-key'>{html_visible(effect.takehome)}: {effect.lines_resolved} line(s) resolved;"
            f" before = the scores at the first resolution ({html_visible(effect.since[:16])} UTC)</div>"
            f"{table_html(alpha_rows)}{table_html(leniency_rows)}"
        )
        text.append(
            f"{effect.takehome}: {effect.lines_resolved} resolved; "
            + "; ".join(f"{row['line']}: {row['alpha before']} -> {row['alpha now']}" for row in alpha_rows)
        )
    legend = (
        "<p><small>Krippendorff's alpha (1 = the reviewers agree) and leniency (a reviewer's mean difference"
        " from the panel, in points) over reviewer scores only: the meeting's resolved values are not a"
        " reviewer's. They move when reviewers score again after the meeting.</small></p>"
    )
    return Html(f'{STYLE}<div class="gl-card">{"".join(parts)}{legend}</div>', "\n".join(text))
