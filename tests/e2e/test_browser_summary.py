"""The summary's cohort table in a real browser: every column can be reached at 1280 and 1920 pixels wide.

Two payments samples graded by the real batch, demo scores, an anchor and a decision (which fill the
"waiting for" and "decision" columns, the table's widest), the summary run; then headless Chromium
(the harness of `test_browser.py`) reads the exported HTML at both widths and JupyterLab's view of the
executed notebook, as opened (outputs sanitised: no <style> block) and after Run All Cells.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLES
from test_browser import Evidence, chromium, chromium_or_skip, jupyterlab, open_notebook, run_all_cells

from gradelib import batch
from gradelib.cohort.demo import seed_demo_scores
from gradelib.cohort.summary import SUMMARY_NAME, run_summary
from gradelib.gradebook import Gradebook

pytestmark = pytest.mark.e2e

TAKEHOME = "payments"
CANDIDATES = ("iris-moreau", "kemi-adeyemi")
DECISION = "follow-up interview with the payments team lead"
WINDOWS = {"1280": (1280, 800), "1920": (1920, 1080)}
COLUMN = "waiting for"  # a column only the cohort tables have: how the test finds them (a sanitiser drops their ids)
# Run in the page on a cohort table and a header's index: the page (or notebook) scrolled so that the header is
# mid-window, the table's box so that the header sits just right of the first column (which stays put); where
# the header is then, and whether the browser finds it at its own centre (not clipped, not covered).
REACH_JS = """(table, index) => {
    const box = table.parentElement, heads = [...table.querySelectorAll('thead th')];
    const head = heads[index];
    head.scrollIntoView({block: 'center', inline: 'nearest'});  // the page's (or the notebook's) scroll, mid-window
    box.scrollLeft = index === 0 ? 0 : head.offsetLeft - heads[0].offsetWidth;
    const r = head.getBoundingClientRect();
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return {text: head.innerText.trim(), left: r.left, right: r.right, width: innerWidth, seen: head.contains(hit)};
}"""
# Run in the page on a cohort table: its box scrolled to the right end, is its first body cell where it was, on top?
FIRST_KEPT_JS = """table => {
    const box = table.parentElement, cell = table.querySelector('tbody td');
    cell.scrollIntoView({block: 'center', inline: 'nearest'});
    box.scrollLeft = box.scrollWidth;
    const r = cell.getBoundingClientRect(), b = box.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + 4, (r.top + r.bottom) / 2);
    return {scrolled: box.scrollLeft, offset: r.left - b.left, seen: cell.contains(hit), text: cell.innerText.trim()};
}"""
OVERFLOW_JS = "table => [table.parentElement.scrollWidth, table.parentElement.clientWidth]"
# Run in the page on a cohort table: how much taller than the table the box that scrolls it is (its scrollbar is
# right below the table only when the box holds nothing else: not the whole output with every take-home's table)
ROOM_JS = """table => {
    const style = getComputedStyle(table);
    const height = table.offsetHeight + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
    return table.parentElement.clientHeight - height;
}"""
# Run in the page: the cohort table is shown with its <style> block applied (its first column sticks)
STYLED_JS = """(column) => {
    const table = [...document.querySelectorAll('table')]
        .find((t) => [...t.querySelectorAll('thead th')].some((th) => th.textContent.trim() === column));
    const cell = table?.querySelector('tbody td');
    return cell != null && getComputedStyle(cell).position === 'sticky';
}"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graded cohort whose summary has been run, with its table as wide as a meeting makes it."""
    folder = tmp_path_factory.mktemp("wide") / "reports"
    outcomes = batch.grade([SAMPLES / TAKEHOME / name for name in CANDIDATES], reports=folder, jobs=2)
    assert [o.error for o in outcomes if o.status != "graded"] == []
    seed_demo_scores(folder / "gradebook.sqlite")
    with Gradebook(folder / "gradebook.sqlite") as book:
        book.set_anchor(TAKEHOME, CANDIDATES[0])  # waits for every reviewer who has not scored all of it:
        book.add_score(TAKEHOME, CANDIDATES[0], "found_defect", "chloe", "strong", "a third reviewer (browser test)")
        book.add_decision(TAKEHOME, CANDIDATES[1], DECISION, "solid retry handling (browser test)", "lead")
    run_summary(folder)
    return folder


