"""The summary end to end: grade a few samples, enter demo scores, run the summary notebook, read its HTML."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from conftest import SAMPLES
from matplotlib.figure import Figure

from gradelib import batch
from gradelib.cohort import charts as cohortcharts
from gradelib.cohort.demo import seed_demo_scores
from gradelib.cohort.summary import run_summary
from gradelib.cohort.table import Cohort, load
from gradelib.errors import GradelibError
from gradelib.gradebook import Gradebook
from gradelib.takehomes.rubric import default_rubric

pytestmark = pytest.mark.e2e
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
    # every chart drew a figure, none fell back to a message; and the histogram of every pair's similarity score
    assert len(pictures) == len(cohortcharts.CHARTS) + 1
    html = html_path.read_text(encoding="utf-8")
    assert len(re.findall(r"<img[^>]+src=\"data:image/png;base64,", html)) == len(cohortcharts.CHARTS) + 1
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
    for name, figure in _all_charts(cohort).items():
        assert isinstance(figure, Figure), name
        target = tmp_path / f"{name}.png"
        figure.savefig(target, dpi=100)
        assert target.stat().st_size > 10_000, name


def _gradelib(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, as a lead runs it."""
    return subprocess.run(
        [sys.executable, "-m", "gradelib", *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_a_calibration_meeting_runs_from_the_commands_and_the_summary(reports: Path, tmp_path: Path) -> None:
    """Three reviewers' conflicting scores on a graded cohort: agenda, resolve, clarify, decide, export, import."""
    folder = tmp_path / "reports"
    shutil.copytree(reports, folder)
    book = ["--gradebook", str(folder / "gradebook.sqlite")]
    listed = _gradelib("agenda", "--json", *book)
    assert listed.returncode == 0, listed.stderr
    items = json.loads(listed.stdout)
    assert items and all(len({r["value"] for r in item["reviewers"]}) > 1 for item in items)
    assert all(item["name"] is None for item in items)  # blind unless --reveal
    item = next(i for i in items if i["takehome"] == "payments")
    agreed = item["reviewers"][-1]["value"]  # the strictest reviewer's tier
    text = _gradelib("agenda", *book).stdout
    assert f"resolve: {item['command']}" in text  # the terminal prints the command the JSON carries
    # The lead copies the agenda's command into a shell and fills in its placeholders.
    filled = re.sub(r"<[^>]+>", agreed, item["command"].replace("<reason>", "the meeting read the note again"), count=1)
    shell_path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", f"{filled} --by lead"], capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PATH": shell_path},
    )  # fmt: skip
    assert done.returncode == 0 and f"resolved as {agreed} by lead" in done.stdout, (filled, done.stderr)
    rubric = tmp_path / "rubric" / "rubric.toml"
    rubric.parent.mkdir()
    shutil.copyfile(default_rubric("payments").source, rubric)
    clarified = _gradelib("clarify", "payments", item["submission"], item["line"], "--rubric", str(rubric), *book)
    assert clarified.returncode == 0 and "added to the gradebook's clarifications" in clarified.stdout, clarified.stderr
    assert not (rubric.parent / "clarifications.toml").exists(), "kept in the gradebook, not beside a rubric"
    shown = _gradelib("rubric", "payments", "--rubric", str(rubric), *book)
    assert f"clarified, {agreed}: the meeting read the note again" in shown.stdout
    for label, decision in (("1", "advance"), ("2", "hold")):
        decided = _gradelib("decide", "payments", label, decision, "--why", f"{decision} after the debrief", *book)
        assert decided.returncode == 2 and "say who records it" in decided.stderr  # nobody named
        decided = _gradelib("decide", "payments", label, decision, "--why", f"{decision} after the debrief",
                            "--by", "lead", *book)  # fmt: skip
        assert decided.returncode == 0, decided.stderr
    again = json.loads(_gradelib("agenda", "--json", *book).stdout)
    assert (item["submission"], item["line"]) not in {(i["submission"], i["line"]) for i in again}

    decisions_csv = tmp_path / "decisions.csv"
    assert _gradelib("export", str(decisions_csv), "--decisions", *book).returncode == 0
    text = decisions_csv.read_text(encoding="utf-8")
    assert "advance after the debrief" in text and not any(name in text for name in COHORT["payments"])
    whole = tmp_path / "all.json"
    assert _gradelib("export", str(whole), "--all", *book).returncode == 0
    other = tmp_path / "other.sqlite"
    Gradebook(other).close()
    first = _gradelib("import", str(whole), "--gradebook", str(other))
    second = _gradelib("import", str(whole), "--gradebook", str(other))
    assert first.returncode == 0 and "imported 0 entries" in second.stdout, (first.stdout, second.stdout)
    with Gradebook(other) as copy:
        assert [r.value for r in copy.resolutions()] == [agreed]
        assert sorted(d.decision for d in copy.decisions()) == ["advance", "hold"]

    html = run_summary(folder).read_text(encoding="utf-8")
    assert [o for o in _outputs(folder / "summary.ipynb") if o.output_type == "error"] == []
    assert re.search(rf">\d+(\.\d+)? \({agreed}\) \u2713 resolved</td>", html)  # the cell, not the caption
    for needle in ("Did the meeting help", "1 line(s) resolved", "advance after the debrief",
                   "the meeting read the note again", "records nothing"):  # fmt: skip
        assert needle in html, needle
    rows = list(csv.DictReader((folder / "summary.csv").read_text(encoding="utf-8").splitlines()))
    resolved = [r for r in rows if r["takehome"] == "payments" and r["submission"] == item["submission"]]
    assert resolved[0][f"{item['line']}_source"] == "resolved"
    assert {r["decision"] for r in rows if r["takehome"] == "payments"} == {"advance", "hold"}
    assert "advance after the debrief" in (folder / "decisions.csv").read_text(encoding="utf-8")  # from the notebook


def _all_charts(cohort: Cohort) -> dict[str, Any]:
    """Every chart of the summary, by its function's name."""
    return {chart.__name__: chart(cohort) for chart in cohortcharts.CHARTS}
