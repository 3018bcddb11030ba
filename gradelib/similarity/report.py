"""The "similar submissions" section of a report: computed by the batch for each graded submission (the
other side by its label, the matched fragments side by side), stored in the gradebook, shown by a cell."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gradelib.display.render import STYLE, Html
from gradelib.gradebook import Gradebook
from gradelib.gradebook.identity import lookup
from gradelib.safetext import clipped_text, html_visible
from gradelib.similarity.cohort import Side, SimilarPair, cohort_pairs
from gradelib.similarity.pairs import THRESHOLD, Fragment, Span

MAX_FRAGMENTS = 5  # per pair, the longest first
MAX_FRAGMENT_LINES = 40
MAX_EXAMPLES = 4  # files named per reason left out
NOT_COMPUTED = "No batch compared this submission's code with the others yet (`gradelib grade` does)."
NONE_FOUND = "No other submission shares {share:.0%} or more of its code with this one."
SECTION_NOTE = (
    "Covered share: how much of each side's own code (handout files and the task's common idioms aside) "
    "lies in fragments that match, after names, literals, comments and layout are set aside."
)


def _lines(side: Side, span: Span) -> dict[str, Any]:
    text = next((file.text for file in side.files if file.path == span.path), "")
    lines = text.splitlines()[span.first - 1 : span.last]
    shown = lines[:MAX_FRAGMENT_LINES]
    return {"path": span.path, "first": span.first, "lines": shown, "more": len(lines) > len(shown)}


def _fragment(pair: SimilarPair, fragment: Fragment, here_is_a: bool) -> dict[str, Any]:
    here, there = (fragment.a, fragment.b) if here_is_a else (fragment.b, fragment.a)
    sides = (pair.a, pair.b) if here_is_a else (pair.b, pair.a)
    return {"here": _lines(sides[0], here), "there": _lines(sides[1], there)}


def _entry(pair: SimilarPair, here_is_a: bool, reports: Mapping[str, str]) -> dict[str, Any]:
    other = pair.b if here_is_a else pair.a
    share_here, share_there = (
        (pair.match.a_share, pair.match.b_share) if here_is_a else (pair.match.b_share, pair.match.a_share)
    )
    return {
        "label": other.label,
        "report": None if other.earlier else reports.get(other.name),
        "earlier": other.earlier,
        "share_here": round(share_here, 3),
        "share_there": round(share_there, 3),
        "longest_lines": pair.match.longest,
        "fragments": [_fragment(pair, item, here_is_a) for item in pair.match.fragments[:MAX_FRAGMENTS]],
    }


def report_views(
    book: Gradebook, takehome: str, reports: Mapping[str, str], *, reveal: bool = False, threshold: float = THRESHOLD
) -> dict[str, str]:
    """Each graded submission's similar-submissions view (JSON, by candidate name); `reports` maps each name
    to its report's file name, for the link from the other side."""
    pairs = cohort_pairs(book, takehome, threshold=threshold, reveal=reveal)
    skipped = {source.name: source.skipped for source in book.code_sources(takehome) if not source.earlier}
    entries: dict[str, list[dict[str, Any]]] = {name: [] for name in skipped}
    for pair in pairs:
        entries.setdefault(pair.a.name, []).append(_entry(pair, True, reports))
        if not pair.b.earlier:
            entries.setdefault(pair.b.name, []).append(_entry(pair, False, reports))
    return {
        name: json.dumps(
            {"threshold": threshold, "pairs": found, "skipped": [list(item) for item in skipped.get(name, ())]}
        )
        for name, found in entries.items()
    }


def similar_submissions(gradebook: str | Path | None, takehome: str, label: str | Path | None) -> Html:
    """The report's "similar submissions" section, from what the batch stored in the gradebook."""
    payload = None
    if gradebook and label and Path(gradebook).is_file():
        with Gradebook(Path(gradebook), readonly=True) as book:
            row = lookup(book, takehome, str(label))
            payload = book.similar_view(takehome, row.name) if row else None
    if payload is None:
        return Html(f'{STYLE}<div class="gl-card"><p>{html_visible(NOT_COMPUTED)}</p></div>', NOT_COMPUTED)
    return view_html(json.loads(payload))


def _side_html(side: Mapping[str, Any]) -> str:
    rows = "".join(
        f'<span class="gl-line"><span style="color:#8c959f">{number:>4}</span>  {html_visible(line) or "&nbsp;"}</span>'
        for number, line in enumerate(side.get("lines", []), int(side.get("first", 1)))
    )
    more = '<span class="gl-line">...</span>' if side.get("more") else ""
    return f"<b>{html_visible(side.get('path', ''))}</b><pre>{rows}{more}</pre>"


def _pair_html(entry: Mapping[str, Any]) -> str:
    other = html_visible(entry.get("label", ""))
    link = entry.get("report")
    title = f'<a href="{html_visible(link)}">{other}</a>' if link else other
    where = " (an earlier cohort)" if entry.get("earlier") else ""
    head = (
        f"<p><b>{title}</b>{where}: {float(entry.get('share_here', 0)):.0%} of this submission's code, "
        f"{float(entry.get('share_there', 0)):.0%} of theirs; "
        f"longest match {int(entry.get('longest_lines', 0))} lines</p>"
    )
    fragments = "".join(
        f"<tr><td>{_side_html(item.get('here', {}))}</td><td>{_side_html(item.get('there', {}))}</td></tr>"
        for item in entry.get("fragments", [])
    )
    table = f"<table><tr><th>this submission</th><th>{other}</th></tr>{fragments}</table>" if fragments else ""
    return head + table


def _text(view: Mapping[str, Any]) -> str:
    pairs: Sequence[Mapping[str, Any]] = view.get("pairs", [])
    if not pairs:
        return NONE_FOUND.format(share=float(view.get("threshold", THRESHOLD)))
    return "\n".join(
        clipped_text(
            f"{pair.get('label')}{' (earlier cohort)' if pair.get('earlier') else ''}: "
            f"{float(pair.get('share_here', 0)):.0%} here, {float(pair.get('share_there', 0)):.0%} there, "
            f"longest {pair.get('longest_lines')} lines"
        )
        for pair in pairs
    )


def _examples(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:MAX_EXAMPLES])
    return shown + (f" and {len(paths) - MAX_EXAMPLES} more" if len(paths) > MAX_EXAMPLES else "")


def view_html(view: Mapping[str, Any]) -> Html:
    """A stored view as HTML: each similar submission with its fragments side by side, then what was left out."""
    pairs = view.get("pairs", [])
    body = (
        "".join(_pair_html(entry) for entry in pairs)
        if pairs
        else f"<p>{html_visible(NONE_FOUND.format(share=float(view.get('threshold', THRESHOLD))))}</p>"
    )
    skipped = view.get("skipped", [])
    left_out = ""
    if skipped:
        by_reason: dict[str, list[str]] = {}
        for path, why in skipped:
            by_reason.setdefault(str(why), []).append(str(path))
        items = "".join(
            f"<tr><td>{html_visible(why)}</td><td>{len(paths)}</td><td>{html_visible(_examples(paths))}</td></tr>"
            for why, paths in by_reason.items()
        )
        summary = f"<summary>Left out of the comparison: {len(skipped)} file(s)</summary>"
        head = "<tr><th>why</th><th>files</th><th>which</th></tr>"
        left_out = f"<details>{summary}<table>{head}{items}</table></details>"
    note = f'<p style="color:#57606a">{html_visible(SECTION_NOTE)}</p>'
    return Html(f'{STYLE}<div class="gl-card">{body}{note}{left_out}</div>', _text(view))
