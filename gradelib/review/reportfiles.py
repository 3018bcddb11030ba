"""The reports a batch wrote, as a reviewer finds them later: their score tables and verdict cards taken again.

The score table stored in each report (the cell tagged `score-table`) can be taken again from the gradebook
(`gradelib tables`, and `gradelib summary`), and says when it was taken; the verdict card the report opens
with (the cell tagged `verdicts`: who has scored what awaits a reviewer) is taken again with it. The report is
rewritten through the one function that writes a report's final form (`reportwriter.write_report`), its HTML
with it. A report that shows another gradebook's run, or an earlier one, is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.result import Report
from gradelib.review.reportowner import ReportRecord
from gradelib.review.reportwriter import BATCH_ONLY, SCORE_TABLE_TAG, ReportForm, write_report


@dataclass(frozen=True)
class Refreshed:
    """What `refresh_score_tables` did."""

    notebooks: tuple[Path, ...]  # notebooks whose score table was taken again (and their HTML re-exported)
    missing: tuple[str, ...] = ()  # submissions whose report notebook is not where the gradebook says
    stale: tuple[Path, ...] = ()  # reports that show another gradebook's run, or an earlier one: not touched


def refresh_score_tables(
    gradebook: Path, reports_dir: Path | None = None, *, reveal: bool = False, takehome: str | None = None
) -> Refreshed:
    """Take every report's score table again from the gradebook and re-export its HTML.

    Blind unless `reveal`: the stored table says who scored which line and when, not the
    values (the cohort summary shows those). Reports are found where their run recorded
    them, else under `reports_dir/<takehome>/`; one that records another gradebook or
    another run (`reportowner`) is left as it is and listed: `gradelib grade` writes it again.
    """
    from gradelib.gradebook.health import open_checked
    from gradelib.review.reportowner import report_record

    done: list[Path] = []
    missing: list[str] = []
    stale: list[Path] = []
    with open_checked(gradebook) as book:
        mine = book.id
        for row in book.submissions(takehome):
            run = book.latest_run(row.takehome, row.name, graded_only=True)
            if run is None or not run.notebook:
                continue
            path = _locate(Path(run.notebook), row.takehome, reports_dir or gradebook.parent)
            record = report_record(path) if path is not None else None
            if path is None:
                missing.append(f"{row.takehome}/{row.blind_label}")
            elif record is not None and (record.gradebook, record.run) != (mine, run.id):
                stale.append(path)
            elif refresh_report(path, book, row.takehome, row.name, reveal=reveal):
                done.append(path)
    return Refreshed(tuple(done), tuple(missing), tuple(stale))


def refresh_report(path: Path, book: Any, takehome: str, name: str, *, reveal: bool = False) -> bool:
    """Take one report's score table and verdict card from the open gradebook `book`, its HTML with them;
    whether it did (a report without a score table, or of a take-home without its rubric, is left as it is)."""
    from gradelib.review.scoretable import stored_table
    from gradelib.review.verdicts import stored_card

    rubric = _packaged_rubric(takehome)
    if rubric is None or not has_score_table(executed := path.read_bytes()):
        return False
    table = stored_table(book, takehome, name, rubric, reveal=reveal)
    write_report(path, executed, ReportForm(table=table, card=stored_card(book, takehome, name, rubric), reset={}))
    return True


def run_form(
    book: Any, takehome: str, name: str, report: Report | None, parameters: Mapping[str, Any], record: ReportRecord
) -> ReportForm:
    """What the report of a run says besides what its kernel ran: the parameters a reviewer re-runs it with (the
    batch-only ones set back), its record, and, for a run that graded (`report`), the score table and verdict card
    of the gradebook `book` it is recorded in: its scores now, the run's own lines (blind)."""
    from gradelib.review.scoretable import stored_table
    from gradelib.review.verdicts import report_card

    shown = {**dict(parameters), **BATCH_ONLY}
    rubric = _packaged_rubric(takehome) if report is not None else None
    if report is None or rubric is None:
        return ReportForm(parameters=shown, record=record)
    table = stored_table(book, takehome, name, rubric, lines=report.lines)
    card = report_card(report, rubric, book.current_scores(takehome, name))
    return ReportForm(parameters=shown, record=record, table=table, card=card)


def has_score_table(notebook: bytes) -> bool:
    """Whether a notebook file has a score-table cell (False when it is unreadable)."""
    try:
        cells = json.loads(notebook).get("cells", [])
        return any(SCORE_TABLE_TAG in (cell.get("metadata", {}).get("tags") or []) for cell in cells)
    except (ValueError, AttributeError, TypeError):
        return False


def _packaged_rubric(takehome: str) -> Any:
    from gradelib.errors import RubricError, UnknownTakehome
    from gradelib.takehomes.rubric import default_rubric

    try:
        return default_rubric(takehome)
    except (UnknownTakehome, RubricError):
        return None


def _locate(stored: Path, takehome: str, reports_dir: Path) -> Path | None:
    for candidate in (stored, reports_dir / takehome / stored.name):
        if candidate.is_file():
            return candidate
    return None
