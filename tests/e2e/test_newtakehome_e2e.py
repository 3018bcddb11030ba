"""A team starts its own take-home with one command: `gradelib new-takehome` writes the package and installs it
into the kit's own environment, and the commands it prints next work as printed (check the sample, its tests,
a grade). Its package also installs as a wheel with every data file (a non-editable install)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gradelib import cli
from gradelib.environment.uvtool import uv_binary

pytestmark = pytest.mark.e2e
PRINTED = {"check": "then check its sample: ", "tests": "run its tests: ", "grade": "grade its samples: "}


def _kit_environment(tmp_path: Path) -> Path:
    """A new virtualenv that runs this kit, as a team's own would: its site folder adds the kit's (with
    `site.addsitedir`, so the kit's editable install resolves) after its own, where `new-takehome` installs;
    the kit's Jupyter data (nbconvert's templates) is named by JUPYTER_PATH. The test's environment is never
    written."""
    venv = tmp_path / "kit-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (site,) = (venv / "lib").glob("python*/site-packages")
    kit = sysconfig.get_paths()["purelib"]
    (site / "zz-gradelib-kit.pth").write_text(f"import site; site.addsitedir({kit!r})\n")
    return venv / "bin" / "python"


def _run(command: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """A printed command, split as a shell splits it, run as a team would paste it."""
    return subprocess.run(
        shlex.split(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )  # fmt: skip


def test_one_command_installs_a_new_take_home_and_the_commands_it_prints_work(tmp_path: Path) -> None:
    python = _kit_environment(tmp_path)
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "PIP_CACHE_DIR": str(tmp_path / "pip-cache")}
    env["JUPYTER_PATH"] = str(Path(sysconfig.get_paths()["data"]) / "share" / "jupyter")  # nbconvert templates
    env.pop("VIRTUAL_ENV", None)
    made = subprocess.run(
        [str(python), "-m", "gradelib", "new-takehome", "greeting", "--into", str(tmp_path / "src"),
         "--title", "Greets whoever it is given"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    folder = tmp_path / "src" / "takehome-greeting"
    said = made.stdout.splitlines()
    assert said[0] == f"wrote {folder}"
    assert said[1].startswith(f"installed it into the kit's environment ({python}): ")
    printed = {
        what: line.removeprefix(start) for line in said for what, start in PRINTED.items() if line.startswith(start)
    }
    assert printed["check"] == f"{python} -m gradelib check greeting {folder / 'submissions' / 'sample-one'}"
    site = next((python.parent.parent / "lib").glob("python*/site-packages"))
    assert list(site.glob("gradelib_takehome_greeting*.dist-info")), "installed into the kit's environment"

    checked = _run(printed["check"] + " --json", env, tmp_path)  # right after it: the kit knows the take-home
    assert checked.returncode == 0, checked.stderr[-3000:]
    result = json.loads(checked.stdout)
    assert result["takehome"] == "greeting" and [(line["id"], line["outcome"]) for line in result["lines"]] == [
        ("greets", "pass")
    ]
    tests = _run(printed["tests"] + " -q -p no:cacheprovider", env, tmp_path)
    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout[-3000:]
    graded = _run(f"{printed['grade']} --reports {shlex.quote(str(tmp_path / 'reports'))} --jobs 2", env, tmp_path)
    assert graded.returncode == 0, graded.stdout[-3000:]
    assert graded.stdout.strip().splitlines()[-1].startswith("graded 1, up to date 0, errors 0")


def test_a_new_take_home_installs_as_a_wheel_with_its_data_and_is_graded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not editable: every data file the kit reads (rubric, notebook, handout) must be in the package data."""
    argv = [
        "new-takehome",
        "greeting",
        "--into",
        str(tmp_path),
        "--title",
        "Greets whoever it is given",
        "--no-install",
    ]
    assert cli.main(argv) == 0
    folder = tmp_path / "takehome-greeting"
    assert str(folder) in capsys.readouterr().out
    site = tmp_path / "site"
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    installed = subprocess.run(
        [uv_binary(), "pip", "install", "--quiet", "--python", sys.executable, "--target", str(site), "--no-deps",
         str(folder)],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])])}
    reports = tmp_path / "reports"
    graded = subprocess.run(
        [sys.executable, "-m", "gradelib", "grade", str(folder / "submissions"), "--reports", str(reports),
         "--jobs", "2"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=900, check=False,
    )  # fmt: skip
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert graded.stdout.strip().splitlines()[-1].startswith("graded 1, up to date 0, errors 0")
    result = json.loads((reports / "greeting" / "submission-01.json").read_text())
    assert [(line["id"], line["outcome"]) for line in result["lines"]] == [("greets", "pass")]
