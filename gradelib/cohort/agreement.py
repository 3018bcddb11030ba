"""Reviewer calibration: Krippendorff's alpha per rubric line, the largest disagreements, each reviewer's leniency.

Definitions (what the summary notebook shows):

- A *unit* is one rubric line of one submission; its *values* are the points each
  reviewer's current score maps to (a tier maps to its rubric points, so the ordinal
  metric orders tiers weak < acceptable < strong).
- Krippendorff's alpha is computed from its definition through the coincidence matrix
  (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"): only units with two
  or more values are *pairable*; each ordered pair of values (c, k) inside a unit with m
  values adds 1/(m-1) to o[c][k]; n[c] = sum over k of o[c][k]; n = sum of n[c];
  alpha = 1 - (n - 1) * sum(o[c][k] * delta2(c, k)) / sum(n[c] * n[k] * delta2(c, k)).
  delta2 is (c - k)^2 for the interval metric (points lines) and, for the ordinal metric
  (tier lines), (sum of n[g] for g from c to k, minus (n[c] + n[k]) / 2)^2.
- No number when it would mislead: fewer than MIN_UNITS pairable units is "too little
  data" (one shared unit cannot tell disagreement from the spread of values); pairable
  values without any variation is "all agree" (alpha is 0/0 there). Values that agree
  within every unit but vary across units give alpha = 1.0, a real number.
- Disagreement of a unit = highest minus lowest value, largest first (relative to the
  line's maximum, so 10 of 20 points ranks with 1 of 2 tiers).
- Leniency of a reviewer on a take-home = mean over the units they share with at least
  one other reviewer of (their points - the panel mean on that unit, themselves included),
  also as a share of the line's maximum. Positive: more generous than the panel.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Literal

from gradelib.display.render import STYLE, Html
from gradelib.safetext import html_visible

Metric = Literal["nominal", "ordinal", "interval"]
LineKey = tuple[str, str]  # (takehome, line_id)
UnitKey = tuple[str, str, str]  # (takehome, submission name, line_id)
MIN_UNITS = 2
TOO_LITTLE = "too little data"
ALL_AGREE = "all agree"
NOBODY_SCORED = "nobody scored this line"
DISAGREEMENT_LIMIT = 10
ACCEPTABLE_ALPHA = 0.667  # Krippendorff: tentative conclusions below 0.8, none below 0.667
GOOD_ALPHA = 0.8


@dataclass(frozen=True)
class Rating:
    """One reviewer's current score on one unit, already mapped to points."""

    takehome: str
    submission: str  # the candidate's name (the unit's key)
    label: str  # the blind label, e.g. "Submission #3"
    line_id: str
    reviewer: str
    value: str  # as the reviewer entered it: a tier name or points
    points: float
    max_points: float | None
    metric: Metric = "interval"
    comment: str = ""
    report: str | None = None  # link to the submission's HTML report

    @property
    def unit(self) -> UnitKey:
        """Which unit this rating belongs to."""
        return (self.takehome, self.submission, self.line_id)


@dataclass(frozen=True)
class Alpha:
    """Krippendorff's alpha, or None with the reason there is no honest number."""

    alpha: float | None
    metric: Metric
    units: int  # pairable units: two or more values
    values: int  # pairable values (n)
    reason: str = ""  # TOO_LITTLE or ALL_AGREE when alpha is None


@dataclass(frozen=True)
class LineAgreement:
    """Agreement on one rubric line across the submissions it was scored on."""

    takehome: str
    line_id: str
    alpha: Alpha
    reviewers: int
    ratings: int  # every rating of the line, pairable or not


@dataclass(frozen=True)
class Disagreement:
    """One unit where reviewers differ: the most and the least generous of them."""

    high: Rating
    low: Rating
    spread: float  # points
    share: float | None  # spread / the line's maximum
    reviewers: int


@dataclass(frozen=True)
class Leniency:
    """How far one reviewer sits from the panel mean on one take-home."""

    takehome: str
    reviewer: str
    units: int
    mean_points: float
    mean_share: float | None  # mean of differences / line maximum; None when a line has no maximum


def _delta2(metric: Metric, marginals: Mapping[float, float]) -> dict[tuple[float, float], float]:
    values = sorted(marginals)
    if metric == "interval":
        return {(c, k): (c - k) ** 2 for c in values for k in values}
    if metric == "nominal":
        return {(c, k): float(c != k) for c in values for k in values}
    delta: dict[tuple[float, float], float] = {}
    for i, c in enumerate(values):
        for j, k in enumerate(values):
            low, high = min(i, j), max(i, j)
            between = sum(marginals[values[g]] for g in range(low, high + 1))
            delta[(c, k)] = (between - (marginals[c] + marginals[k]) / 2) ** 2
    return delta


