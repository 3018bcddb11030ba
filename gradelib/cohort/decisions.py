"""The decisions table: one recorded decision per candidate, with the total it rests on; CSV for a hiring system."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from gradelib.cohort.agreement import note
from gradelib.cohort.table import Cohort, is_refused
from gradelib.cohort.view import defuse
from gradelib.display.render import STYLE, Html, table_html
from gradelib.gradebook.exchange import atomic_file, csv_cell
from gradelib.safetext import html_visible

COLUMNS = ("takehome", "submission", "name", "total", "max_total", "decision", "reason", "decided_by", "decided_at")
UNDECIDED = ""
CSV_NAME = "decisions.csv"


def decision_rows(cohort: Cohort, *, reveal: bool = False) -> list[dict[str, Any]]:
    """One row per graded candidate, in the cohort table's order: total, the decision in force (or blank)."""
    entries = {(e.submission.takehome, e.submission.blind_label): e for e in cohort.entries if not is_refused(e)}
    rows = []
    for record in cohort.table.to_dict("records"):
        entry = entries.get((record["takehome"], record["submission"]))
        if entry is None:
            continue
        decision = entry.decision
        total = record["total"]
        rows.append(
            {
                "takehome": entry.submission.takehome,
                "submission": entry.submission.blind_label,
                "name": entry.submission.name if reveal else "",
                "total": None if total is None or math.isnan(total) else round(float(total), 2),
                "max_total": None if math.isnan(record["max_total"]) else round(float(record["max_total"]), 2),
                "decision": decision.decision if decision else UNDECIDED,
                "reason": decision.reason if decision else "",
                "decided_by": decision.decided_by if decision else "",
                "decided_at": decision.created_at if decision else "",
            }
        )
    return rows


def decisions_view(cohort: Cohort) -> Html:
    """The decisions table (names shown: the summary is the lead's view), undecided candidates included."""
    rows = decision_rows(cohort, reveal=True)
    if not rows:
        return note("No graded submission in this selection.")
    shown = [{k: ("-" if v in (None, "") and k == "total" else v) for k, v in row.items()} for row in rows]
    decided = sum(bool(row["decision"]) for row in rows)
    legend = (
        f"<p><small>{decided} of {len(rows)} candidate(s) decided. Record a decision below (or <code>gradelib"
        " decide</code>); <code>gradelib export --decisions FILE.csv</code> writes this table for a hiring"
        " system (blind unless <code>--reveal</code>).</small></p>"
    )
    text = "\n".join(f"{r['takehome']} {r['submission']}: {r['decision'] or 'undecided'}" for r in rows)
    return Html(f'{STYLE}<div class="gl-card">{table_html(shown)}{legend}</div>', text)


def export_decisions(cohort: Cohort, path: Path, *, reveal: bool = False) -> Path:
    """Write the decisions table as CSV to exactly `path` (formula-like text defused); names only with `reveal`."""
    rows = decision_rows(cohort, reveal=reveal)
    columns = COLUMNS if reveal else tuple(c for c in COLUMNS if c != "name")
    with atomic_file(Path(path), newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({column: defuse(csv_cell(row.get(column))) for column in columns})
    return Path(path)


def export_note(cohort: Cohort) -> Html:
    """Write the decisions table (blind) as decisions.csv into the reports folder and link to it."""
    path = export_decisions(cohort, cohort.reports_dir / CSV_NAME)
    return Html(
        f'{STYLE}<div class="gl-card">Decisions written to <a href="{html_visible(path.name)}">'
        f"<code>{html_visible(path)}</code></a> (blind: labels, no names), for the hiring system.</div>",
        str(path),
    )
