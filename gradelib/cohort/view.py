"""The cohort table as the summary shows it: line titles, tier words, who it waits for, refusals; CSV export."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from gradelib.cohort.table import (
    COUNT_COLUMNS,
    CSV_NAME,
    FROM_KIT,
    FROM_RESOLUTION,
    FROM_REVIEWERS,
    NO_SCORE,
    NOT_GRADED,
    SOURCE_SUFFIX,
    Cohort,
    is_refused,
    line_cell,
    line_columns,
)
from gradelib.display.render import STYLE, Html, table_html
from gradelib.safetext import html_visible
from gradelib.takehomes.rubric import RubricLine

SOURCE_CSS = {
    FROM_RESOLUTION: "font-weight:bold;background:#dafbe1",
    FROM_REVIEWERS: "font-weight:bold",
    FROM_KIT: "color:#57606a;font-style:italic",
    NO_SCORE: "",
}
RESOLVED_MARK = " \u2713 resolved"  # after a cell whose value the calibration meeting agreed
FLAG_CSS = "color:#cf222e"
NOWRAP_COLUMNS = ("submission", "name", "graded")
# Free text wraps (at spaces, a long word broken), each column at least as wide as reads well; an empty cell takes
# no room ("reviewer: line, line; ..." needs the most)
WRAP_COLUMNS = {"waiting_for": "min-width:16em", "decision": "min-width:10em", "flags": "min-width:10em"}
WRAP_CSS = {"white-space": "normal", "overflow-wrap": "break-word", "text-align": "left"}
# Each table scrolls sideways in a box of its own, its first column (the submission) kept in view. Without it a
# table wider than the window looks cut off: the cell's whole output (every take-home's table) is one area whose
# scrollbar, if any, sits below the last table. Inline, because JupyterLab's sanitiser keeps an allowed inline
# style where it drops a <style> block (an untrusted notebook's outputs): the scroll stays where the sticky
# column and the colours go.
SCROLL_CSS = "overflow-x:auto;max-width:100%"
STICKY_CSS = (
    "position:sticky;left:0;z-index:1;background-color:var(--jp-layout-color0, #fff);"
    "box-shadow:inset -1px 0 0 var(--jp-border-color2, #d0d7de)"
)
# the zebra stripe of odd rows, drawn over the sticky cell's opaque background
STRIPE_CSS = "background-image:linear-gradient(var(--jp-rendermime-table-row-background, #f5f5f5) 0 0)"
LEGEND = (
    "Green, \u2713 resolved: the value the calibration meeting agreed. Bold: the reviewers' consensus (mean of"
    " their current scores, with the nearest tier); grey italic: the kit's; -: no score yet. Waiting for: who"
    " still has to score which line."
)
LEGEND_CSS = "text-align:left;font-size:85%;color:#57606a;margin:2px 0 12px"
HIDDEN_IN_VIEW = ("status", *COUNT_COLUMNS)  # the flags text says the same; the CSV keeps them for sorting
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet would run these as formulas
HEADERS = {
    "submission": "submission",
    "max_total": "of",
    "waiting_for": "waiting for",
    "anchor": "anchor",
    "awaiting_review": "awaiting review",
}
REFUSED_HEADING = "Not graded: refused or failed"
REFUSED_NOTE = "The kit could not grade these submissions; each stays in the cohort with the reason."


def styled(
    table: pd.DataFrame,
    sort_by: str | None = None,
    ascending: bool = False,
    rubric_lines: Sequence[RubricLine] = (),
) -> Styler:
    """The table as a Styler: names and messages escaped, reviewer scores bold, the kit's grey, flags red.

    Line columns are headed by the rubric's titles and show tier words beside the mean;
    status and the flag counts are hidden (the flags text says the same); `sort_by` any column.
    The first column stays in view when the table scrolls sideways (`scrolling`); free text wraps.
    """
    if sort_by:
        table = table.sort_values(sort_by, ascending=ascending, na_position="last", kind="stable")
    lines = line_columns(table)
    by_id = {line.id: line for line in rubric_lines}
    shown = table.drop(columns=[c + SOURCE_SUFFIX for c in lines])
    for column in lines:
        if column in by_id:
            shown[column] = [
                line_cell(by_id[column], value) + (RESOLVED_MARK if source == FROM_RESOLUTION else "")
                for value, source in zip(table[column], table[column + SOURCE_SUFFIX], strict=True)
            ]

    def colours(frame: pd.DataFrame) -> pd.DataFrame:
        css = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for column in lines:
            css[column] = table[column + SOURCE_SUFFIX].map(SOURCE_CSS).fillna("")
        css["flags"] = [FLAG_CSS if flag else "" for flag in frame["flags"]]
        return css

    headers = {column: HEADERS.get(column, column) for column in shown.columns}
    headers |= {column: by_id[column].title if column in by_id else column for column in lines}
    styler = shown.style.format(precision=1, na_rep="-", escape="html").hide(axis="index")
    styler = styler.format(_report_cell, subset=["report"], escape="html", na_rep="")
    styler = styler.format("{:.0f}", subset=["max_total", *COUNT_COLUMNS], na_rep="-")
    styler = styler.format_index(lambda c: headers.get(c, c), escape="html", axis=1)
    styler = styler.hide(subset=list(HIDDEN_IN_VIEW), axis="columns")
    styler = styler.apply(colours, axis=None).set_properties(subset=list(NOWRAP_COLUMNS), **{"white-space": "nowrap"})
    wrapped = [column for column in WRAP_COLUMNS if column in shown.columns]
    styler = styler.set_properties(subset=wrapped, **WRAP_CSS)
    for column in wrapped:
        styler = styler.map(lambda text, css=WRAP_COLUMNS[column]: css if text else "", subset=[column])
    headings = [
        {"selector": f"th.col{shown.columns.get_loc(column)}", "props": "text-align:left"} for column in wrapped
    ]
    return styler.set_table_styles(
        [
            {"selector": "th:first-child, td:first-child", "props": STICKY_CSS},
            {"selector": "tbody tr:nth-child(odd) td:first-child", "props": STRIPE_CSS},
            *headings,  # above their text, which reads from the left
        ]
    )


def scrolling(table: str) -> str:
    """A table in a box of its own that scrolls sideways (SCROLL_CSS), the legend below it in view."""
    return (
        f'<div class="gl-scroll" style="{SCROLL_CSS}">{table}</div><p style="{LEGEND_CSS}">{html_visible(LEGEND)}</p>'
    )


def tables_view(cohort: Cohort) -> Html:
    """One styled table per take-home (only its own lines), then every submission the kit could not grade."""
    if cohort.table.empty:
        return Html(f'{STYLE}<div class="gl-card"><i>No submission matches this selection.</i></div>', "empty")
    parts, text = [], []
    for takehome, lines in cohort.rubric_lines.items():
        part = cohort.table[cohort.table.takehome == takehome]
        if not lines:
            continue  # a take-home the kit does not know: its submissions are in the table of refusals
        others = [c for c in line_columns(cohort.table) if c not in {line.id for line in lines}]
        part = part.drop(columns=["takehome", *others, *(c + SOURCE_SUFFIX for c in others)])
        parts.append(f"<h3>{html_visible(takehome)}</h3>{scrolling(styled(part, rubric_lines=lines).to_html())}")
        text.append(f"{takehome}: {len(part)} submission(s)")
    refused = [e for e in cohort.entries if is_refused(e)]
    if refused:
        rows = [
            {
                "take-home": e.submission.takehome,
                "submission": e.submission.blind_label,
                "name": e.submission.name,
                "from": e.submission.origin,
                "reason": (e.run.error if e.run and e.run.error else NOT_GRADED).splitlines()[0][:400],
            }
            for e in refused
        ]
        parts.append(
            f"<h3>{html_visible(REFUSED_HEADING)}</h3><p>{html_visible(REFUSED_NOTE)}</p>{STYLE}"
            f'<div class="gl-card">{table_html(rows)}</div>'
        )
        text.append(f"{REFUSED_HEADING}: {len(refused)}")
    return Html("".join(parts), "\n".join(text))


def _report_cell(link: Any) -> str:
    return f'<a href="{link}">report</a>' if isinstance(link, str) and link else ""  # already escaped by Styler


def export_table(table: pd.DataFrame, reports_dir: str | Path) -> Path:
    """Write the table as CSV beside the summary (formula-like text defused); returns the CSV path."""
    target = Path(reports_dir) / CSV_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    safe = table.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):
            safe[column] = safe[column].map(defuse)
    safe.to_csv(target, index=False)
    return target


def defuse(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run as a formula: text starting like one gets a leading quote."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) else value


def export_note(cohort: Cohort) -> Html:
    """Export the cohort table as CSV into the reports folder and link to it."""
    path = export_table(cohort.table, cohort.reports_dir)
    return Html(
        f'{STYLE}<div class="gl-card">{len(cohort.table)} row(s) written to <a href="{html_visible(path.name)}">'
        f"<code>{html_visible(path)}</code></a></div>",
        str(path),
    )