def krippendorff_alpha(units: Sequence[Sequence[float]], metric: Metric = "interval") -> Alpha:
    """Alpha over units (each a list of the values given to it; missing values left out)."""
    pairable = [[float(value) for value in unit] for unit in units if len(unit) >= 2]
    n = sum(len(unit) for unit in pairable)
    if len(pairable) < MIN_UNITS:
        return Alpha(None, metric, len(pairable), n, TOO_LITTLE)
    coincidences: dict[tuple[float, float], float] = defaultdict(float)
    for unit in pairable:
        weight = 1.0 / (len(unit) - 1)
        for i, c in enumerate(unit):
            for j, k in enumerate(unit):
                if i != j:
                    coincidences[(c, k)] += weight
    marginals: dict[float, float] = defaultdict(float)
    for (c, _), count in coincidences.items():
        marginals[c] += count
    if len(marginals) < 2:
        return Alpha(None, metric, len(pairable), n, ALL_AGREE)
    delta = _delta2(metric, marginals)
    observed = sum(count * delta[pair] for pair, count in coincidences.items())
    expected = sum(marginals[c] * marginals[k] * delta[(c, k)] for c in marginals for k in marginals)
    return Alpha(1.0 - (n - 1) * observed / expected, metric, len(pairable), n)


def _by_unit(ratings: Sequence[Rating]) -> dict[UnitKey, list[Rating]]:
    units: dict[UnitKey, list[Rating]] = defaultdict(list)
    for rating in ratings:
        units[rating.unit].append(rating)
    return units


def line_agreement(ratings: Sequence[Rating]) -> list[LineAgreement]:
    """Alpha per line that has any rating (ordinal for tier lines, interval for points), in first-seen order."""
    lines: dict[LineKey, dict[str, list[Rating]]] = defaultdict(lambda: defaultdict(list))
    for rating in ratings:
        lines[(rating.takehome, rating.line_id)][rating.submission].append(rating)
    result = []
    for (takehome, line_id), units in lines.items():
        every = [rating for unit in units.values() for rating in unit]
        alpha = krippendorff_alpha([[r.points for r in unit] for unit in units.values()], every[0].metric)
        reviewers = len({rating.reviewer for rating in every})
        result.append(LineAgreement(takehome, line_id, alpha, reviewers, len(every)))
    return result


def unscored_lines(ratings: Sequence[Rating], lines: Sequence[LineKey]) -> list[LineKey]:
    """The lines (of `lines`, in that order) nobody has scored."""
    scored = {(rating.takehome, rating.line_id) for rating in ratings}
    return [line for line in lines if line not in scored]


def disagreements(ratings: Sequence[Rating], limit: int | None = DISAGREEMENT_LIMIT) -> list[Disagreement]:
    """Units where reviewers' points differ, largest spread (relative to the line's maximum) first."""
    found = []
    for unit in _by_unit(ratings).values():
        if len(unit) < 2:
            continue
        ordered = sorted(unit, key=lambda r: (r.points, r.reviewer))
        low, high = ordered[0], ordered[-1]
        spread = high.points - low.points
        if spread <= 0:
            continue
        share = spread / high.max_points if high.max_points else None
        found.append(Disagreement(high, low, spread, share, len({r.reviewer for r in unit})))
    found.sort(key=lambda d: (-(d.share or 0.0), -d.spread, d.high.takehome, d.high.label, d.high.line_id))
    return found if limit is None else found[:limit]


def leniency(ratings: Sequence[Rating]) -> list[Leniency]:
    """Each reviewer's mean difference from the panel mean on shared units, per take-home."""
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    shares: dict[tuple[str, str], list[float | None]] = defaultdict(list)
    for unit in _by_unit(ratings).values():
        if len({rating.reviewer for rating in unit}) < 2:
            continue
        panel = fmean(rating.points for rating in unit)
        for rating in unit:
            key = (rating.takehome, rating.reviewer)
            points[key].append(rating.points - panel)
            shares[key].append((rating.points - panel) / rating.max_points if rating.max_points else None)
    result = []
    for (takehome, reviewer), differences in points.items():
        known = [share for share in shares[(takehome, reviewer)] if share is not None]
        mean_share = fmean(known) if len(known) == len(differences) else None
        result.append(Leniency(takehome, reviewer, len(differences), fmean(differences), mean_share))
    result.sort(key=lambda row: (row.takehome, -row.mean_points, row.reviewer))
    return result


# -- views -------------------------------------------------------------------------------------


def note(text: str) -> Html:
    """A short message in place of a table or figure (too little data, nothing selected)."""
    return Html(f'{STYLE}<div class="gl-card"><i>{html_visible(text)}</i></div>', text)


