"""Run the cohort summary notebook with papermill: reports/summary.ipynb and the HTML report beside it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

from gradelib.cohort.table import Filters
from gradelib.errors import GradelibError
from gradelib.execution.execute import execute
from gradelib.gradebook import DEFAULT_PATH, require
from gradelib.review.reportwriter import ReportForm, warm_exporter, write_report
from gradelib.review.scoretable import ENV_HEADLESS
from gradelib.takehomes.contract import KIT_NOTEBOOKS

SUMMARY_NOTEBOOK = KIT_NOTEBOOKS / "summary.ipynb"  # the top-level notebooks/, package data in the wheel
SUMMARY_NAME = "summary.ipynb"


class SummaryFailed(GradelibError):
    """The summary notebook stopped on an error; the executed notebook (and its HTML) are kept as evidence."""

    def __init__(self, notebook: Path, error: str) -> None:
        super().__init__(f"the summary notebook failed ({error}); see {notebook}")
        self.notebook = notebook
        self.error = error


@contextlib.contextmanager
def _drawing_ahead(folder: Path, parameters: Mapping[str, object]) -> Iterator[None]:
    """`python -m gradelib.cohort.drawing` drawing the charts into `folder` while the notebook runs; ended after."""
    if len(os.sched_getaffinity(0)) < 2:  # one core: a second process would only slow the kernel down
        yield
        return
    argv = [sys.executable, "-m", "gradelib.cohort.drawing", str(folder), json.dumps(parameters)]
    try:
        helper = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    except OSError:  # the kernel draws every chart itself
        yield
        return
    try:
        yield
    finally:
        helper.kill()
        helper.wait()


def run_summary(
    reports_dir: str | Path = DEFAULT_PATH.parent,
    gradebook: str | Path | None = None,
    *,
    takehome: str | None = None,
    reviewer: str | None = None,
    graded_from: str | date | None = None,
    graded_to: str | date | None = None,
) -> Path:
    """Execute the summary notebook into `reports_dir`/summary.ipynb and export summary.html; return the HTML path.

    `gradebook` defaults to `reports_dir`/gradebook.sqlite. The filters select what every
    table and chart shows: one take-home, the submissions one reviewer scored, and the
    UTC dates (YYYY-MM-DD, inclusive) of the kit's latest grading run. The notebook also
    writes summary.csv beside the HTML.

    Raises GradelibError when the gradebook is missing or a date is unreadable (before any
    kernel starts), and SummaryFailed when a cell fails (the notebook and HTML are kept).
    """
    reports = Path(reports_dir).resolve()
    book = require(Path(gradebook).resolve() if gradebook else reports / DEFAULT_PATH.name)
    filters = Filters.parse(takehome, reviewer, graded_from, graded_to)  # fails fast on a bad date
    reports.mkdir(parents=True, exist_ok=True)
    target = reports / SUMMARY_NAME
    parameters = {
        "gradebook": str(book),
        "reports_dir": str(reports),
        "takehome": filters.takehome,
        "reviewer": filters.reviewer,
        "graded_from": filters.graded_from.isoformat() if filters.graded_from else None,
        "graded_to": filters.graded_to.isoformat() if filters.graded_to else None,
    }
    # The export runs in a thread of its own, which compiles nbconvert's templates while the kernel
    # runs. One notebook: a fresh kernel starts sooner than a fork server importing every take-home,
    # and once every cell has run it holds nothing to save, so it is killed, not asked to exit (0.5 s).
    # The charts are drawn by a second process on the other core, ahead of the kernel (`drawing`).
    with (
        tempfile.TemporaryDirectory(prefix="gradelib-charts-") as charts_dir,
        _drawing_ahead(Path(charts_dir), parameters),
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="gradelib-summary-export") as exporter,
    ):
        exporter.submit(warm_exporter)
        error = execute(
            SUMMARY_NOTEBOOK,
            target,
            {**parameters, "charts_dir": charts_dir},
            env={ENV_HEADLESS: "1"},
            fork=False,
            shutdown="immediate",
        )  # headless: a report records nothing
        html = exporter.submit(_final, target).result()
    if error is not None:
        raise SummaryFailed(target, error)
    if html is None:
        raise SummaryFailed(target, "the executed notebook was not written")
    return html


def _final(target: Path) -> Path | None:
    """The summary's final form, written once: its notebook as a reader opens it, and its HTML (no code)."""
    if not target.is_file():
        return None
    return write_report(target, target.read_bytes(), ReportForm())[target.with_suffix(".html")]
