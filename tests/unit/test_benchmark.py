"""The benchmark's generated cohort: the mix of take-homes kept, and a digest of its own for every copy.

A generated copy the kit would skip as "up to date" would flatter the benchmark's figures.
The floor (which grades samples for real) is tested in tests/e2e/test_benchmark_e2e.py.
"""

from __future__ import annotations

import filecmp
import importlib
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

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
    cohort = _load("cohort")
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


def test_the_last_line_holds_both_ratios_against_the_bare_programs_at_the_kits_parallelism() -> None:
    cohort = _load("cohort")
    floor = {"computed": 50.0, "parallel_measured": 60.0, "parallel_jobs": 40.0}
    results = {"size": 100, "jobs": 4, "cores": 2, "final": "generated 100"}
    results["columns"] = {"generated 100": {"grade": {"wall_seconds": 50.0}, "floor": floor}}
    assert cohort.last_line(results) == "cohort of 100: kit/floor ratio 1.00; kit/bare-parallel ratio 1.25"
    floor["parallel_jobs"] = None  # as many jobs as cores: the pool of `cores` is the bare run at equal footing
    assert cohort.last_line(results).endswith("kit/bare-parallel ratio 0.83")
