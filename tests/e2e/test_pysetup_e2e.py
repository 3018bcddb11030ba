"""Python submissions set up by the tool their files name, in the sandbox, through the registry proxy,
then run offline in fresh copies as their run.sh says (these tests reach PyPI, as CI does).

`setups/hatch-project` is a src-layout project with one dependency whose run.sh is
`exec hatch run python -m hello_hatch "$@"`; `setups/pep723-script` a single script with inline
metadata whose run.sh is `exec uv run hello.py "$@"`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.prepared import prepare
from gradelib.environment.tools import TOOLS
from gradelib.sandbox import Limits, Sandbox

pytestmark = pytest.mark.e2e

HATCH_PROJECT = Path(__file__).parent / "setups" / "hatch-project"
PEP723_SCRIPT = Path(__file__).parent / "setups" / "pep723-script"
PDM_PROJECT = Path(__file__).parent / "setups" / "pdm-project"
PIPFILE_ONLY = Path(__file__).parent / "setups" / "pipfile-only"
POETRY_PINNED = Path(__file__).parent / "setups" / "poetry-pinned"


def test_a_hatch_project_is_set_up_by_hatch_and_hatch_run_works_offline_in_every_copy(tmp_path: Path) -> None:
    root = shutil.copytree(HATCH_PROJECT, tmp_path / "sub")
    settings = InstallSettings(cache_dir=tmp_path / "cache")
    env = prepare(root, settings)
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["version"], setup["command"]) == ("hatch", "1.18.2", "hatch env create default")
    assert setup["why"] == "run.sh runs `hatch run`"
    assert setup["network"]["refused"] == [] and set(setup["network"]["reached"]) <= {
        "pypi.org:443", "files.pythonhosted.org:443",
    }  # fmt: skip
    names = {package["name"].lower() for package in installed["packages"]}
    assert {"six", "hello-hatch"} <= names, "the dependency, and the project in development mode"
    with Sandbox(root, mounts=env.mounts()) as box:
        runs = [box.run(["./run.sh", f"run-{n}"], box.copy(f"run{n}"), limits=Limits(wall_seconds=90)) for n in (1, 2)]
    for n, run in enumerate(runs, 1):
        assert run.exit_code == 0, run.stderr
        assert run.stdout.startswith("six 1.") and f"hello_hatch from src/hello_hatch; run-{n}" in run.stdout
        assert not [c for c in run.connections if c.is_network], "hatch run made no connection"
    again = prepare(root, settings)
    assert again.python is not None and again.python.cache_hit


def test_a_hatch_project_whose_dependency_does_not_exist_is_an_error_in_hatchs_words(tmp_path: Path) -> None:
    root = shutil.copytree(HATCH_PROJECT, tmp_path / "sub")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"six>=1.16"', '"gradelib-no-such-package-7f3a>=1"'))
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.python is None and env.error is not None
    assert "hatch 1.18.2 could not set the project up" in env.error
    assert "gradelib-no-such-package-7f3a" in env.error


def test_a_script_with_inline_metadata_is_set_up_by_uv_and_uv_run_works_offline(tmp_path: Path) -> None:
    root = shutil.copytree(PEP723_SCRIPT, tmp_path / "sub")
    settings = InstallSettings(cache_dir=tmp_path / "cache")
    env = prepare(root, settings)
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["command"]) == ("uv", "uv sync --script hello.py")
    assert setup["why"] == "hello.py declares dependencies inline (PEP 723)"
    assert [package["name"] for package in installed["packages"]] == ["six"]
    cache_before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "cache" / "envs").rglob("*"))
    with Sandbox(root, mounts=env.mounts()) as box:
        runs = [box.run(["./run.sh", f"run-{n}"], box.copy(f"run{n}"), limits=Limits(wall_seconds=90)) for n in (1, 2)]
        python = box.run(["python", "-c", "import six"], box.copy("python"), limits=Limits(wall_seconds=30))
    for n, run in enumerate(runs, 1):
        assert run.exit_code == 0, run.stderr
        assert run.stdout.startswith("six 1.") and run.stdout.rstrip().endswith(f"run-{n}")
        assert not [c for c in run.connections if c.is_network], "uv run made no connection"
    assert python.exit_code == 0, "`python` in a run is the script's environment"
    cache_after = sorted(p.relative_to(tmp_path) for p in (tmp_path / "cache" / "envs").rglob("*"))
    assert cache_after == cache_before, "what uv wrote in the runs stayed in their own scratch"


def test_a_pdm_project_is_set_up_by_pdm_sync_and_pdm_run_works_offline(tmp_path: Path) -> None:
    """`setups/pdm-project`: a src-layout project with a pdm.lock written by PDM 2.29.4 and a run.sh of
    `exec pdm run python -m hello_pdm "$@"`."""
    root = shutil.copytree(PDM_PROJECT, tmp_path / "sub")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["version"], setup["command"]) == ("pdm", "2.29.4", "pdm sync")
    assert setup["why"] == "the submission has a pdm.lock"
    assert {"six", "hello-pdm"} <= {package["name"].lower() for package in installed["packages"]}
    with Sandbox(root, mounts=env.mounts()) as box:
        run = box.run(["./run.sh", "offline"], box.copy("run"), limits=Limits(wall_seconds=90))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("six 1.") and run.stdout.rstrip().endswith("offline")
    assert not [c for c in run.connections if c.is_network], "pdm run made no connection"


def test_a_pipfile_alone_is_locked_and_installed_by_pipenv_and_pipenv_run_works_offline(tmp_path: Path) -> None:
    """`setups/pipfile-only`: a Pipfile (six) and no lock; run.sh is `exec pipenv run python hello.py "$@"`."""
    root = shutil.copytree(PIPFILE_ONLY, tmp_path / "sub")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["version"], setup["command"]) == ("pipenv", "2026.10.3", "pipenv install --dev")
    assert setup["why"] == "the submission has a Pipfile"
    assert "six" in {package["name"].lower() for package in installed["packages"]}
    assert not (root / "Pipfile.lock").exists(), "the lock Pipenv wrote stayed in the setup's copy"
    with Sandbox(root, mounts=env.mounts()) as box:
        runs = [box.run(["./run.sh", f"run-{n}"], box.copy(f"run{n}"), limits=Limits(wall_seconds=90)) for n in (1, 2)]
    for n, run in enumerate(runs, 1):
        assert run.exit_code == 0, run.stderr
        assert run.stdout.startswith("six 1.") and run.stdout.rstrip().endswith(f"run-{n}")
        assert not [c for c in run.connections if c.is_network], "pipenv run made no connection"


def test_uv_run_in_a_project_the_kit_installed_is_the_real_uv_offline(tmp_path: Path) -> None:
    """A `[project]` installed by the kit (no lock, no tool named): `uv run` in run.sh is the kit's pinned uv,
    running in that environment; asking it for a package at run time fails in uv's own words."""
    root = tmp_path / "sub"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[project]\nname = "hello-uv"\nversion = "0.1.0"\nrequires-python = ">=3.11"\ndependencies = ["six>=1.16"]\n'
    )
    (root / "hello.py").write_text((PIPFILE_ONLY / "hello.py").read_text())
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None and env.python is not None and env.python.setup is not None
    assert env.python.setup["tool"] == "uv" and not env.python.stable, "the kit's own install, seen where it is"
    argv = ["uv", "run", "python", "hello.py", "offline"]
    with Sandbox(root, mounts=env.mounts()) as box:
        run = box.run(argv, box.copy("run"), limits=Limits(wall_seconds=60))
        version = box.run(["uv", "--version"], box.copy("version"), limits=Limits(wall_seconds=30))
        asks = ["uv", "run", "--with", "rich", "python", "-c", "0"]
        more = box.run(asks, box.copy("more"), limits=Limits(wall_seconds=30))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("six 1.") and run.stdout.rstrip().endswith("offline")
    assert not [c for c in run.connections if c.is_network]
    assert version.stdout.split()[:2] == ["uv", "0.13.9"]
    assert more.exit_code != 0 and "rich" in more.stderr and "network was disabled" in more.stderr


