"""The take-home installed beside the kit, graded as a team grades a cohort: `gradelib grade` on three samples
writes a report for each with every line, exits 0, and the reviewer's scoring panel opens on each."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES
from gradelib import cli
from gradelib.review.scoringpanel import ScoringPanel, panel_for
from gradelib.takehomes.rubric import default_rubric

from gradelib_webhooks import PLUGIN

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]
THREE = ("ada-lindqvist", "bruno-draft", "chioma-okafor")


def test_gradelib_grade_writes_a_report_per_sample_with_every_line_and_the_panel_opens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports"
    code = cli.main(["grade", *(str(SAMPLES / name) for name in THREE), "--reports", str(reports), "--jobs", "2"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.strip().splitlines()[-1].startswith("graded 3, up to date 0, errors 0"), out.out
    results = sorted(p for p in (reports / PLUGIN.id).glob("submission-*.json") if not p.name.endswith(".views.json"))
    assert len(results) == 3 and all(path.with_suffix(".html").is_file() for path in results)
    line_ids = list(default_rubric(PLUGIN.id).line_ids)
    for path in results:
        result = json.loads(path.read_text())
        assert [line["id"] for line in result["lines"]] == line_ids
        assert "error" not in {line["outcome"] for line in result["lines"]}, result["lines"]
        label = result["submission"]
        panel = panel_for(reports / "gradebook.sqlite", PLUGIN.id, label, reviewer="ana", headless=False)
        assert isinstance(panel, ScoringPanel), label
        assert "explanation" in panel.line_rows, "the line only a reviewer scores is on the panel"
