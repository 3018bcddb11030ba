"""Charts of a cohort for the calibration meeting: each function returns a Figure, or a message when data is short.

Also the failure modes the failure chart counts, detected from the kit's stored results.
Figures are `matplotlib.figure.Figure` objects built without pyplot, so nothing leaks
between calls or into a notebook's global state; the notebook shows them as PNG pictures
(`drawing.draw`, which may take them from the process `gradelib summary` draws them in).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import cast

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from gradelib import takehomes
from gradelib.cohort import agreement
from gradelib.cohort.table import Cohort, Entry
from gradelib.display.render import STYLE, Html, table_html

WIDTH = 9.0  # inches: fits a notebook column and the HTML report at 100 dpi
LABEL_WRAP = 34  # characters per line of a tick label
MIX_COLOURS = {"full": "#1a7f37", "part": "#d4a72c", "none": "#cf222e", "missing": "#d0d7de"}
MIX_LABELS = {
    "full": "75% or more / strong",
    "part": "between / acceptable",
    "none": "25% or less / weak",
    "missing": "no score yet",
}
FULL_SHARE, NONE_SHARE = 0.75, 0.25  # on a 0/1/2 tier line: the consensus rounded to the nearest tier
TAKEHOME_COLOURS = ("#0969da", "#8250df", "#bf3989", "#1a7f37", "#9a6700")
REVIEWER_MARKERS = ("o", "s", "D", "^", "v", "P", "X", "*")
KIT_COLOUR = "#57606a"


def _wrap(text: str) -> str:
    return "\n".join(textwrap.wrap(text, LABEL_WRAP)) or text


def _colour(index: int) -> str:
    return TAKEHOME_COLOURS[index % len(TAKEHOME_COLOURS)]


def _figure(height: float, rows: int = 1) -> tuple[Figure, list[Axes]]:
    figure = Figure(figsize=(WIDTH, height), layout="constrained")
    axes = figure.subplots(rows, 1, squeeze=False)[:, 0]
    return figure, list(axes)


def score_distribution(cohort: Cohort) -> Figure | Html:
    """Histogram of total scores, one panel per take-home; incomplete totals are counted, not plotted."""
    table = cohort.table
    takehomes = [t for t in cohort.rubric_lines if table.loc[table.takehome == t, "total"].notna().any()]
    if not takehomes:
        return agreement.note("No complete totals yet: every submission still has a line awaiting a score.")
    figure, axes_list = _figure(1.2 + 2.3 * len(takehomes), len(takehomes))
    for index, (takehome, axes) in enumerate(zip(takehomes, axes_list, strict=True)):
        rows = table[table.takehome == takehome]
        totals = rows["total"].dropna()
        maximum = float(rows["max_total"].max()) if rows["max_total"].notna().any() else float(totals.max())
        bins = [maximum * step / 10 for step in range(11)] if maximum > 0 else 10
        axes.hist(totals, bins=bins, color=_colour(index), edgecolor="white")
        axes.set_xlim(0, maximum if maximum > 0 else None)
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel(f"total points (of {maximum:g})")
        axes.set_ylabel("submissions")
        waiting = len(rows) - len(totals)
        extra = f"; {waiting} without a total yet" if waiting else ""
        axes.set_title(f"{takehome}: total score, {len(totals)} submission(s){extra}", fontsize=12)
        axes.grid(axis="y", alpha=0.3)
    figure.suptitle("Score distribution per take-home", fontsize=14)
    return figure


def _mix(value: float, maximum: float | None) -> str:
    if math.isnan(value):
        return "missing"
    share = value / maximum if maximum else float(value > 0)
    return "full" if share >= FULL_SHARE else "none" if share <= NONE_SHARE else "part"


def line_mix(cohort: Cohort) -> Figure | Html:
    """Per rubric line, how many submissions scored high, middling or low: lines that separate, lines all fail.

    A submission's line score (the reviewers' consensus, else the kit's) counts as high
    from 75% of the line's maximum, low up to 25%; on a weak/acceptable/strong line that is
    the consensus rounded to the nearest tier.
    """
    table = cohort.table
    takehomes = [t for t, lines in cohort.rubric_lines.items() if lines and (table.takehome == t).any()]
    if not takehomes:
        return agreement.note("No graded submission with rubric lines in this selection.")
    heights = [len(cohort.rubric_lines[t]) for t in takehomes]
    figure = Figure(figsize=(WIDTH, 1.4 + 0.62 * sum(heights) + 0.8 * len(takehomes)), layout="constrained")
    axes_list = figure.subplots(len(takehomes), 1, squeeze=False, height_ratios=heights)[:, 0]
    for takehome, axes in zip(takehomes, axes_list, strict=True):
        rows = table[table.takehome == takehome]
        lines = cohort.rubric_lines[takehome]
        for position, line in enumerate(lines):
            kinds = [_mix(float(v), line.max_points) for v in rows[line.id]]
            left = 0
            for kind in MIX_COLOURS:
                count = kinds.count(kind)
                if count:
                    axes.barh(position, count, left=left, color=MIX_COLOURS[kind], edgecolor="white")
                    axes.text(left + count / 2, position, str(count), ha="center", va="center", fontsize=10)
                    left += count
        axes.set_yticks(range(len(lines)), [_wrap(line.title) for line in lines], fontsize=10)
        axes.invert_yaxis()
        axes.set_xlim(0, len(rows))
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_xlabel("submissions")
        axes.set_title(f"{takehome} ({len(rows)} submissions)", fontsize=12)
    handles = [Patch(facecolor=MIX_COLOURS[kind], label=MIX_LABELS[kind]) for kind in MIX_COLOURS]
    figure.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=10, frameon=False)
    figure.suptitle("Score mix per rubric line (reviewers' consensus, else the kit)", fontsize=14)
    return figure


def reviewer_comparison(cohort: Cohort) -> Figure | Html:
    """Each reviewer's mean score per line (share of the line's maximum) beside the kit's, per take-home."""
    ratings = [r for r in cohort.ratings if r.max_points]
    takehomes = [t for t in cohort.rubric_lines if any(r.takehome == t for r in ratings)]
    if not takehomes:
        return agreement.note("No reviewer scores in this selection yet: nothing to compare.")
    reviewers = sorted({r.reviewer for r in ratings})
    heights = [len(cohort.rubric_lines[t]) for t in takehomes]

    def slot(number: int) -> float:  # each reviewer, then the kit, on its own row within a line
        return (number - len(reviewers) / 2) * 0.18

    figure = Figure(figsize=(WIDTH, 1.6 + 0.5 * sum(heights) + 0.8 * len(takehomes)), layout="constrained")
    axes_list = figure.subplots(len(takehomes), 1, squeeze=False, height_ratios=heights)[:, 0]
    for takehome, axes in zip(takehomes, axes_list, strict=True):
        lines = cohort.rubric_lines[takehome]
        entries = [e for e in cohort.entries if e.submission.takehome == takehome]
        for position, line in enumerate(lines):
            kit = [p for p in (e.lines[line.id].points for e in entries if line.id in e.lines) if p is not None]
            if kit and line.max_points:
                axes.plot(
                    100 * fmean(kit) / line.max_points,
                    position + slot(len(reviewers)),
                    "x",
                    color=KIT_COLOUR,
                    markersize=9,
                )
            for number, reviewer in enumerate(reviewers):
                mine = [
                    r.points / (r.max_points or 1)
                    for r in ratings
                    if r.takehome == takehome and r.line_id == line.id and r.reviewer == reviewer
                ]
                if mine:
                    axes.plot(
                        100 * fmean(mine),
                        position + slot(number),
                        REVIEWER_MARKERS[number % 8],
                        color=_colour(number),
                        markersize=7,
                        linestyle="none",
                    )
        axes.set_yticks(range(len(lines)), [_wrap(line.title) for line in lines], fontsize=10)
        axes.invert_yaxis()
        axes.set_xlim(-5, 105)
        axes.set_xlabel("mean score (% of the line's maximum)")
        axes.set_title(takehome, fontsize=12)
        axes.grid(axis="x", alpha=0.3)
    handles = [
        Line2D([], [], marker=REVIEWER_MARKERS[i % 8], color=_colour(i), linestyle="none", label=reviewer)
        for i, reviewer in enumerate(reviewers)
    ]
    handles.append(
        Line2D([], [], marker="x", color=KIT_COLOUR, linestyle="none", label="kit's own score (lines it scored)")
    )
    figure.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 5), fontsize=10, frameon=False)
    figure.suptitle("Per-reviewer score comparison", fontsize=14)
    return figure


