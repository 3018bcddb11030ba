"""The summary end to end: grade a few samples, enter demo scores, run the summary notebook, read its HTML."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from conftest import SAMPLES
from matplotlib.figure import Figure

from gradelib import batch
from gradelib.cohort import charts as cohortcharts
from gradelib.cohort.demo import seed_demo_scores
from gradelib.cohort.summary import run_summary
from gradelib.cohort.table import load
from gradelib.errors import GradelibError

pytestmark = pytest.mark.e2e
CHART_COPIES = Path("/tmp/gradelib-charts")  # for a human to look at once
COHORT = {"replay": ("chen-wei", "eli-haddad"), "payments": ("iris-moreau", "kemi-adeyemi")}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four samples graded by the real batch (blind), then demo scores from three reviewers.

    Not the session's shared cohort: demo scores are written into this gradebook, and the summary's
    links must stay inside its own reports folder.
    """
    folder = tmp_path_factory.mktemp("summary") / "reports"
    paths = [SAMPLES / takehome / name for takehome, names in COHORT.items() for name in names]
    outcomes = batch.grade(paths, reports=folder, jobs=2)
    assert [o.error for o in outcomes if o.status != "graded"] == []
    seeded = seed_demo_scores(folder / "gradebook.sqlite")
    assert seeded.messages == () and seeded.submissions == 4 and seeded.scores > 0
    return folder


def _outputs(notebook: Path) -> list[nbformat.NotebookNode]:
    nb = nbformat.read(notebook, as_version=4)
    return [output for cell in nb.cells if cell.cell_type == "code" for output in cell.outputs]


def test_summary_report_shows_the_table_every_chart_and_no_error(reports: Path) -> None:
    html_path = run_summary(reports)
    assert html_path == reports / "summary.html"
    outputs = _outputs(reports / "summary.ipynb")
    assert [o for o in outputs if o.output_type == "error"] == []
    assert [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"] == []
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pictures) == len(cohortcharts.CHARTS)  # every chart drew a figure, none fell back to a message
    html = html_path.read_text(encoding="utf-8")
    assert len(re.findall(r"<img[^>]+src=\"data:image/png;base64,", html)) == len(cohortcharts.CHARTS)
    for names in COHORT.values():
        for name in names:
            assert name in html  # the summary resolves blind labels
    for needle in ("Submission #1", "Found the defect", "Missing fixture fails loudly", "Krippendorff", "ana", "chloe"):
        assert needle in html, needle
    for needle in ("waiting for", "Calibration anchors", "Score distributions per reviewer"):
        assert needle in html, needle
    for code in ("cohort.load", "summary.header()", "In&nbsp;[", ">found_defect<"):
        assert code not in html, code  # a hiring manager reads no code, and lines by their titles
    links = set(re.findall(r'href="((?:replay|payments)/[^"]+\.html)"', html))
    assert len(links) == 4 and all((reports / link).is_file() for link in links)
    assert (reports / "summary.csv").read_text(encoding="utf-8").startswith("takehome,submission,name,graded")


def test_summary_filters_reach_the_notebook(reports: Path, tmp_path: Path) -> None:
    out = tmp_path / "filtered"
    html_path = run_summary(out, reports / "gradebook.sqlite", takehome="payments", reviewer="ana")
    html = html_path.read_text(encoding="utf-8")
    assert "take-home payments" in html and "submissions ana scored" in html
    assert "iris-moreau" in html or "kemi-adeyemi" in html
    assert "chen-wei" not in html and "eli-haddad" not in html
    assert [o for o in _outputs(out / "summary.ipynb") if o.output_type == "error"] == []


def test_run_summary_refuses_a_missing_gradebook_or_a_bad_date(reports: Path, tmp_path: Path) -> None:
    with pytest.raises(GradelibError, match="no gradebook"):
        run_summary(tmp_path / "empty")
    with pytest.raises(GradelibError, match="not a date"):
        run_summary(reports, graded_from="last week")


def test_charts_render_to_png(reports: Path, tmp_path: Path) -> None:
    cohort = load(reports / "gradebook.sqlite")
    CHART_COPIES.mkdir(parents=True, exist_ok=True)
    for name, figure in cohortcharts.all_charts(cohort).items():
        assert isinstance(figure, Figure), name
        target = tmp_path / f"{name}.png"
        figure.savefig(target, dpi=100)
        assert target.stat().st_size > 10_000, name
        shutil.copyfile(target, CHART_COPIES / target.name)
