"""The benchmarks run: each script at its smallest (`--smoke`), and the floor runs one bare command for every
sandboxed run of the kit (real samples, real sandbox).

A benchmark nothing runs rots unseen (a helper's signature changes, the script stops at once); a floor that
left out a command the kit runs would make the kit look slow (or the reverse). No figure is judged here.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_files import SMOKE, last_line_pattern, scripts
from conftest import ROOT, SAMPLES

BENCHMARKS = ROOT / "benchmarks"


def _load(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


# mia-castillo has no tests; kemi-adeyemi's run on their code, the draft and both fixes (the floor's bare test
# runner must take what the kit's suites hand it)
@pytest.mark.parametrize(
    ("takehome", "sample"), [("replay", "amara-okafor"), ("payments", "mia-castillo"), ("payments", "kemi-adeyemi")]
)
def test_floor_runs_one_bare_command_for_every_sandboxed_run_of_the_kit(takehome: str, sample: str) -> None:
    floor, measure = _load("floor"), _load("measure")
    path = str(SAMPLES / takehome / sample)

    bare = floor.floor_one(path)
    kit = measure.check_tallied(path)

    assert bare["takehome"] == takehome
    assert len(bare["commands"]) == kit["sandbox"]["runs"], (
        [c["label"] for c in bare["commands"]],
        kit["sandbox"]["runs"],
    )


# -- every benchmark's smoke run: it runs, and prints the last line scripts read (no figure is judged) ----------


@pytest.mark.parametrize("script", scripts(), ids=lambda path: path.name)
def test_each_benchmark_runs_at_its_smallest_and_prints_its_last_line(script: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # what a benchmark makes goes to its temporary folder: here
    done = subprocess.run(
        [sys.executable, str(script), SMOKE], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-3000:]
    pattern = last_line_pattern(script)
    assert pattern is not None and re.fullmatch(pattern, lines[-1]), lines[-1]