def failure_chart(cohort: Cohort) -> Figure | Html:
    """How many submissions show each failure mode seen in the cohort."""
    frame = failure_modes(cohort)
    if frame.empty:
        return agreement.note(f"No failure mode seen among the {len(cohort.entries)} selected submission(s).")
    takehomes = list(dict.fromkeys(frame["takehome"]))
    figure, (axes,) = _figure(1.4 + 0.42 * len(frame))
    colours = [_colour(takehomes.index(t)) for t in frame["takehome"]]
    positions = range(len(frame))
    axes.barh(positions, frame["count"], color=colours)
    for position, count in zip(positions, frame["count"], strict=True):
        axes.text(count, position, f" {count}", va="center", fontsize=10)
    axes.set_yticks(
        positions, [_wrap(f"{t}: {m}") for t, m in zip(frame["takehome"], frame["mode"], strict=True)], fontsize=10
    )
    axes.invert_yaxis()
    axes.set_xlim(0, max(frame["count"]) * 1.15 + 0.5)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(f"submissions (of {len(cohort.entries)} selected)")
    axes.set_title("Failure modes seen across the cohort", fontsize=14)
    return figure


def agreement_chart(cohort: Cohort) -> Figure | Html:
    """Krippendorff's alpha per line, with the ratings behind it; lines without an honest number say why."""
    titles = cohort.titles
    order = {key: position for position, key in enumerate(titles)}
    results = sorted(agreement.line_agreement(cohort.ratings), key=lambda r: order.get((r.takehome, r.line_id), 0))
    if not results:
        return agreement.note("No reviewer scores in this selection: agreement needs two reviewers on the same lines.")
    figure, (axes,) = _figure(1.5 + 0.45 * len(results))
    low = min([-0.2] + [r.alpha.alpha for r in results if r.alpha.alpha is not None])
    for position, result in enumerate(results):
        value = result.alpha.alpha
        if value is None:
            axes.text(0.02, position, agreement.alpha_text(result.alpha), va="center", fontsize=10, color=KIT_COLOUR)
            continue
        colour = (
            "#1a7f37"
            if value >= agreement.GOOD_ALPHA
            else "#d4a72c"
            if value >= agreement.ACCEPTABLE_ALPHA
            else "#cf222e"
        )
        axes.barh(position, value, color=colour)
        axes.text(max(value, 0) + 0.02, position, f"{value:.2f} (n={result.alpha.values})", va="center", fontsize=10)
    labels = [_wrap(f"{r.takehome}: {titles.get((r.takehome, r.line_id), r.line_id)}") for r in results]
    axes.set_yticks(range(len(results)), labels, fontsize=10)
    axes.invert_yaxis()
    axes.axvline(0, color="black", linewidth=0.8)
    axes.axvline(agreement.GOOD_ALPHA, color="#1a7f37", linestyle="--", linewidth=0.8, label="0.8: reliable")
    axes.axvline(agreement.ACCEPTABLE_ALPHA, color="#d4a72c", linestyle=":", linewidth=0.8, label="0.667: tentative")
    axes.set_xlim(low - 0.05, 1.35)
    axes.set_xlabel("Krippendorff's alpha (ordinal for tiers, interval for points; n = pairable ratings)")
    axes.set_title("Reviewer agreement per rubric line", fontsize=14)
    figure.legend(loc="outside lower center", ncols=2, fontsize=10, frameon=False)
    return figure


