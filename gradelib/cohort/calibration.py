"""Calibration anchors and score distributions: how each reviewer scores against the panel, line by line.

- The lead marks a few submissions as anchors (`gradelib anchor add`); every reviewer
  scores them first (`gradelib queue` lists them first). On each anchor line the
  *consensus* is the mean of every reviewer's points there; a reviewer's *distance* is
  |their points - consensus|, also as a share of the line's maximum. The summary shows it
  per anchor line and, per reviewer, the mean over the anchor lines they scored, with the
  lines they have not scored yet.
- The distribution of a reviewer's values on a line (how often weak, acceptable, strong;
  or each number of points) over every submission in the selection shows a reviewer who
  never gives the top tier, or always the middle one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

from gradelib.cohort.agreement import Rating, note
from gradelib.cohort.table import Cohort, line_cell
from gradelib.display.render import STYLE, Html, table_html
from gradelib.safetext import html_visible
from gradelib.takehomes.rubric import RubricLine

NO_ANCHORS = "No calibration anchors yet: the lead marks a few with `gradelib anchor add --takehome T 'Submission #N'`."
NO_SCORES_ON_ANCHORS = "No reviewer has scored an anchor yet."


@dataclass(frozen=True)
class AnchorDistance:
    """One reviewer's mean distance from the consensus over the anchor lines they scored (one take-home)."""

    takehome: str
    reviewer: str
    lines: int  # anchor lines scored
    mean_points: float
    mean_share: float | None  # None when a line has no maximum
    missing: int  # anchor lines (needing a human or not) this reviewer has not scored


def anchor_ratings(cohort: Cohort) -> list[Rating]:
    """The ratings on anchor submissions."""
    anchors = {(e.submission.takehome, e.submission.name) for e in cohort.entries if e.anchor}
    return [r for r in cohort.ratings if (r.takehome, r.submission) in anchors]


def anchor_distances(cohort: Cohort) -> list[AnchorDistance]:
    """Each reviewer's distance from the consensus on the anchors, per take-home, closest first."""
    ratings = anchor_ratings(cohort)
    units: dict[tuple[str, str, str], list[Rating]] = defaultdict(list)
    for rating in ratings:
        units[rating.unit].append(rating)
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    shares: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for unit in units.values():
        consensus = fmean(r.points for r in unit)
        for rating in unit:
            key = (rating.takehome, rating.reviewer)
            points[key].append(abs(rating.points - consensus))
            shares[key].append(abs(rating.points - consensus) / rating.max_points if rating.max_points else None)
    expected: Counter[str] = Counter()
    for entry in cohort.entries:
        if entry.anchor:
            expected[entry.submission.takehome] += len(cohort.rubric_lines.get(entry.submission.takehome, ()))
    result = []
    for (takehome, reviewer), distances in points.items():
        known = [share for share in shares[(takehome, reviewer)] if share is not None]
        share = fmean(known) if len(known) == len(distances) else None
        missing = expected.get(takehome, 0) - len(distances)
        result.append(AnchorDistance(takehome, reviewer, len(distances), fmean(distances), share, max(missing, 0)))
    result.sort(key=lambda row: (row.takehome, row.mean_points, row.reviewer))
    return result


def anchors_view(cohort: Cohort) -> Html:
    """Per anchor line: the consensus and each reviewer's score and distance; then each reviewer's mean distance."""
    anchors = [e for e in cohort.entries if e.anchor]
    if not anchors:
        return note(NO_ANCHORS)
    ratings = anchor_ratings(cohort)
    if not ratings:
        labels = ", ".join(f"{e.submission.takehome} {e.submission.blind_label}" for e in anchors)
        return note(f"{NO_SCORES_ON_ANCHORS} Anchors: {labels}.")
    reviewers = sorted({r.reviewer for r in ratings})
    rows = []
    for entry in anchors:
        sub = entry.submission
        for line in cohort.rubric_lines.get(sub.takehome, ()):
            mine = {r.reviewer: r for r in ratings if r.unit == (sub.takehome, sub.name, line.id)}
            if not mine:
                continue
            consensus = fmean(r.points for r in mine.values())
            row = {
                "anchor": f"{sub.takehome} {sub.blind_label} ({sub.name})",
                "line": line.title,
                "consensus": line_cell(line, consensus),
            }
            for reviewer in reviewers:
                rating = mine.get(reviewer)
                row[reviewer] = (
                    f"{rating.value} ({abs(rating.points - consensus):.2g} off)" if rating else "not scored yet"
                )
            rows.append(row)
    summary = [
        {
            "take-home": d.takehome,
            "reviewer": d.reviewer,
            "anchor lines scored": d.lines,
            "mean distance (points)": f"{d.mean_points:.2f}",
            "of the line's maximum": f"{d.mean_share:.0%}" if d.mean_share is not None else "-",
            "anchor lines not scored yet": d.missing,
        }
        for d in anchor_distances(cohort)
    ]
    legend = (
        "<p><small>Consensus: the mean of every reviewer's points on the line (with the nearest tier). Distance: how"
        " far a reviewer's score is from it; 0 is the panel's view exactly.</small></p>"
    )
    body = f"{table_html(rows)}<div class='gl-key'>Distance from the consensus, per reviewer</div>{table_html(summary)}"
    text = "\n".join(f"{d.takehome} {d.reviewer}: {d.mean_points:.2f} over {d.lines}" for d in anchor_distances(cohort))
    return Html(f'{STYLE}<div class="gl-card">{body}{legend}</div>', text)


def distribution(ratings: Sequence[Rating], line: RubricLine, takehome: str) -> dict[str, Counter[str]]:
    """reviewer -> how often they gave each value on a line."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for rating in ratings:
        if rating.takehome == takehome and rating.line_id == line.id:
            counts[rating.reviewer][rating.value] += 1
    return dict(counts)


def _values(line: RubricLine, counts: dict[str, Counter[str]]) -> list[str]:
    if line.tiers:
        return list(line.tiers)
    seen = {value for counter in counts.values() for value in counter}
    return sorted(seen, key=lambda v: float(v) if v.replace(".", "", 1).isdigit() else float("inf"))


def distributions_view(cohort: Cohort) -> Html:
    """Per take-home and line: each reviewer's count of every value they gave, over the selection."""
    if not cohort.ratings:
        return note("No reviewer scores in this selection yet.")
    parts, text = [], []
    for takehome, lines in cohort.rubric_lines.items():
        rows = []
        for line in lines:
            counts = distribution(cohort.ratings, line, takehome)
            values = _values(line, counts)
            for reviewer in sorted(counts):
                total = sum(counts[reviewer].values())
                row = {"line": line.title, "reviewer": reviewer, "scores": total}
                row |= {value: counts[reviewer].get(value, 0) or "" for value in values}
                rows.append(row)
                text.append(f"{takehome} {line.id} {reviewer}: {dict(counts[reviewer])}")
        if rows:
            parts.append(f"<div class='gl-key'>{html_visible(takehome)}</div>{table_html(rows)}")
    legend = "<p><small>How often each reviewer gave each tier or number of points, per line.</small></p>"
    return Html(f'{STYLE}<div class="gl-card">{"".join(parts)}{legend}</div>', "\n".join(text))