def _cohort_tables(page: Any) -> Any:
    return page.locator("table").filter(has=page.locator("thead th", has_text=re.compile(f"^{COLUMN}$")))


def _check_reachable(page: Any, where: str, sticky: bool = True) -> list[str]:
    """Every column header of every cohort table can be brought into view; the first column stays when scrolled.

    Returns the headers, table after table."""
    tables = _cohort_tables(page)
    assert tables.count() >= 1, f"{where}: no cohort table"
    headers = []
    for index in range(tables.count()):
        table = tables.nth(index)
        assert table.evaluate(ROOM_JS) <= 1, f"{where}: the table scrolls in a box of its own"
        for column in range(table.locator("thead th").count()):
            head = table.evaluate(REACH_JS, column)
            headers.append(head["text"])
            assert head["seen"] and head["left"] >= 0 and head["right"] <= head["width"], f"{where}: {head}"
        if sticky:
            first = table.evaluate(FIRST_KEPT_JS)
            assert first["seen"] and abs(first["offset"]) < 1, f"{where}: the first column scrolled away: {first}"
    return headers


def test_every_column_of_the_cohort_table_can_be_reached_at_1280_and_1920_pixels(reports: Path, tmp_path: Path) -> None:
    binary = chromium_or_skip()
    html = reports / "summary.html"
    with chromium(binary, tmp_path / "chromium") as browser:
        page = browser.new_page()
        for name, (width, height) in WINDOWS.items():
            page.set_viewport_size({"width": width, "height": height})
            page.goto(html.resolve().as_uri())
            headers = _check_reachable(page, f"summary.html at {name} px")
            assert {"submission", "waiting for", "anchor", "decision", "flags", "report"} <= set(headers)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page itself does not widen"
            if name == "1280":  # the table is wider than the window here: the scroll is what shows its last columns
                wide, shown = _cohort_tables(page).first.evaluate(OVERFLOW_JS)
                assert wide > shown, (wide, shown)
            page.screenshot(path=str(tmp_path / f"summary-{name}.png"))


def test_the_cohort_table_scrolls_in_jupyterlab_as_opened_and_after_run_all(reports: Path, tmp_path: Path) -> None:
    """Opened, the executed notebook is untrusted: JupyterLab drops its <style> blocks (no sticky column, no
    colours) but keeps the box's inline scroll. Run All makes the outputs the reviewer's own: all of it shows."""
    binary = chromium_or_skip()
    evidence = Evidence(tmp_path)
    with (
        jupyterlab(reports, tmp_path / "jupyter") as lab,
        chromium(binary, tmp_path / "chromium") as browser,
        evidence.collected(),
    ):
        evidence.lab = lab
        page = evidence.page = browser.new_page()
        page.on("dialog", lambda dialog: dialog.dismiss())
        page.set_viewport_size({"width": WINDOWS["1280"][0], "height": WINDOWS["1280"][1]})
        evidence.step = "open the executed summary"
        open_notebook(page, lab.url(reports / SUMMARY_NAME))
        _cohort_tables(page).first.wait_for()
        _check_reachable(page, "JupyterLab, as opened", sticky=False)
        page.screenshot(path=str(tmp_path / "lab-opened.png"))
        evidence.step = "Run All Cells, then the table again"
        assert not page.evaluate(STYLED_JS, COLUMN), "as opened, JupyterLab dropped the table's <style> block"
        run_all_cells(page, lambda: bool(page.evaluate(STYLED_JS, COLUMN)), "the cohort table, styled")
        _check_reachable(page, "JupyterLab, after Run All")
        page.screenshot(path=str(tmp_path / "lab-run.png"))