def leniency_chart(cohort: Cohort) -> Figure | Html:
    """Each reviewer's mean difference from the panel (% of the line's maximum), per take-home."""
    rows = [row for row in agreement.leniency(cohort.ratings) if row.mean_share is not None]
    if not rows:
        return agreement.note("Too little data for leniency: no line was scored by two or more reviewers.")
    takehomes = list(dict.fromkeys(row.takehome for row in rows))
    figure, (axes,) = _figure(1.5 + 0.4 * len(rows))
    for position, row in enumerate(rows):
        share = 100 * (row.mean_share or 0.0)
        axes.barh(position, share, color=_colour(takehomes.index(row.takehome)))
        axes.text(
            share,
            position,
            f" {share:+.1f}% ({row.units} units) ",
            va="center",
            fontsize=10,
            ha="left" if share >= 0 else "right",
        )
    axes.set_yticks(range(len(rows)), [f"{row.takehome}: {row.reviewer}" for row in rows], fontsize=10)
    axes.invert_yaxis()
    reach = max(abs(100 * (row.mean_share or 0.0)) for row in rows)
    axes.set_xlim(-reach * 1.6 - 1, reach * 1.6 + 1)
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_xlabel("mean difference from the panel mean (% of the line's maximum); > 0: more lenient")
    axes.set_title("Reviewer leniency against the panel mean", fontsize=14)
    return figure


