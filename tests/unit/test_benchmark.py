"""The benchmark's generated cohort: the mix of take-homes kept, and a digest of its own for every copy.

A generated copy the kit would skip as "up to date" would flatter the benchmark's figures.
The floor (which grades samples for real) is tested in tests/e2e/test_benchmark_e2e.py.
"""

from __future__ import annotations

import argparse
import filecmp
import importlib
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_files import SMOKE, imported, last_line_pattern, scripts
from conftest import ROOT

from gradelib import takehomes
from gradelib.intake import ingest

BENCHMARKS = ROOT / "benchmarks"


def _load(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


def _digest(path: Path) -> str:
    with ingest.open_submission(path) as sub:
        return sub.digest


def _differing_files(a: Path, b: Path) -> list[str]:
    """Relative paths whose content differs between two trees (or that only one has)."""
    out: list[str] = []

    def walk(cmp: filecmp.dircmp[str], prefix: str) -> None:
        out.extend(prefix + n for n in cmp.diff_files + cmp.left_only + cmp.right_only)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(a, b), "")
    return sorted(out)


def test_generated_cohort_keeps_the_mix_and_gives_every_copy_its_own_digest(tmp_path: Path) -> None:
    cohort = _load("runner")
    samples = cohort.sample_paths()
    made = cohort.generate(samples, 16, tmp_path / "cohort")

    assert len(made) == 16
    kinds = [takehomes.detect(p) for p in made]
    sample_kinds = Counter(takehomes.detect(p) for p in samples)
    expected_replay = round(16 * sample_kinds["replay"] / len(samples))
    assert Counter(kinds) == {"replay": expected_replay, "payments": 16 - expected_replay}
    assert kinds[:2] in (["replay", "payments"], ["payments", "replay"]), "the take-homes are interleaved"

    digests = {_digest(p) for p in made}
    assert len(digests) == 16, "no two copies share a digest, so the kit grades each"
    by_name = {s.name: s for s in samples}
    for copy in made:
        sample = by_name[copy.name.split("-", 1)[1]]
        assert _digest(copy) != _digest(sample)
        changed = _differing_files(sample, copy)
        assert changed == [cohort.COMMENT[takehomes.detect(copy)][0]], "only the comment line differs"
        original = (sample / changed[0]).read_text(encoding="utf-8")
        added = (copy / changed[0]).read_text(encoding="utf-8")[len(original) :]
        index = int(copy.name[:3])
        assert added.strip() in (f"# cohort copy {index}", f"// cohort copy {index}")


def test_the_last_line_holds_both_ratios_for_every_cohort_size_in_order() -> None:
    cohort = _load("cohort")

    def column(size: int, kit: float, bare: float, computed: float) -> dict[str, object]:
        floor = {"submissions": size, "computed": computed, "parallel_jobs": bare}
        return {"grade": {"wall_seconds": kit}, "floor": floor}

    results = {"columns": {"generated 6": column(6, 20.0, 16.0, 10.0), "generated 20": column(20, 55.0, 50.0, 44.0)}}
    results["columns"]["generated 100"] = column(100, 210.0, 200.0, 300.0)
    assert cohort.last_line(results) == (
        "cohorts of 6/20/100: kit/bare-parallel ratio 1.25/1.10/1.05; kit/floor ratio 2.00/1.25/0.70"
    )


def test_cohort_sizes_are_read_distinct_and_ascending() -> None:
    cohort = _load("cohort")
    assert cohort.sizes("100,6,20,6") == (6, 20, 100)
    for bad in ("", "0,6", "six"):
        with pytest.raises(argparse.ArgumentTypeError):
            cohort.sizes(bad)


def test_a_copys_floor_is_its_samples_and_the_floor_sums_every_copy() -> None:
    cohort = _load("cohort")
    assert cohort.sample_of(Path("/x/007-amara-okafor")) == "amara-okafor"
    one = {"command_seconds": 3.0, "cpu_seconds": 1.0, "server_seconds": 0.5, "servers": 2}
    two = {"command_seconds": 5.0, "cpu_seconds": 2.0, "server_seconds": 0.25, "servers": 1}
    figures = cohort.floor_figures([one, two, one], 2)
    assert figures == {
        "submissions": 3,
        "sum": 11.0,
        "cpu": 4.0,
        "computed": 5.5,
        "servers": 1.25,
        "server_instances": 5,
    }


def test_every_benchmark_file_is_run_by_the_smoke_test_or_imported_by_a_script_that_is() -> None:
    """A benchmark cannot be added without being run: every script is (the e2e test lists them), with `--smoke`
    and the pattern of its last line; every other file is a module one of them imports."""
    every = sorted(BENCHMARKS.glob("*.py"))
    runnable = scripts()
    assert {path.name for path in runnable} >= {"cohort.py", "deps.py", "meeting.py", "similarity.py", "soak.py"}
    reached = {path.stem for path in runnable}
    while True:  # what the scripts import, and what that imports
        more = set().union(*(imported(BENCHMARKS / f"{name}.py") for name in reached)) - reached
        if not more:
            break
        reached |= more
    unrun = [path.name for path in every if path.stem not in reached]
    assert unrun == [], f"neither a script (no __main__ block) nor imported by one, so no smoke run covers: {unrun}"
    for script in runnable:
        text = script.read_text(encoding="utf-8")
        assert f'"{SMOKE}"' in text, f"benchmarks/{script.name} has no {SMOKE} mode"
        pattern = last_line_pattern(script)
        assert pattern is not None, f"benchmarks/{script.name} has no LAST_LINE (the pattern of its last line)"
        re.compile(pattern)
