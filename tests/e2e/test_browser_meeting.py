"""The calibration meeting in a real browser: resolve a line and decide through the summary's panel, re-run, see it.

Two payments samples graded by the real batch, three demo reviewers' conflicting scores, the
summary notebook opened in JupyterLab with headless Chromium (the harness of `test_browser.py`).
The browser is the way in: the lead records through the meeting panel's widgets. The gradebook
is the proof: the resolution and the decision are there, by the lead, with the reason; and
after Run All Cells again the cohort table, its CSV and the Decisions table show them.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLES
from test_browser import (
    KERNEL_IDLE_JS,
    Evidence,
    cell_with_source,
    chromium,
    chromium_or_skip,
    jupyterlab,
    lab_start_page,
    open_notebook,
    run_all_cells,
)

from gradelib import batch
from gradelib.cohort import table as cohort_table
from gradelib.cohort.demo import seed_demo_scores
from gradelib.cohort.summary import SUMMARY_NOTEBOOK
from gradelib.cohort.view import RESOLVED_MARK
from gradelib.gradebook import Gradebook
from gradelib.meeting import decisions, resolutions
from gradelib.meeting.agenda import AgendaItem, agenda
from gradelib.meeting.leadpanel import RERUN_NOTE
from gradelib.review.scoringpanel import ENV_REVIEWER
from gradelib.takehomes.clarifications import clarifications_path
from gradelib.takehomes.rubric import RubricLine

pytestmark = pytest.mark.e2e

TAKEHOME = "payments"
CANDIDATES = ("iris-moreau", "kemi-adeyemi")
LEAD = "lead-in-the-browser"
REASON = "Meeting agreed: the note names duplicates only (browser test)"
DECISION_REASON = "Solid retry handling; one follow-up interview (browser test)"
TABLE_SOURCE = "cohortview.tables_view(summary)"
PANEL_SOURCE = "meetingpanel.meeting_panel(summary"
DECISIONS_SOURCE = "decisions.decisions_view(summary)"
NOT_RECORDED = "not recorded:"
WIDGET_SYNC_S = 30  # a widget change to the kernel and its answer back
# Run in the page on a <table>: its rows as lists of [text, font weight] per cell.
CELLS_JS = """t => [...t.rows].map(r => [...r.cells].map(c => [c.innerText.trim(), getComputedStyle(c).fontWeight]))"""
SELECTED_JS = "s => s.selectedIndex < 0 ? '' : s.options[s.selectedIndex].textContent"
DATALIST_JS = "i => i.list ? [...i.list.options].map(o => o.value) : []"


def _summary_notebook(target: Path, book: Path, reports: Path) -> Path:
    """The packaged summary notebook with its parameters set to this gradebook, as papermill would inject them."""
    nb = json.loads(SUMMARY_NOTEBOOK.read_text(encoding="utf-8"))
    index = next(i for i, cell in enumerate(nb["cells"]) if "parameters" in cell["metadata"].get("tags", []))
    source = f"# Parameters\ngradebook = {str(book)!r}\nreports_dir = {str(reports)!r}\n"
    injected: dict[str, Any] = {
        "cell_type": "code",
        "execution_count": None,
        "id": "injected-parameters",
        "metadata": {"tags": ["injected-parameters"]},
        "outputs": [],
        "source": source,
    }
    nb["cells"].insert(index + 1, injected)
    target.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return target


def _wait_until(page: Any, check: Callable[[], bool], what: str, timeout_s: float = WIDGET_SYNC_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not seen within {timeout_s} s")
        page.wait_for_timeout(100)


def _plain(text: Any) -> str:
    """An option's text with ipywidgets' non-breaking spaces as spaces."""
    return str(text).replace("\xa0", " ").strip()


def _selected(select: Any) -> str:
    return _plain(select.evaluate(SELECTED_JS))


def _choose(select: Any, wanted: Callable[[str], bool], what: str) -> str:
    """Select the first option whose text (spaces plain) is `wanted`; returns that text."""
    texts = [_plain(text) for text in select.locator("option").all_text_contents()]
    index = next((i for i, text in enumerate(texts) if wanted(text)), None)
    assert index is not None, f"no {what} among the options {texts}"
    select.select_option(index=index)
    return texts[index]


def _cohort_cell(page: Any, label: str, title: str) -> tuple[str, int]:
    """What the cohort table shows for one submission and line: its text and its font weight."""
    tables = cell_with_source(page, TABLE_SOURCE).locator(".jp-OutputArea-output table")
    assert tables.count() == 1, f"one cohort table (one take-home), found {tables.count()}"
    rows = tables.first.evaluate(CELLS_JS)
    header = [text for text, _ in rows[0]]
    assert title in header and "submission" in header, f"the cohort table's header: {header}"
    row = next((r for r in rows[1:] if r[header.index("submission")][0] == label), None)
    assert row is not None, f"no row for {label} in the cohort table"
    text, weight = row[header.index(title)]
    return str(text), int(weight)


def _shown_resolved(page: Any, label: str, title: str) -> bool:
    """Whether the cohort table is shown and marks that cell resolved (the caption says "\u2713 resolved" too)."""
    tables = cell_with_source(page, TABLE_SOURCE).locator(".jp-OutputArea-output table")
    try:
        return tables.count() == 1 and _cohort_cell(page, label, title)[0].endswith(RESOLVED_MARK)
    except AssertionError:  # the output is being replaced by Run All
        return False


def _decisions_row(page: Any, label: str) -> dict[str, str]:
    """The Decisions table's row for one submission, by column header."""
    table = cell_with_source(page, DECISIONS_SOURCE).locator(".jp-OutputArea-output table").first
    rows = [[text for text, _ in row] for row in table.evaluate(CELLS_JS)]
    row = next((r for r in rows[1:] if label in r), None)
    assert row is not None, f"no row for {label} in the Decisions table: {rows}"
    return dict(zip(rows[0], row, strict=True))


