"""The notebooks, executed headless by papermill through the batch, as a lead runs them."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, tiny_submission
from sample_cohort import GradedCohort

from gradelib import batch, cli

pytestmark = pytest.mark.e2e
# Every notebook the kit ships (the top-level notebooks/, package data through gradelib/notebooks) and the
# example plugin's: committed without outputs.
NOTEBOOKS = sorted([*(ROOT / "notebooks").glob("*.ipynb"), *(ROOT / "examples").glob("*/*/*.ipynb")])


def test_every_kit_notebook_is_in_the_top_level_notebooks_folder_and_nowhere_else_in_the_package() -> None:
    from gradelib import takehomes
    from gradelib.cohort.summary import SUMMARY_NOTEBOOK

    names = {str(path.relative_to(ROOT)) for path in NOTEBOOKS}
    assert {"notebooks/replay.ipynb", "notebooks/payments.ipynb", "notebooks/summary.ipynb"} <= names
    kit_own = [takehomes.load(name) for name in takehomes.names() if name in ("replay", "payments")]
    assert [plugin.notebook().resolve() for plugin in kit_own] == [
        (ROOT / "notebooks" / f"{plugin.id}.ipynb").resolve() for plugin in kit_own
    ]
    assert SUMMARY_NOTEBOOK.resolve() == (ROOT / "notebooks" / "summary.ipynb").resolve()
    inside = [p for p in (ROOT / "gradelib").rglob("*.ipynb") if not p.is_relative_to(ROOT / "gradelib" / "notebooks")]
    assert inside == [], "the package holds no notebook of its own: they live in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_notebooks_have_no_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path
    assert any("parameters" in cell.metadata.get("tags", []) for cell in nb.cells)


COHORT = {
    "replay": {"amara-okafor": 100.0, "chen-wei": 60.0},
    "payments": {"kemi-adeyemi": None, "iris-moreau": None},
}
TITLES = {
    "replay": ("Two replay runs are byte-identical", "Missing fixture fails loudly"),
    "payments": ("Found the defect", "Key scope"),
}


def test_batch_runs_both_notebooks_headless(graded_samples: GradedCohort) -> None:
    reports = graded_samples.reports
    for takehome, names in COHORT.items():
        for name, total in names.items():
            assert graded_samples.outcome(takehome, name).status == "graded"
            nb = nbformat.read(reports / takehome / f"{name}.ipynb", as_version=4)
            outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
            assert [o for o in outputs if o.output_type == "error"] == []
            shown = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
            for title in (*TITLES[takehome], "total", "kit suggests"):
                assert title in shown, (name, title)
            result = json.loads((reports / takehome / f"{name}.json").read_text())
            assert result["total"] == total and result["submission"] == name
            html = (reports / takehome / f"{name}.html").read_text()
            assert TITLES[takehome][0] in html


def test_a_broken_submission_is_an_error_line_and_the_batch_goes_on(tmp_path: Path, tiny_takehome: str) -> None:
    cohort = tmp_path / "cohort"
    tiny_submission(cohort / "fine")
    cohort.joinpath("broken.zip").write_bytes(b"this is not a zip")
    outcomes = {o.submission: o for o in batch.grade([cohort], reports=tmp_path / "reports", reveal=True)}
    assert outcomes["broken"].status == "error" and "zip" in (outcomes["broken"].error or "")
    assert (outcomes["fine"].status, outcomes["fine"].total) == ("graded", 10.0)


def test_payments_handout_has_task_draft_and_gateway(tmp_path: Path) -> None:
    assert cli.main(["handout", "payments", str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "checkout.mjs", "gateway"]
    assert (out / "gateway" / "server.mjs").exists()
    text = (out / "README.md").read_text().lower()
    assert "never" in text and "two charges" in text and "restart" in text and "idempoten" not in text
    assert "crypto.randomUUID()" in (out / "checkout.mjs").read_text()


def test_handout_writes_the_task_tickets_and_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["handout", "replay", str(tmp_path / "out")]) == 0
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["README.md", "labels.json", "tickets.json"]
    tickets = json.loads((tmp_path / "out" / "tickets.json").read_text())
    assert len(tickets) == 20 and all(set(t) == {"id", "body"} for t in tickets)
    text = (tmp_path / "out" / "README.md").read_text()
    for needle in ("./run.sh replay", "./run.sh record", "40", "OPENAI_BASE_URL", "answers.json"):
        assert needle in text
    assert cli.main(["handout", "replay", str(tmp_path / "out")]) == 2
    assert "not empty" in capsys.readouterr().err


def test_an_executed_report_runs_again_from_any_folder_without_running_the_candidate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, graded_samples: GradedCohort
) -> None:
    """Run All as a reviewer does, with the kernel started in the repository root, reports/ or the report's folder."""
    import time

    import papermill

    from gradelib.review.scoringpanel import ENV_HEADLESS

    notebook = graded_samples.notebook("payments", "jonas-berg")
    reports = graded_samples.reports
    result = notebook.with_suffix(".json")
    before = result.read_bytes()
    html = notebook.with_suffix(".html").read_text()
    for code in ("grading.", "In&nbsp;[", ".staging", "panel_for", "result_path"):
        assert code not in html, code  # the hiring manager's copy has no code or parameters
    assert "Score table taken" in html and "Found the defect" in html
    monkeypatch.delenv(ENV_HEADLESS, raising=False)
    for cwd in (ROOT, reports, notebook.parent):
        started = time.monotonic()
        out = tmp_path / f"rerun-{cwd.name}.ipynb"
        papermill.execute_notebook(str(notebook), str(out), kernel_name="python3", progress_bar=False, cwd=str(cwd))
        assert time.monotonic() - started < 60, "a re-run shows stored results; it runs no sandbox"
        nb = nbformat.read(out, as_version=4)
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
        assert [o for o in outputs if o.output_type == "error"] == [], cwd
        shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
        assert "stored results" in shown and "Key scope" in shown
        assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
        assert result.read_bytes() == before, "a reviewer's run never rewrites the batch's result"
