"""The take-home's notebook, run by papermill as the kit's batch runs it, on one sample: every cell runs and
every rubric line's cell shows that line (the template can never break silently again)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import nbformat
import papermill
import pytest
from conftest import SAMPLES
from gradelib.display.render import OUTCOME_SYMBOLS, line_anchor
from gradelib.takehomes.rubric import default_rubric

from gradelib_webhooks import PLUGIN

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]
SHOW = re.compile(r"""^grading\.show\(["'](\w+)["']\)$""")


def _html(cell: nbformat.NotebookNode) -> str:
    return "".join(str(output.get("data", {}).get("text/html", "")) for output in cell.outputs)


def test_the_notebook_runs_on_a_sample_and_shows_every_line(tmp_path: Path) -> None:
    result = tmp_path / "ada-lindqvist.json"
    executed = tmp_path / "ada-lindqvist.ipynb"
    papermill.execute_notebook(
        str(PLUGIN.notebook()),
        str(executed),
        parameters={
            "submission": str(SAMPLES / "ada-lindqvist"),
            "gradebook": str(tmp_path / "gradebook.sqlite"),
            "result_path": str(result),
            "save": True,
        },
        cwd=str(tmp_path),
        progress_bar=False,
    )
    notebook = nbformat.read(executed, as_version=4)
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [o for cell in cells for o in cell.outputs if o.output_type == "error"] == []
    rubric = default_rubric(PLUGIN.id)
    shown = {}
    for cell in cells:
        if found := SHOW.match(cell.source.strip()):
            shown[found.group(1)] = _html(cell)
    assert list(shown) == list(rubric.line_ids), "one cell per rubric line, in rubric order"
    saved = json.loads(result.read_text())
    outcomes = {line["id"]: line["outcome"] for line in saved["lines"]}
    for line in rubric.lines:
        card = shown[line.id]
        assert line.title in card, line.id
        if line.id not in PLUGIN.note_lines:  # a note card shows the candidate's note, not a badge
            assert OUTCOME_SYMBOLS[outcomes[line.id]] in card, (line.id, card[:300])
    assert outcomes == {"exactly_once": "pass", "ordering": "pass", "signature": "pass", "explanation": "needs_review"}
    # the card it opens with (the kit's shared one): every line's verdict, linked to the card above
    verdicts = _html(next(cell for cell in cells if "verdicts" in cell.metadata.get("tags", [])))
    for line in rubric.lines:
        assert f'href="#{line_anchor(line.id)}"' in verdicts and f'id="{line_anchor(line.id)}"' in shown[line.id]
    assert verdicts.count(OUTCOME_SYMBOLS["pass"]) == 3 and "Awaits a reviewer" in verdicts
    views = json.loads(result.with_name("ada-lindqvist.views.json").read_text())
    assert [scenario["scenario"] for scenario in views["deliveries"]][:1] == ["duplicates"]
    deliveries = _html(next(cell for cell in cells if "deliveries_html" in cell.source))
    assert "times applied" in deliveries
    assert all(html.escape(scenario["title"]) in deliveries for scenario in views["deliveries"])
