"""Batch notebooks are written once, at the end, and still keep the evidence of a failure."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from gradelib.execution import engine, execute

pytestmark = pytest.mark.e2e


def _notebook(folder: Path, *sources: str) -> Path:
    node = nbformat.v4.new_notebook()
    node.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    path = folder / "source.ipynb"
    nbformat.write(node, path)
    return path


def _texts(path: Path) -> list[str]:
    node = nbformat.read(path, as_version=4)
    code = [cell for cell in node.cells if cell.cell_type == "code"]
    return ["".join(o.get("text", "") for o in cell.outputs) for cell in code]


def test_the_notebook_is_written_once_with_every_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[bool] = []
    original = engine.NotebookExecutionManager.save

    def counted(self: engine.SaveAtEndManager, **kwargs: object) -> None:
        writes.append(self.complete)
        original(self, **kwargs)

    monkeypatch.setattr(engine.NotebookExecutionManager, "save", counted)
    source = _notebook(tmp_path, "print('one')", "print('two')", "print('three')")
    assert execute.execute(source, tmp_path / "out.ipynb", {}) is None
    assert _texts(tmp_path / "out.ipynb") == ["one\n", "two\n", "three\n"]
    assert writes == [True]  # papermill's own manager writes twice per cell


def test_a_failed_cell_still_leaves_the_evidence_before_it(tmp_path: Path) -> None:
    source = _notebook(tmp_path, "print('evidence')", "raise ValueError('broken')", "print('never')")
    error = execute.execute(source, tmp_path / "failed.ipynb", {})
    assert error is not None and "ValueError: broken" in error
    assert _texts(tmp_path / "failed.ipynb") == ["evidence\n", "", ""]  # and nothing ran after it
