"""The kit works from any folder: a lead grading from their own folder, a reviewer re-running a report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

pytestmark = pytest.mark.e2e

GRADELIB = Path(sys.executable).with_name("gradelib")


def test_grade_from_another_folder_then_run_the_executed_report_again_from_its_own_folder(tmp_path: Path) -> None:
    cohort = tmp_path / "cohort"
    shutil.copytree(SAMPLES / "replay" / "amara-okafor", cohort / "amara-okafor", symlinks=True)
    lead = tmp_path / "lead"  # nowhere near the kit's checkout
    lead.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(GRADELIB), "grade", "../cohort", "--reports", "reports"], cwd=lead, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "errors 0" in done.stdout, done.stdout + done.stderr
    result = json.loads((lead / "reports" / "replay" / "submission-01.json").read_text())
    assert result["total"] == 100, result

    # A reviewer opens the executed report where it lies and runs every cell again (headless here).
    notebook = lead / "reports" / "replay" / "submission-01.ipynb"
    rerun = tmp_path / "rerun.ipynb"
    import papermill

    papermill.execute_notebook(
        str(notebook), str(rerun), kernel_name="python3", progress_bar=False, cwd=str(notebook.parent)
    )
    cells = json.loads(rerun.read_text())["cells"]
    errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
