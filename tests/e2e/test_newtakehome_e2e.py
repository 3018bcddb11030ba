"""A team starts its own take-home with one command: the package `gradelib new-takehome` writes installs with
the real installer, its tests pass as written, and `gradelib grade` grades its sample."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradelib import cli
from gradelib.environment.uvtool import uv_binary

pytestmark = pytest.mark.e2e


def test_a_new_take_home_installs_passes_its_own_tests_and_is_graded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["new-takehome", "greeting", "--into", str(tmp_path), "--title", "Greets whoever it is given"]) == 0
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
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=folder, capture_output=True, text=True, env=env, timeout=900, check=False,
    )  # fmt: skip
    assert tests.returncode == 0 and "3 passed" in tests.stdout, tests.stdout[-3000:]
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
