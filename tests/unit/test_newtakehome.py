"""`gradelib new-takehome`: what it writes (its documents linking only to its own files), what it refuses before
writing anything, and how it installs into the kit's own environment or says the one command that does."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from gradelib import cli, takehomes
from gradelib.scaffold.install import install, install_command, pip_command
from gradelib.scaffold.newtakehome import SAMPLE, NewTakehomeRefused, new_takehome


def test_it_writes_the_examples_shape_with_every_placeholder_filled(tmp_path: Path) -> None:
    folder = new_takehome("label_queue", tmp_path, title="A queue that labels tickets")
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    package = "gradelib_label_queue"
    assert files == sorted([
        "README.md", "TAKEHOME-GUIDE.md", "pyproject.toml", "submissions/sample-one/greet.sh", "tests/conftest.py",
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


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_its_documents_link_only_to_files_it_has(tmp_path: Path) -> None:
    """The generated package lives outside the kit's repository: a link to the kit's files would be broken there."""
    folder = new_takehome("greeting", tmp_path)
    linked = []
    for document in folder.rglob("*.md"):
        for target in LINK.findall(document.read_text()):
            assert not re.match(r"^[a-z]+:", target), f"{document.name} links out of the package: {target}"
            path = (document.parent / target.partition("#")[0]).resolve()
            assert path.is_file() and path.is_relative_to(folder.resolve()), f"{document.name}: {target}"
            linked.append(target)
    assert "TAKEHOME-GUIDE.md" in linked, "the README links the guide"
    guide = (folder / "TAKEHOME-GUIDE.md").read_text()
    for named in re.findall(r"`(gradelib_greeting/[\w./]+|submissions/[\w-]+|tests/)`", guide):
        assert (folder / named).exists(), f"the guide names {named}, which the package does not have"


def test_without_install_it_prints_the_kits_own_pip_and_what_to_run_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["new-takehome", "greeting", "--into", str(tmp_path), "--no-install"]) == 0
    out = capsys.readouterr().out.splitlines()
    folder = tmp_path / "takehome-greeting"
    assert out[0] == f"wrote {folder}"
    assert out[1] == f"install it into the kit's environment: {shlex.join(pip_command(folder))}"
    assert pip_command(folder)[:3] == (sys.executable, "-m", "pip"), "the kit's own interpreter, not a pip on PATH"
    assert out[2].endswith(f" check greeting {folder / 'submissions' / SAMPLE}")
    assert (folder / "submissions" / SAMPLE).is_dir()
    assert "greeting" not in takehomes.names(), "nothing was installed"


def test_an_install_that_fails_says_why_and_what_to_run_instead(tmp_path: Path) -> None:
    """A folder the installer cannot take (here: no project at all; nothing reaches the kit's environment)."""
    empty = tmp_path / "not-a-package"
    empty.mkdir()
    done = install(empty)
    assert not done.ok and done.why
    assert done.command == install_command(empty)
    assert done.instead == pip_command(empty) == (sys.executable, "-m", "pip", "install", "-e", str(empty.resolve()))


def test_the_kits_installer_is_this_interpreters_pip_else_its_uv(tmp_path: Path) -> None:
    command = install_command(tmp_path)
    assert command is not None and command[-2:] == ("-e", str(tmp_path.resolve()))
    if importlib.util.find_spec("pip") is not None:
        assert command[:4] == (sys.executable, "-m", "pip", "install")
    else:
        assert Path(command[0]).name == "uv" and command[1:5] == ("pip", "install", "--python", sys.executable)
