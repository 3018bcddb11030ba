"""A Hatch project set up by Hatch itself (`hatch env create`, in the sandbox, through the registry
proxy), then `hatch run` offline in fresh copies, as its run.sh says (these tests reach PyPI, as CI does).

`setups/hatch-project` is a src-layout project with one dependency whose run.sh is
`exec hatch run python -m hello_hatch "$@"`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gradelib.environment.prepared import prepare
from gradelib.environment.settings import InstallSettings
from gradelib.sandbox import Limits, Sandbox

pytestmark = pytest.mark.e2e

HATCH_PROJECT = Path(__file__).parent / "setups" / "hatch-project"


def test_a_hatch_project_is_set_up_by_hatch_and_hatch_run_works_offline_in_every_copy(tmp_path: Path) -> None:
    root = shutil.copytree(HATCH_PROJECT, tmp_path / "sub")
    settings = InstallSettings(cache_dir=tmp_path / "cache")
    env = prepare(root, settings)
    assert env.error is None
    [installed] = env.evidence()["installed"]
    setup = installed["setup"]
    assert (setup["tool"], setup["version"], setup["command"]) == ("hatch", "1.18.2", "hatch env create")
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
