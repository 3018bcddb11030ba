"""`gradelib new-takehome`: what it writes, and what it refuses before writing anything."""

from __future__ import annotations

import ast
import json
import tomllib
from pathlib import Path

import pytest

from gradelib import cli
from gradelib.scaffold.newtakehome import NewTakehomeRefused, new_takehome


def test_it_writes_the_examples_shape_with_every_placeholder_filled(tmp_path: Path) -> None:
    folder = new_takehome("label_queue", tmp_path, title="A queue that labels tickets")
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    package = "gradelib_label_queue"
    assert files == sorted([
        "README.md", "pyproject.toml", "submissions/sample-one/greet.sh", "tests/conftest.py",
        "tests/test_label_queue.py", *(f"{package}/{name}" for name in (
            "HANDOUT.md", "__init__.py", "grading.py", "lines/__init__.py", "lines/greets.py", "notebook.ipynb",
            "py.typed", "rubric.toml", "runs.py", "views.py",
        )),
    ])  # fmt: skip
    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert "{{" not in text and "PACKAGE" not in str(path), path
            if path.suffix == ".py":
                ast.parse(text, str(path))
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["gradelib.takehomes"] == {"label_queue": f"{package}:PLUGIN"}
    rubric = tomllib.loads((folder / package / "rubric.toml").read_text())
    assert rubric["takehome"] == "label_queue" and [line["id"] for line in rubric["lines"]] == ["greets"]
    notebook = json.loads((folder / package / "notebook.ipynb").read_text())
    assert any("parameters" in cell["metadata"].get("tags", []) for cell in notebook["cells"])
    assert "class LabelQueueGrading(LabelQueueRuns)" in (folder / package / "grading.py").read_text()
    assert "A queue that labels tickets" in (folder / package / "__init__.py").read_text()
    assert (folder / "submissions" / "sample-one" / "greet.sh").stat().st_mode & 0o111


@pytest.mark.parametrize(
    ("name", "why"),
    [("Webhooks", "not a take-home name"), ("9lives", "not a take-home name"), ("a-b", "not a take-home name"),
     ("../x", "not a take-home name"), ("replay", "already installed")],
)  # fmt: skip
def test_a_name_that_is_not_an_id_or_is_taken_is_refused_and_nothing_is_written(
    tmp_path: Path, name: str, why: str
) -> None:
    with pytest.raises(NewTakehomeRefused, match=why):
        new_takehome(name, tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "takehome-greeting").mkdir()
    (tmp_path / "takehome-greeting" / "mine.txt").write_text("a team's own work")
    assert cli.main(["new-takehome", "greeting", "--into", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "takehome-greeting").iterdir()] == ["mine.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["takehome-greeting"], "no half-written folder left beside it"
