"""The benchmark's floor runs one bare command for every sandboxed run of the kit (real samples, real sandbox).

A floor that left out a command the kit runs would make the kit look slow (or the reverse).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

import pytest
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
