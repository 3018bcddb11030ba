"""Decisions: the one the meeting records per candidate, and the table of them with the totals they rest on.

A decision is one of the team's words (advance, hold, decline by default), with a reason and
who recorded it, appended to the gradebook (a later one supersedes). The table lists every
graded candidate, decided or not, in the cohort table's order; as CSV it goes to a hiring
system, blind unless revealed.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from gradelib import settings
from gradelib.cohort.agreement import note
from gradelib.cohort.table import Cohort, is_refused
from gradelib.display.render import STYLE, Html, table_html
from gradelib.errors import RecordRefused
from gradelib.gradebook import Gradebook
from gradelib.gradebook.exchange import atomic_file, csv_cell
from gradelib.gradebook.identity import find_submission, visible_name
from gradelib.gradebook.meetingrecords import Decision
from gradelib.meeting.resolutions import reason, recorded_by
from gradelib.safetext import html_visible

COLUMNS = ("takehome", "submission", "name", "total", "max_total", "decision", "reason", "decided_by", "decided_at")
UNDECIDED = ""
CSV_NAME = "decisions.csv"
ENV_DECISIONS = settings.ENV_DECISIONS  # the team's own wording, comma-separated, e.g. "advance,hold,decline"
DEFAULT_DECISIONS = settings.DEFAULT_DECISIONS


def decision_choices(choices: str | None = None) -> tuple[str, ...]:
    """The decisions a lead can record: `choices` (comma-separated), else GRADELIB_DECISIONS, else the defaults."""
    if choices is None:
        return settings.current_settings().decisions
    words = tuple(dict.fromkeys(word.strip() for word in choices.split(",") if word.strip()))
    return words or DEFAULT_DECISIONS


def decide(
    book: Gradebook,
    takehome: str,
    label: str,
    decision: str,
    why: str | None,
    by: str | None = None,
    *,
    choices: tuple[str, ...] | None = None,
) -> Decision:
    """Record the decision for one candidate (one of `choices`, default `decision_choices()`)."""
    allowed = choices or decision_choices()
    word = decision.strip()
    if word not in allowed:
        raise RecordRefused(f"{decision!r} is not a decision here; choose one of {', '.join(allowed)}")
    row = find_submission(book, takehome, label)
    return book.add_decision(row.takehome, row.name, word, reason(why), recorded_by(by))


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
                "name": visible_name(entry.submission.name, reveal) or "",
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
    from gradelib.cohort.view import defuse  # pandas: `gradelib decide` does not pay for it

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
