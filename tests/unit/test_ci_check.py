"""CI's check that the tests left nothing in the checkout: what it lets pass, and what it names."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conftest import ROOT


def test_only_the_venv_bytecode_and_tool_caches_pass_unnamed(tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    repo.mkdir()
    shutil.copyfile(ROOT / ".gitignore", repo / ".gitignore")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for path in (
        ".venv/bin/python", "gradelib/__pycache__/x.pyc", ".pytest_cache/v", ".mypy_cache/m", ".ruff_cache/r",
        "gradelib.egg-info/PKG-INFO", "examples/plugin/.pytest_cache/v", "examples/plugin/p.egg-info/x",
        "reports/browser-test-123/a.html", "build/lib/x.py", "stray.txt",
    ):  # fmt: skip
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text("x")
    done = subprocess.run([str(ROOT / ".ci" / "left-behind")], cwd=repo, capture_output=True, text=True, check=True)
    assert sorted(done.stdout.splitlines()) == [
        "!! build/",
        "!! reports/browser-test-123/",
        "?? .gitignore",
        "?? stray.txt",
    ]
