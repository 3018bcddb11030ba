"""The executed-notebook normaliser behind the notebook golden files: volatile parts masked, shown text kept."""

from __future__ import annotations

import base64
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from notebook_golden import notebook_text

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()


def _notebook(path: Path, *, run: int, note: str = "replay: 20 tickets", repeats: int = 1) -> Path:
    """An executed report whose volatile parts depend on `run`."""
    card = (
        f"<style>.gl-card{{margin:0}}</style><div class='gl-card'><b>Key scope</b> {note} in {run}.{run}2 s"
        f'<div class="gl-key">gaps between attempts (ms)</div><ul><li>{100 + run}</li></ul>'
        f'<div class="gl-key">gaps per run (ms)</div><ul>{"<li>[1, 2]</li>" * repeats}</ul>'
        f'<div class="gl-key">similarity</div><span>0.771</span>'
        f"<table><tr><th>time</th></tr><tr><td>0.{run}03</td></tr></table>"
        f"<svg width='540' height='200'><circle r='{run}'/></svg>"
        f"digest <code>{run:x}{'ab' * 10}</code> at /tmp/pytest-{run}/reports/x.json, 127.0.0.1:{40000 + run}"
        f" pid {900 + run}, taken 2026-12-0{run} 12:3{run} UTC</div>"
    )
    shown = new_code_cell("grading.show('key_scope')", execution_count=run)
    shown.outputs = [
        new_output("display_data", data={"text/html": card, "text/plain": "<Html>"}),
        new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure size 750x335 with 1 Axes>"}),
        new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": f"m{run}"}}),
        new_output(
            "display_data",
            data={"image/svg+xml": f'<svg width="720" height="180"><text>{run} s</text></svg>'},
        ),
        new_output("stream", name="stdout", text=f"graded in {run}.5 s\n"),
    ]
    nb = new_notebook(cells=[new_markdown_cell("## 2. Key scope"), shown])
    nb.metadata["papermill"] = {"duration": run * 1.5}
    nbformat.write(nb, path)
    return path


def test_two_runs_that_differ_only_in_what_varies_give_the_same_text(tmp_path: Path) -> None:
    first = notebook_text(_notebook(tmp_path / "a.ipynb", run=1))
    second = notebook_text(_notebook(tmp_path / "b.ipynb", run=2))
    assert first == second
    for kept in ("## 2. Key scope", "<b>Key scope</b> replay: 20 tickets in <t>", "<span>0.771</span>"):
        assert kept in first, kept
    for masked in ("<li><n></li>", "<td><n></td>", "<svg width=540 height=200>", "<code><hex></code>", "<tmp>"):
        assert masked in first, masked
    assert "127.0.0.1:<port>" in first and "pid <n>" in first and "taken <when>" in first
    assert "--- image/png <picture: <Figure size 750x335 with 1 Axes>>" in first and "--- widget" in first
    assert "--- image/svg+xml <picture: <svg width=720 height=180>>" in first
    assert "<style: block 1>" in first and "--- stdout\ngraded in <t>" in first


def test_how_many_runs_measured_a_wait_does_not_change_the_text(tmp_path: Path) -> None:
    three = notebook_text(_notebook(tmp_path / "a.ipynb", run=1, repeats=3))
    six = notebook_text(_notebook(tmp_path / "b.ipynb", run=1, repeats=6))
    assert three == six and three.count("<li>[<n>, <n>]</li>") == 1


def test_a_change_a_reviewer_sees_changes_the_text(tmp_path: Path) -> None:
    before = notebook_text(_notebook(tmp_path / "a.ipynb", run=1))
    after = notebook_text(_notebook(tmp_path / "b.ipynb", run=1, note="replay: 19 tickets"))
    assert before != after


def test_known_paths_are_named(tmp_path: Path) -> None:
    text = notebook_text(_notebook(tmp_path / "a.ipynb", run=3), {"/tmp/pytest-3/reports": "<reports>"})
    assert "<reports>/x.json" in text
