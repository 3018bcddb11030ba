"""The notebooks, executed headless by papermill through the batch, as a lead runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, SAMPLES

from gradelib import batch, cli

pytestmark = pytest.mark.e2e
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebooks_have_no_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path
    assert any("parameters" in cell.metadata.get("tags", []) for cell in nb.cells)


def test_batch_grades_samples_into_reports_and_survives_a_broken_one(tmp_path: Path) -> None:
    cohort = tmp_path / "cohort"
    cohort.mkdir()
    for name in ("amara-okafor", "chen-wei"):
        shutil.copytree(SAMPLES / "replay" / name, cohort / name)
    (cohort / "broken.zip").write_bytes(b"this is not a zip")
    reports = tmp_path / "reports"
    outcomes = {o.submission: o for o in batch.grade([cohort], reports=reports, jobs=2)}
    assert outcomes["broken"].status == "error" and "zip" in (outcomes["broken"].error or "")
    for name, total in (("amara-okafor", 100.0), ("chen-wei", 60.0)):
        outcome = outcomes[name]
        assert outcome.status == "graded", outcome.error
        nb = nbformat.read(reports / "replay" / f"{name}.ipynb", as_version=4)
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        assert errors == []
        shown = "".join(
            o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
        )
        for title in ("Two replay runs are byte-identical", "Missing fixture fails loudly", "total"):
            assert title in shown
        result = json.loads((reports / "replay" / f"{name}.json").read_text())
        assert result["total"] == total
        html = (reports / "replay" / f"{name}.html").read_text()
        assert "replay makes no network calls" in html


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