def _title(titles: Mapping[LineKey, str], takehome: str, line_id: str) -> str:
    return f"{takehome}: {titles.get((takehome, line_id), line_id)}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Rows of already-escaped cells."""
    header = "".join(f"<th>{html_visible(cell)}</th>" for cell in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{header}</tr>{body}</table>"


def alpha_text(alpha: Alpha) -> str:
    """Alpha as the tables show it: the number, or why there is none."""
    if alpha.alpha is None:
        return f"{alpha.reason} ({alpha.units} shared unit(s))" if alpha.reason == TOO_LITTLE else alpha.reason
    return f"{alpha.alpha:.3f}"


def agreement_view(ratings: Sequence[Rating], titles: Mapping[LineKey, str]) -> Html:
    """Alpha per line with the ratings behind it; lines nobody scored named below the table."""
    results = {(a.takehome, a.line_id): a for a in line_agreement(ratings)}
    order = [key for key in titles if key in results] + [key for key in results if key not in titles]
    rows = [
        [
            html_visible(_title(titles, *key)),
            html_visible(results[key].alpha.metric),
            html_visible(alpha_text(results[key].alpha)),
            str(results[key].alpha.units),
            str(results[key].alpha.values),
            str(results[key].ratings),
            str(results[key].reviewers),
        ]
        for key in order
    ]
    head = ("line", "metric", "alpha", "shared units", "pairable ratings", "all ratings", "reviewers")
    table = _table(head, rows) if rows else "<p><i>No reviewer has saved a score in this selection.</i></p>"
    missing = unscored_lines(ratings, list(titles))
    after = (
        f"<p>{html_visible(NOBODY_SCORED.capitalize())}: "
        f"{html_visible(', '.join(_title(titles, *k) for k in missing))}.</p>"
    )
    legend = (
        f"<p><small>Krippendorff's alpha: 1 = perfect agreement, 0 = no better than chance; "
        f"{GOOD_ALPHA} or more is reliable, below {ACCEPTABLE_ALPHA} is not. No number with fewer than "
        f"{MIN_UNITS} submissions scored by two or more reviewers.</small></p>"
    )
    text = "\n".join(f"{_title(titles, *key)}: {alpha_text(results[key].alpha)}" for key in order)
    return Html(f'{STYLE}<div class="gl-card">{table}{after if missing else ""}{legend}</div>', text)


def _rating_cell(rating: Rating) -> str:
    said = (
        f"<br><small>{html_visible(rating.comment[:600])}</small>"
        if rating.comment
        else "<br><small>(no comment)</small>"
    )
    return f"<b>{html_visible(rating.reviewer)}</b>: {html_visible(rating.value)}{said}"


def _link(report: str | None) -> str:
    return f'<a href="{html_visible(report)}">report</a>' if report else ""


def disagreements_view(
    ratings: Sequence[Rating], titles: Mapping[LineKey, str], limit: int = DISAGREEMENT_LIMIT
) -> Html:
    """The largest disagreements with both reviewers' comments and a link to the evidence."""
    found = disagreements(ratings, limit)
    if not found:
        return note("No disagreements: no unit was scored differently by two reviewers in this selection.")
    rows = [
        [
            html_visible(d.high.label),
            html_visible(d.high.submission),
            html_visible(_title(titles, d.high.takehome, d.high.line_id)),
            html_visible(f"{d.spread:g}" + (f" ({d.share:.0%} of the line)" if d.share is not None else "")),
            _rating_cell(d.high),
            _rating_cell(d.low),
            _link(d.high.report),
        ]
        for d in found
    ]
    table = _table(("submission", "name", "line", "spread", "highest", "lowest", "evidence"), rows)
    text = "\n".join(f"{d.high.label} {d.high.line_id}: {d.high.value} vs {d.low.value}" for d in found)
    return Html(f'{STYLE}<div class="gl-card">{table}</div>', text)


def leniency_view(ratings: Sequence[Rating]) -> Html:
    """Each reviewer against the panel mean, with how many shared units it rests on."""
    rows = leniency(ratings)
    if not rows:
        return note(f"{TOO_LITTLE.capitalize()}: no submission line was scored by two or more reviewers.")
    cells = [
        [
            html_visible(row.takehome),
            html_visible(row.reviewer),
            str(row.units),
            html_visible(f"{row.mean_points:+.2f}"),
            html_visible(f"{row.mean_share:+.1%}" if row.mean_share is not None else "-"),
        ]
        for row in rows
    ]
    head = ("take-home", "reviewer", "shared units", "mean difference (points)", "of the line's maximum")
    legend = "<p><small>Positive: more generous than the panel mean on the same lines; negative: stricter.</small></p>"
    text = "\n".join(f"{row.takehome} {row.reviewer}: {row.mean_points:+.2f} over {row.units}" for row in rows)
    return Html(f'{STYLE}<div class="gl-card">{_table(head, cells)}{legend}</div>', text)
