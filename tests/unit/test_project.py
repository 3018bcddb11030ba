"""Whether a Python submission is a project that must itself be installed, and why (read as data)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import read_declaration
from gradelib.environment.project import commands, digest

HATCH = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "triage-svc"
version = "0.2.0"
dependencies = ["httpx>=0.27"]

[project.scripts]
triage-svc = "triage_svc.cli:main"
"""


def _project(tmp_path: Path, files: dict[str, str]):  # type: ignore[no-untyped-def]
    write_tree(tmp_path, files)
    declaration = read_declaration(tmp_path)
    return declaration.python.project if declaration.python else None


def test_a_console_script_called_by_run_sh_makes_the_project_required(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        {"pyproject.toml": HATCH, "run.sh": '#!/bin/sh\nset -e\nexec triage-svc "$@"\n', "triage_svc/__init__.py": ""},
    )
    assert project is not None and project.required and not project.editable
    assert project.name == "triage-svc" and project.version == "0.2.0" and project.scripts == ("triage-svc",)
    assert project.system.backend == "hatchling.build" and project.system.requires == ("hatchling",)
    assert project.reasons == ("run.sh calls its console script triage-svc",)


def test_a_src_layout_and_a_readme_pip_install_are_reasons(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        {
            "pyproject.toml": HATCH,
            "src/triage_svc/__init__.py": "",
            "README.md": "## Setup\n\n```\npython -m venv .venv\npip install -e '.[dev]'\n```\n",
            "run.sh": 'python -m triage_svc "$@"\n',
        },
    )
    assert project is not None and project.required and project.editable
    assert project.reasons == ("its code is under src/ (src/triage_svc)", "README.md says `pip install -e '.[dev]'`")


def test_uv_run_and_poetry_install_install_the_project_out_of_habit(tmp_path: Path) -> None:
    poetry = '[tool.poetry]\nname = "bot"\nversion = "1.0"\n[tool.poetry.dependencies]\npython = "^3.11"\n'
    files = {"pyproject.toml": poetry, "README.md": "Run `poetry install`.\n", "bot/__init__.py": ""}
    project = _project(tmp_path, files)
    assert project is not None and not project.required and project.editable
    assert project.system.backend == "poetry.core.masonry.api"


def test_a_project_without_a_build_system_or_a_reason_is_not_built(tmp_path: Path) -> None:
    app = '[project]\nname = "app"\nversion = "0.1.0"\ndependencies = ["httpx"]\n'
    assert _project(tmp_path / "app", {"pyproject.toml": app, "run.sh": "exec uv run --frozen python -m app\n"}) is None
    plain = HATCH.replace('triage-svc = "triage_svc.cli:main"', "")
    assert _project(tmp_path / "plain", {"pyproject.toml": plain, "run.sh": "python3 -m triage_svc\n"}) is None


def test_setup_cfg_console_scripts_are_read_without_running_setup_py(tmp_path: Path) -> None:
    cfg = (
        "[metadata]\nname = ticket-triage\n\n"
        "[options.entry_points]\nconsole_scripts =\n    ticket-triage = triage.__main__:main\n"
    )
    project = _project(
        tmp_path,
        {"setup.cfg": cfg, "setup.py": "raise SystemExit('never run')\n", "run.sh": "ticket-triage $1\n"},
    )
    assert project is not None and project.name == "ticket-triage" and project.required
    assert project.system.backend == "setuptools.build_meta:__legacy__"


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ('exec triage "$@"', ["triage"]),
        ('case "$1" in\n  record|replay) exec triage "$1" ;;\nesac', ["case", "triage", "esac"]),
        ("FOO=1 env BAR=2 time triage replay", ["triage"]),
        ("uv run --frozen --no-sync triage replay", ["triage"]),
        (".venv/bin/triage replay && echo done # triage-not", ["triage", "echo"]),
        ('cd "$(dirname "$0")"; poetry run bot', ["cd", "dirname", "bot"]),
    ],
)
def test_commands_a_shell_script_runs(script: str, expected: list[str]) -> None:
    assert [c for c in commands(script) if c] == expected


def test_the_digest_is_the_same_from_another_folder_and_ignores_build_leftovers(tmp_path: Path) -> None:
    files = {"pyproject.toml": HATCH, "src/triage_svc/__init__.py": "x = 1\n"}
    a = write_tree(tmp_path / "a", files)
    b = write_tree(tmp_path / "elsewhere" / "b", {**files, ".venv/bin/python": "", "src/x.egg-info/PKG": ""})
    (b / "src/x.egg-info/PKG").unlink()
    (b / "src/x.egg-info").rmdir()
    assert digest(a) == digest(b)
    (b / "src/triage_svc/__init__.py").write_text("x = 2\n")
    assert digest(a) != digest(b)
