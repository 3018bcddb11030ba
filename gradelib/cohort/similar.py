"""The summary's similarity section: the cohort's pairs of submissions that share code, as a ranked chart and a
table (labels beside names, as everywhere in the summary), with links to both reports; and every pair's
score per take-home as a histogram, the threshold marked and the flagged pairs named (also `similarity scan
--html`)."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure

from gradelib.cohort import agreement, drawing
from gradelib.cohort.table import Cohort
from gradelib.display.render import STYLE, Html, table_html
from gradelib.errors import GradebookError
from gradelib.gradebook import Gradebook
from gradelib.safetext import html_visible
from gradelib.similarity import THRESHOLD, SimilarPair, cohort_pairs, refresh
from gradelib.similarity.handoutbase import handout_base
from gradelib.similarity.scan import Scan

MAX_BARS = 25
BINS = 20  # the histogram's bins: 5 % of a side's code each
MAX_NAMED = 6  # flagged pairs named on a histogram
NONE_FOUND = "No pair of submissions shares {share:.0%} or more of either side's code."
SIDE_COLOURS = ("#cf222e", "#d4a72c")


@functools.lru_cache(maxsize=4)
def _pairs(gradebook: Path, digest: str, takehomes: tuple[str, ...]) -> tuple[SimilarPair, ...]:
    del digest  # part of the key only: the same cohort read again gives the same pairs
    if not gradebook.is_file():
        return ()
    with Gradebook(gradebook, readonly=True) as book:
        for takehome in takehomes:
            with contextlib.suppress(GradebookError):  # read-only: what an earlier kit kept is left out
                refresh(book, takehome, handout_base(takehome))
        return tuple(pair for takehome in takehomes for pair in cohort_pairs(book, takehome, reveal=True))


def cohort_similar(cohort: Cohort) -> list[SimilarPair]:
    """The pairs above the threshold with at least one side in this selection (names as labels)."""
    names = {(entry.submission.takehome, entry.submission.name) for entry in cohort.entries}
    found = _pairs(Path(cohort.gradebook), cohort.digest, tuple(cohort.rubric_lines))
    return [pair for pair in found if (pair.takehome, pair.a.name) in names or (pair.takehome, pair.b.name) in names]


def _side(cohort: Cohort, pair: SimilarPair, which: str) -> str:
    side = pair.a if which == "a" else pair.b
    if side.earlier:
        return f"{side.name} (earlier cohort)"
    entry = next(
        (e for e in cohort.entries if e.submission.takehome == pair.takehome and e.submission.name == side.name),
        None,
    )
    return f"{entry.submission.blind_label} ({side.name})" if entry else side.name


def similarity_chart(cohort: Cohort) -> Figure | Html:
    """Each pair's covered share of either side, largest first (at most MAX_BARS)."""
    pairs = cohort_similar(cohort)[:MAX_BARS]
    if not pairs:
        return agreement.note(NONE_FOUND.format(share=THRESHOLD))
    figure = Figure(figsize=(9.0, 1.2 + 0.45 * len(pairs)), layout="constrained")
    axes = figure.subplots()
    rows = list(range(len(pairs)))[::-1]
    names = [f"{pair.takehome}: {_side(cohort, pair, 'a')} ~ {_side(cohort, pair, 'b')}" for pair in pairs]
    axes.barh([r + 0.2 for r in rows], [p.match.a_share for p in pairs], 0.4, color=SIDE_COLOURS[0], label="left")
    axes.barh([r - 0.2 for r in rows], [p.match.b_share for p in pairs], 0.4, color=SIDE_COLOURS[1], label="right")
    axes.set_yticks(rows, names, fontsize=9)
    axes.set_xlim(0, 1)
    axes.axvline(THRESHOLD, color="#57606a", linestyle="--", linewidth=1)
    axes.set_xlabel("share of the side's own code covered by matching fragments")
    axes.legend(["threshold", "left side's share", "right side's share"], loc="lower right", fontsize=8)
    axes.set_title("Submissions that share code", fontsize=12)
    return figure


def _link(report: str | None, text: str) -> str:
    return f'<a href="{html_visible(report)}">{html_visible(text)}</a>' if report else html_visible(text)


def similarity_view(cohort: Cohort) -> Html:
    """A row per pair: both sides (label and name, linked to each report), their shares, the longest match."""
    pairs = cohort_similar(cohort)
    if not pairs:
        message = NONE_FOUND.format(share=THRESHOLD)
        return Html(f'{STYLE}<div class="gl-card"><p>{html_visible(message)}</p></div>', message)
    links = {(e.submission.takehome, e.submission.name): e.report for e in cohort.entries}
    head = "".join(
        f"<th>{html_visible(title)}</th>"
        for title in ("take-home", "left", "left share", "right", "right share", "longest match (lines)")
    )
    rows, text = [], []
    for pair in pairs:
        left, right = _side(cohort, pair, "a"), _side(cohort, pair, "b")
        cells = (
            html_visible(pair.takehome),
            _link(None if pair.a.earlier else links.get((pair.takehome, pair.a.name)), left),
            f"{pair.match.a_share:.0%}",
            _link(None if pair.b.earlier else links.get((pair.takehome, pair.b.name)), right),
            f"{pair.match.b_share:.0%}",
            str(pair.match.longest),
        )
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        text.append(f"{pair.takehome}: {left} ~ {right} ({pair.match.a_share:.0%}/{pair.match.b_share:.0%})")
    table = f"<table><tr>{head}</tr>{''.join(rows)}</table>"
    return Html(f'{STYLE}<div class="gl-card">{table}</div>', "\n".join(text))


