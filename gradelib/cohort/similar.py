"""The summary's similarity section: the cohort's pairs of submissions that share code, as a ranked chart and a
table (labels beside names, as everywhere in the summary), with links to both reports."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

from matplotlib.figure import Figure

from gradelib.cohort import agreement
from gradelib.cohort.table import Cohort
from gradelib.display.render import STYLE, Html
from gradelib.errors import GradebookError
from gradelib.gradebook import Gradebook
from gradelib.safetext import html_visible
from gradelib.similarity import THRESHOLD, SimilarPair, cohort_pairs, refresh
from gradelib.takehomes.bases import handout_base

MAX_BARS = 25
NONE_FOUND = "No pair of submissions shares {share:.0%} or more of either side's code."
SIDE_COLOURS = ("#cf222e", "#d4a72c")


@functools.lru_cache(maxsize=4)
def _pairs(gradebook: Path, digest: str, takehomes: tuple[str, ...]) -> tuple[SimilarPair, ...]:
    del digest  # part of the key only: the same cohort read again gives the same pairs
    if not gradebook.is_file():
        return ()
    with Gradebook(gradebook) as book:
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