@dataclass(frozen=True)
class CohortFailure:
    """A take-home's failure mode (from its plugin), or one of the kit's own (`takehome` None)."""

    takehome: str | None  # None: any take-home
    label: str
    seen: Callable[[Entry], bool]


KIT_FAILURES: tuple[CohortFailure, ...] = (
    CohortFailure(None, "kit error on a line", lambda e: any(line.outcome == "error" for line in e.lines.values())),
    CohortFailure(None, "grading run failed", lambda e: e.run is not None and e.run.status == "error"),
)


def cohort_failures() -> tuple[CohortFailure, ...]:
    """Every installed take-home's failure modes, then the kit's own."""
    found = [
        CohortFailure(plugin.id, mode.label, cast(Callable[[Entry], bool], mode.seen))  # an Entry is an EntryView
        for plugin in takehomes.available()
        for mode in plugin.failure_modes
    ]
    return (*found, *KIT_FAILURES)


def failure_modes(cohort: Cohort, modes: Sequence[CohortFailure] | None = None) -> pd.DataFrame:
    """How many submissions show each failure mode seen at least once (takehome, mode, count, submissions)."""
    rows = []
    for mode in cohort_failures() if modes is None else modes:
        hits = [e for e in cohort.entries if mode.takehome in (None, e.submission.takehome) and mode.seen(e)]
        if hits:
            takehome = mode.takehome or ", ".join(dict.fromkeys(e.submission.takehome for e in hits))
            labels = ", ".join(f"{e.submission.blind_label} ({e.submission.name})" for e in hits)
            rows.append({"takehome": takehome, "mode": mode.label, "count": len(hits), "submissions": labels})
    return pd.DataFrame(rows, columns=["takehome", "mode", "count", "submissions"])


def failure_view(cohort: Cohort) -> Html:
    """The failure modes as an escaped table naming the submissions."""
    frame = failure_modes(cohort)
    if frame.empty:
        return Html(f'{STYLE}<div class="gl-card"><i>No failure mode seen in this selection.</i></div>', "none")
    return Html(f'{STYLE}<div class="gl-card">{table_html(frame.to_dict("records"))}</div>', frame.to_string())


CHARTS = (score_distribution, line_mix, reviewer_comparison, failure_chart, agreement_chart, leniency_chart)
