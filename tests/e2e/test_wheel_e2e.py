"""The kit installs like a tool: its wheel in a fresh virtualenv grades and summarises from any folder."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SAMPLES

pytestmark = pytest.mark.e2e

UV = Path(sys.executable).with_name("uv")
SYSTEM_PYTHON = "/usr/bin/python3"
CHECKOUT_ONLY = (".git", ".venv", "reports", "build", "dist", "*.egg-info", "__pycache__", "*_cache", "node_modules")


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_wheel_in_a_fresh_virtualenv_grades_and_summarises_from_another_folder(tmp_path: Path) -> None:
    python = SYSTEM_PYTHON if Path(SYSTEM_PYTHON).exists() else sys.executable
    # Built from a copy: a build backend writes its build/ folder into the tree it builds, and tests write
    # only to their own temporary folders.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*CHECKOUT_ONLY))
    _run([str(UV), "build", "--wheel", "--out-dir", str(tmp_path / "dist"), str(source)], tmp_path)
    wheel = next((tmp_path / "dist").glob("gradelib-*.whl"))
    venv = tmp_path / "fresh"
    _run([str(UV), "venv", "-q", "--python", python, str(venv)], tmp_path)
    _run([str(UV), "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(wheel)], tmp_path)
    lead = tmp_path / "lead"
    for takehome, name in (("replay", "amara-okafor"), ("payments", "iris-moreau")):
        shutil.copytree(SAMPLES / takehome / name, lead / "cohort" / name, symlinks=True)
    gradelib = str(venv / "bin" / "gradelib")

    checked = json.loads(_run([gradelib, "check", "replay", "cohort/amara-okafor", "--json"], lead).stdout)
    assert checked["total"] == 100, checked
    graded = _run([gradelib, "grade", "cohort", "--reports", "reports"], lead)
    assert "graded 2, up to date 0, errors 0" in graded.stdout, graded.stdout + graded.stderr
    assert json.loads((lead / "reports" / "replay" / "submission-01.json").read_text())["total"] == 100
    assert (lead / "reports" / "payments" / "submission-01.html").is_file()
    summary = _run([gradelib, "summary", "--reports", "reports"], lead)
    assert "cohort summary:" in summary.stdout and (lead / "reports" / "summary.html").is_file()
    handout = _run([gradelib, "handout", "payments", "handout"], lead)
    assert json.loads(handout.stdout)["files"] >= 3 and (lead / "handout" / "checkout.mjs").is_file()