def _csv_row(path: Path, label: str) -> dict[str, str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return next(row for row in csv.DictReader(handle) if row["takehome"] == TAKEHOME and row["submission"] == label)


def _wait_status(panel: Any, expected: str) -> None:
    """Wait for the panel's status to say `expected`; fail at once when it says the record was refused."""
    said = panel.locator(".widget-html", has_text=expected)
    refused = panel.locator(".widget-html", has_text=NOT_RECORDED)
    deadline = time.monotonic() + WIDGET_SYNC_S
    while not said.count():
        if refused.count():
            raise AssertionError(f"the panel refused it: {refused.first.inner_text()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"the panel never said {expected!r}")
        panel.page.wait_for_timeout(100)


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _pick_item(cohort: cohort_table.Cohort) -> tuple[AgendaItem, RubricLine, str]:
    """The first open agenda item, its rubric line, and the value to agree: the lowest reviewer's (below the mean)."""
    items = [item for item in agenda(cohort) if item.takehome == TAKEHOME]
    assert items, "the demo reviewers disagree somewhere: the agenda has an item"
    item = items[0]
    line = next(x for x in cohort.rubric_lines[TAKEHOME] if x.id == item.line_id)
    return item, line, item.ratings[-1].value


def test_lead_resolves_and_decides_in_the_meeting_panel_and_the_rerun_summary_shows_it(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    lab_root = tmp_path / "lab"  # JupyterLab serves this folder: the summary notebook and the reports in it
    reports = lab_root / "reports"
    book = reports / "gradebook.sqlite"
    lab_root.mkdir()
    evidence = Evidence(tmp_path)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # The batch grades (papermill, headless) while JupyterLab and Chromium start.
        grading = pool.submit(batch.grade, [SAMPLES / TAKEHOME / name for name in CANDIDATES], reports=reports, jobs=2)
        with jupyterlab(lab_root, tmp_path / "jupyter", {ENV_REVIEWER: ""}) as lab:
            evidence.lab = lab
            with chromium(binary, tmp_path / "chromium") as browser, evidence.collected():
                page = lab_start_page(browser, lab, evidence)

                evidence.step = "batch.grade, then three demo reviewers who disagree"
                outcomes = grading.result()
                assert [o.error for o in outcomes if o.status != "graded"] == []
                seeded = seed_demo_scores(book)
                assert seeded.messages == () and seeded.submissions == len(CANDIDATES)
                cohort = cohort_table.load(book, reports)
                item, line, agreed = _pick_item(cohort)
                other = next(e.submission for e in cohort.entries if e.submission.name != item.name)
                decision = decisions.decision_choices()[-1]
                packaged = clarifications_path(resolutions.rubric_for(TAKEHOME))
                clarifications = _read(packaged)
                notebook = _summary_notebook(lab_root / "summary.ipynb", book, reports)

                evidence.step = "open the summary notebook, Run All Cells"
                open_notebook(page, lab.url(notebook))
                panel = cell_with_source(page, PANEL_SOURCE)
                resolve = panel.locator(".widget-button", has_text="Resolve")
                run_all_cells(page, lambda: resolve.count() > 0, "the meeting panel's Resolve button")
                assert panel.count() == 1, f"one cell runs {PANEL_SOURCE!r}, found {panel.count()}"

                evidence.step = f"before: {item.label} {line.title!r} shows the reviewers' mean in bold"
                before, weight = _cohort_cell(page, item.label, line.title)
                assert not before.endswith(RESOLVED_MARK.strip()), f"not resolved yet, the table shows {before!r}"
                mean = cohort.table.set_index(["takehome", "submission"])
                assert before == cohort_table.line_cell(line, mean.loc[(TAKEHOME, item.label), line.id])
                assert weight >= 600, f"the reviewers' consensus is bold, font weight {weight}"
                row = _csv_row(reports / cohort_table.CSV_NAME, item.label)
                assert row[line.id + cohort_table.SOURCE_SUFFIX] == cohort_table.FROM_REVIEWERS

                evidence.step = f"the lead picks the agenda item {item.label} {line.title!r}"
                panel.get_by_label("Lead", exact=True).fill(LEAD)
                agenda_select = panel.get_by_label("Agenda", exact=True)
                prefix = f"{TAKEHOME} {item.label} \u00b7 {line.title}:"
                _choose(agenda_select, lambda text: text.startswith(prefix), f"agenda entry {prefix!r}")
                submission = panel.get_by_label("Submission", exact=True)
                line_select = panel.get_by_label("Line", exact=True)
                value = panel.get_by_label("Agreed", exact=True)
                _wait_until(
                    page,
                    lambda: (
                        _selected(submission).startswith(f"{TAKEHOME} {item.label} (")
                        and _selected(line_select) == line.title
                        and bool(value.evaluate(DATALIST_JS))
                    ),
                    "the agenda item fills Submission and Line, and Agreed offers the line's tiers",
                )
                page.wait_for_function(KERNEL_IDLE_JS)
                if line.tiers:
                    assert value.evaluate(DATALIST_JS) == list(line.tiers)

                evidence.step = f"agree {agreed!r} with a reason, Resolve (no clarification)"
                value.fill(agreed)
                panel.get_by_placeholder("why the meeting agreed this").fill(REASON)
                clarify = panel.get_by_label("also add it to the rubric as a clarification")
                assert not clarify.is_checked(), "the clarification box starts unticked"
                assert value.input_value() == agreed and panel.get_by_label("Lead", exact=True).input_value() == LEAD
                resolve.click()
                kept = resolutions.checked_value(line, agreed)
                _wait_status(panel, f"{TAKEHOME} {item.label} {line.id}: resolved as {kept}; {RERUN_NOTE}")

                evidence.step = f"decide {decision!r} for {other.blind_label} ({other.name})"
                decide_select = panel.get_by_label("Candidate", exact=True)
                wanted = f"{TAKEHOME} {other.blind_label} ({other.name})"
                _choose(decide_select, lambda text: text == wanted, repr(wanted))
                _choose(panel.get_by_label("Decision", exact=True), lambda text: text == decision, repr(decision))
                panel.get_by_placeholder("the reason for the decision").fill(DECISION_REASON)
                page.wait_for_function(KERNEL_IDLE_JS)
                panel.locator(".widget-button", has_text="Decide").click()
                _wait_status(panel, f"{TAKEHOME} {other.blind_label}: {decision}; {RERUN_NOTE}")

                evidence.step = "the gradebook has both records, by the lead, with the reasons"
                with Gradebook(book) as gradebook:
                    resolved = gradebook.resolutions(TAKEHOME)
                    decided = gradebook.decisions(TAKEHOME)
                assert [(r.submission, r.line_id, r.value, r.reason, r.resolved_by) for r in resolved] == [
                    (item.name, line.id, kept, REASON, LEAD)
                ]
                assert [(d.submission, d.decision, d.reason, d.decided_by) for d in decided] == [
                    (other.name, decision, DECISION_REASON, LEAD)
                ]
                assert _read(packaged) == clarifications, f"unticked, nothing is written to {packaged}"
                with Gradebook(book, readonly=True) as gradebook:
                    assert gradebook.clarifications(TAKEHOME) == [], "unticked, no clarification is kept"

                evidence.step = "Run All Cells again: the cohort table shows the resolution, Decisions the decision"
                decided = cell_with_source(page, DECISIONS_SOURCE)
                run_all_cells(
                    page,
                    lambda: _shown_resolved(page, item.label, line.title) and DECISION_REASON in decided.inner_text(),
                    "the resolved cell and the decision",
                )
                text, weight = _cohort_cell(page, item.label, line.title)
                points = cohort_table.value_points(line, kept)
                assert text == cohort_table.line_cell(line, points) + RESOLVED_MARK, f"the table shows {text!r}"
                assert not text.startswith(before), f"the agreed value replaces the mean {before!r}"
                assert weight >= 600, f"a resolved value is bold, font weight {weight}"
                row = _csv_row(reports / cohort_table.CSV_NAME, item.label)
                assert row[line.id + cohort_table.SOURCE_SUFFIX] == cohort_table.FROM_RESOLUTION
                assert points is not None and float(row[line.id]) == pytest.approx(points)
                shown = _decisions_row(page, other.blind_label)
                assert shown["name"] == other.name, shown
                assert (shown["decision"], shown["reason"], shown["decided by"]) == (decision, DECISION_REASON, LEAD)