@dataclass(frozen=True)
class PairScores:
    """One take-home's pair scores for the histogram: every pair measured, how many shared too little to be
    measured (they count at 0), and the flagged pairs' names."""

    takehome: str
    shares: tuple[float, ...]
    unmeasured: int
    flagged: tuple[tuple[str, float], ...]  # ("Submission #1 ~ Submission #4", share), largest first


def pair_scores(takehome: str, pairs: Sequence[SimilarPair], total: int, threshold: float = THRESHOLD) -> PairScores:
    """The histogram's data: `pairs` measured (any share), out of `total` pairs of the take-home."""
    shares = tuple(pair.match.share for pair in pairs)
    flagged = tuple(
        (f"{pair.a.label} ~ {pair.b.label}", pair.match.share) for pair in pairs if pair.match.share >= threshold
    )
    return PairScores(takehome, shares, max(total - len(shares), 0), tuple(sorted(flagged, key=lambda f: -f[1])))


def pair_histogram(scores: Sequence[PairScores], threshold: float = THRESHOLD) -> Figure | Html:
    """Every pair's score per take-home, as a meeting looks at it: a histogram of the shares (pairs that share
    too little to be measured at 0), the threshold marked, the flagged pairs named."""
    shown = [item for item in scores if item.shares or item.unmeasured]
    if not shown:
        return agreement.note("No pairs of submissions to compare yet.")
    figure = Figure(figsize=(9.0, 2.6 * len(shown)), layout="constrained")
    bins = [step / BINS for step in range(BINS + 1)]
    for axes, item in zip(figure.subplots(len(shown), 1, squeeze=False)[:, 0], shown, strict=True):
        values = [*item.shares, *([0.0] * item.unmeasured)]
        axes.hist(values, bins=bins, color="#8c959f", edgecolor="white")
        axes.hist([share for _, share in item.flagged], bins=bins, color=SIDE_COLOURS[0], edgecolor="white")
        axes.axvline(threshold, color="#57606a", linestyle="--", linewidth=1)
        axes.set_xlim(0, 1)
        axes.set_yscale("symlog", linthresh=5)
        axes.set_ylabel("pairs")
        axes.set_title(f"{item.takehome}: {len(values)} pairs, {len(item.flagged)} at or above {threshold:.0%}")
        for row, (name, share) in enumerate(item.flagged[:MAX_NAMED]):
            axes.annotate(
                f"{name} ({share:.0%})", xy=(1.0, 0.92 - 0.12 * row), xycoords="axes fraction", ha="right",
                fontsize=8, color=SIDE_COLOURS[0],
            )  # fmt: skip
    figure.axes[-1].set_xlabel("share of either side's own code covered by fragments matching the other")
    return figure


def score_histogram(cohort: Cohort) -> Figure | Html:
    """The summary's histogram of every pair's score per take-home in the gradebook (labels beside names)."""
    found = []
    for takehome in cohort.rubric_lines:
        every = _every_pair(Path(cohort.gradebook), cohort.digest, takehome)
        graded = {e.submission.name for e in cohort.entries if e.submission.takehome == takehome}
        earlier = {side.name for pair in every for side in (pair.a, pair.b) if side.earlier}
        total = len(graded) * (len(graded) - 1) // 2 + len(graded) * len(earlier)
        named = [_named(cohort, pair) for pair in every]
        found.append(pair_scores(takehome, named, total))
    return pair_histogram(found)


@functools.lru_cache(maxsize=4)
def _every_pair(gradebook: Path, digest: str, takehome: str) -> tuple[SimilarPair, ...]:
    del digest  # part of the key only
    if not gradebook.is_file():
        return ()
    with Gradebook(gradebook, readonly=True) as book:
        return tuple(cohort_pairs(book, takehome, threshold=0.0, reveal=True))


def _named(cohort: Cohort, pair: SimilarPair) -> SimilarPair:
    """The pair with each side shown as the summary shows it (label and name)."""
    sides = [
        dataclasses.replace(side, label=_side(cohort, pair, which)) for side, which in ((pair.a, "a"), (pair.b, "b"))
    ]
    return dataclasses.replace(pair, a=sides[0], b=sides[1])


def scan_html(found: Scan, threshold: float = THRESHOLD) -> str:
    """The scan as one HTML page a meeting looks at: per take-home, the histogram of every pair's score (the
    threshold marked, the flagged pairs named), then the pairs as a table, highest first (all escaped)."""
    parts = [f"<!doctype html><meta charset='utf-8'><title>gradelib similarity scan</title>{STYLE}"]
    parts.append("<h1>Similar submissions</h1>")
    for takehome, count in found.submissions.items():
        pairs = [pair for pair in found.pairs if pair.takehome == takehome]
        total = count * (count - 1) // 2
        chart = pair_histogram([pair_scores(takehome, pairs, total, threshold)], threshold)
        picture = chart.body if isinstance(chart, Html) else _img(drawing.png(chart))
        rows = [
            {
                "left": pair.a.label, "right": pair.b.label, "share": f"{pair.match.share:.0%}",
                "left share": f"{pair.match.a_share:.0%}", "right share": f"{pair.match.b_share:.0%}",
                "longest match (lines)": pair.match.longest,
            }
            for pair in pairs
        ]  # fmt: skip
        title = html_visible(f"{takehome}: {count} submissions, {total} pairs")
        parts.append(f"<div class='gl-card'><h2>{title}</h2>{picture}{table_html(rows)}</div>")
    for problem in found.problems:
        parts.append(f"<div class='gl-card'>not scanned: {html_visible(problem)}</div>")
    return "\n".join(parts) + "\n"


def _img(png: bytes) -> str:
    return f"<img alt='histogram of pair scores' src='data:image/png;base64,{base64.b64encode(png).decode()}'>"