def test_a_poetry_project_that_pins_its_poetry_is_set_up_by_that_version_and_runs_offline(tmp_path: Path) -> None:
    """`setups/poetry-pinned`: `requires-poetry = "==2.2.1"` (the kit pins another), a poetry.lock written by
    Poetry 2.2.1, and a run.sh of `exec poetry run python hello.py "$@"`."""
    root = shutil.copytree(POETRY_PINNED, tmp_path / "sub")
    env = prepare(root, InstallSettings(cache_dir=tmp_path / "cache"))
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert TOOLS["poetry"].version != "2.2.1"
    assert (setup["tool"], setup["version"], setup["version_from"]) == ("poetry", "2.2.1", "requires-poetry ==2.2.1")
    assert "note" not in setup
    with Sandbox(root, mounts=env.mounts()) as box:
        run = box.run(["./run.sh", "pinned"], box.copy("run"), limits=Limits(wall_seconds=90))
        version = box.run(["poetry", "--version"], box.copy("version"), limits=Limits(wall_seconds=60))
    assert run.exit_code == 0, run.stderr
    assert run.stdout.startswith("six 1.") and run.stdout.rstrip().endswith("pinned")
    assert "2.2.1" in version.stdout, "the runs' poetry is the one that set the project up"
    assert not [c for c in run.connections if c.is_network], "poetry run made no connection"
