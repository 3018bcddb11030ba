"""Which Python projects Hatch sets up, read from the files that name it (the kit's uv otherwise)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment.declarationrecords import Reader
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.pysetup import detect
from gradelib.sandbox.mounts import STABLE_ENV

PROJECT = '[project]\nname = "t"\nversion = "1"\ndependencies = ["httpx"]\n'
BACKEND = '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'


@pytest.mark.parametrize(
    ("files", "why"),
    [
        ({"hatch.toml": "[envs.default]\n"}, "the submission has a hatch.toml"),
        ({"pyproject.toml": PROJECT + "[tool.hatch.envs.default]\npython = '3.11'\n"}, "[tool.hatch.envs]"),
        ({"run.sh": '#!/bin/sh\nexec hatch run python -m t "$@"\n'}, "run.sh runs `hatch run`"),
        ({"README.md": "Set up with `hatch env create`, then ./run.sh\n"}, "README.md runs `hatch env create`"),
        ({"Makefile": "test:\n\thatch test\n"}, "Makefile runs `hatch test`"),
    ],
)
def test_hatch_sets_up_a_project_whose_files_name_it(tmp_path: Path, files: dict[str, str], why: str) -> None:
    write_tree(tmp_path, {"pyproject.toml": PROJECT + BACKEND, **files})
    doc = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    setup = detect(Reader(tmp_path), doc)
    assert setup is not None and setup.tool == "hatch" and why in setup.why
    assert setup.commands() == [["hatch", "env", "create", "default"]]


@pytest.mark.parametrize(
    "files",
    [
        {"run.sh": "exec python -m t\n"},  # hatchling as the build backend is not Hatch the environment manager
        {"run.sh": "exec uv run python -m t  # see https://example.com/hatch-run\n"},
        {"README.md": "We thought about hatching a plan.\n"},
    ],
)
def test_a_project_that_does_not_name_hatch_is_left_to_the_kits_installers(
    tmp_path: Path, files: dict[str, str]
) -> None:
    write_tree(tmp_path, {"pyproject.toml": PROJECT + BACKEND, **files})
    doc = tomllib.loads((tmp_path / "pyproject.toml").read_text())
    assert detect(Reader(tmp_path), doc) is None


def test_the_environment_is_made_at_the_fixed_path_from_the_configured_index(tmp_path: Path) -> None:
    write_tree(tmp_path, {"hatch.toml": "", "pyproject.toml": PROJECT})
    setup = detect(Reader(tmp_path), tomllib.loads(PROJECT))
    assert setup is not None
    settings = InstallSettings(cache_dir=tmp_path / "cache", index_url="https://mirror.example/simple")
    env = setup.env(settings, Path("/cache/tools/hatch"))
    assert env["HATCH_ENV_TYPE_VIRTUAL_PATH"] == f"{STABLE_ENV}/venv"
    assert env["HATCH_ENV_TYPE_VIRTUAL_UV_PATH"] == "/cache/tools/hatch/bin/uv"
    assert env["HATCH_DATA_DIR"].startswith(STABLE_ENV) and env["HATCH_PYTHON"] == settings.python
    assert env["UV_DEFAULT_INDEX"] == "https://mirror.example/simple" and env["UV_NO_CONFIG"] == "1"
    again = detect(Reader(tmp_path), tomllib.loads(PROJECT))
    write_tree(tmp_path, {"pyproject.toml": PROJECT.replace("httpx", "httpx>=0.28")})
    changed = detect(Reader(tmp_path), tomllib.loads(PROJECT))
    assert again is not None and changed is not None and again.digest == setup.digest != changed.digest


def test_a_script_with_inline_metadata_is_set_up_by_uv(tmp_path: Path) -> None:
    block = '# /// script\n# dependencies = ["httpx"]\n# ///\nimport httpx\n'
    write_tree(tmp_path, {"triage.py": block, "util.py": "x = 1\n", "run.sh": "exec uv run triage.py\n"})
    setup = detect(Reader(tmp_path), None)
    assert setup is not None and (setup.tool, setup.scripts) == ("uv", ("triage.py",))
    assert setup.commands() == [["uv", "sync", "--script", "triage.py"]]
    assert setup.why == "triage.py declares dependencies inline (PEP 723)"
    settings = InstallSettings(cache_dir=tmp_path / "cache")
    assert setup.env(settings, Path("/x"), run=True)["UV_OFFLINE"] == "1"
    assert "UV_OFFLINE" not in setup.env(settings, Path("/x"))
    write_tree(tmp_path, {"triage.py": block + "print('a change below the block')\n"})
    same = detect(Reader(tmp_path), None)
    write_tree(tmp_path, {"triage.py": block.replace("httpx", "httpx>=0.28")})
    changed = detect(Reader(tmp_path), None)
    assert same is not None and changed is not None and same.digest == setup.digest != changed.digest


@pytest.mark.parametrize(
    ("run_sh", "env"),
    [
        ('exec hatch run "app:$1"', "app"),
        ("exec hatch -e cli run python triage.py", "cli"),
        ("exec hatch --env=cli run replay", "cli"),
        ("exec hatch run replay", "default"),
    ],
)
def test_hatch_makes_the_environment_run_sh_runs(tmp_path: Path, run_sh: str, env: str) -> None:
    """`hatch run app:replay`: a reviewer makes `app` (the default environment may install a project that does not
    build, `skip-install` in `app` says it need not)."""
    write_tree(tmp_path, {"run.sh": f"#!/bin/sh\n{run_sh}\n", "hatch.toml": ""})
    setup = detect(Reader(tmp_path), None)
    assert setup is not None and setup.commands() == [["hatch", "env", "create", env]]


def test_hatch_wins_over_a_script_and_a_plain_script_is_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"main.py": "# a comment\nprint(1)\n"})
    assert detect(Reader(tmp_path), None) is None
    write_tree(tmp_path, {"tool.py": "# /// script\n# dependencies = []\n# ///\n", "hatch.toml": ""})
    found = detect(Reader(tmp_path), None)
    assert found is not None and found.tool == "hatch"


@pytest.mark.parametrize(
    ("lock", "kind", "command"),
    [
        ("uv.lock", "uv-project", ["uv", "sync", "--frozen", "--all-packages", "--all-groups"]),
        ("poetry.lock", "poetry", ["poetry", "install", "--no-interaction", "--all-groups", "--all-extras"]),
        ("pdm.lock", "pdm", ["pdm", "sync"]),
    ],
)
def test_a_lockfile_names_the_tool_that_sets_the_project_up(
    tmp_path: Path, lock: str, kind: str, command: list[str]
) -> None:
    write_tree(tmp_path, {"pyproject.toml": PROJECT, lock: "# written by the tool\n"})
    setup = detect(Reader(tmp_path), tomllib.loads(PROJECT))
    assert setup is not None and setup.kind == kind and setup.commands() == [command]
    assert setup.why == f"the submission has a {lock}"


@pytest.mark.parametrize(
    ("test_script", "commands"),
    [
        ("tox -e py", [["ALL"], ["py"]]),
        ("tox run -q -e lint,py311", [["ALL"], ["lint,py311"]]),
        ('tox -e "$1"', [["ALL"]]),
    ],
)
def test_tox_makes_every_listed_environment_and_the_one_the_runs_name(
    tmp_path: Path, test_script: str, commands: list[list[str]]
) -> None:
    """`tox -e py` names an environment env_list may lack: a reviewer's `tox -e py` makes it."""
    write_tree(
        tmp_path,
        {"tox.ini": "[tox]\nenv_list = py311\n", "package.json": json.dumps({"scripts": {"test": test_script}})},
    )
    setup = detect(Reader(tmp_path), None)
    assert setup is not None and setup.tool == "tox"
    assert [argv[argv.index("-e") + 1 : argv.index("-e") + 2] for argv in setup.commands()] == commands
