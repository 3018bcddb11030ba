"""What declared dependencies cost: install per submission with a cold and a warm cache, and the kit/floor ratio.

    .venv/bin/python benchmarks/deps.py             # one copy of each sample that declares packages
    .venv/bin/python benchmarks/deps.py --size 40 --keep /tmp/deps
    .venv/bin/python benchmarks/deps.py --smoke      # one sample (requirements.txt): does it still run?

The cohort is made of the samples that declare dependencies (requirements.txt, pyproject.toml,
package.json with a lockfile), copied with a comment changed so each copy has its own digest. One
copy of each is what it measures (each distinct dependency set built cold once; every copy again
warm); a bigger `--size` only adds warm hits.
Cold: an empty kit cache (uv's and npm's own download caches are whatever the machine has).
Warm: the same submissions again, every environment already built. Then the cohort is graded
with the kit (warm cache) and measured against the floor (the same programs run bare, with the
same installed packages). The last line reads
`dependency cohort of N: install cold C s, warm W s per submission; kit/floor ratio R`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import kitpython

kitpython.ensure_kit()  # re-executes with the repository's venv when needed

import floor  # noqa: E402
import runner  # noqa: E402

from gradelib import batch  # noqa: E402
from gradelib.environment import InstallSettings, prepare, read_declaration  # noqa: E402
from gradelib.environment.installsettings import ENV_CACHE_DIR  # noqa: E402

WARM_TARGET = 0.5  # seconds per submission with a warm cache
SMOKE_SAMPLE = "ines-ferreira"  # --smoke: this sample alone (one requirements.txt), its figures meaning nothing
# The last line scripts read (tests/e2e/test_benchmark_e2e.py checks that the smoke run prints it).
LAST_LINE = r"dependency cohort of \d+: install cold [\d.]+ s, warm [\d.]+ s per submission; kit/floor ratio [\d.]+"


def sdk_samples() -> list[Path]:
    """The samples that declare dependencies."""
    return [path for path in runner.sample_paths() if not read_declaration(path).empty]


def install_costs(paths: Sequence[Path], settings: InstallSettings) -> list[tuple[float, bool]]:
    """(seconds, cache hit) of `prepare` for each submission, one after the other."""
    costs = []
    for path in paths:
        started = time.perf_counter()
        env = prepare(path, settings)
        seconds = time.perf_counter() - started
        if env.error:
            raise SystemExit(f"{path.name}: {env.error}")
        hit = all(i.cache_hit for i in (env.python, env.node) if i is not None)
        costs.append((seconds, hit))
    return costs


def run(size: int | None, jobs: int, work: Path, smoke: bool = False) -> str:
    """Measure and return the printed report (`size` None: one copy of each sample that declares packages;
    `smoke`: of SMOKE_SAMPLE alone)."""
    samples = [path for path in sdk_samples() if path.name == SMOKE_SAMPLE or not smoke]
    if not samples:
        raise SystemExit("no sample declares dependencies")
    size = size or len(samples)
    made = runner.generate(samples, size, work / "cohort")
    settings = InstallSettings(cache_dir=work / "cache")
    cold = install_costs(made, settings)
    warm = install_costs(made, settings)
    os.environ[ENV_CACHE_DIR] = str(settings.cache_dir)  # the kit's gradings and the floor use this cache
    graded = runner.grade(work / "cohort", work / "reports", jobs)
    ncores = runner.cores()
    wall, _cpu, results = runner.pool_map(floor.floor_one, made, ncores)
    computed = sum(r["command_seconds"] for r in results) / ncores
    builds = [seconds for seconds, hit in cold if not hit]
    cold_mean = statistics.fmean(seconds for seconds, _ in cold)
    warm_mean = statistics.fmean(seconds for seconds, _ in warm)
    kit = graded["wall_seconds"]
    lines = [
        f"samples with declared dependencies: {', '.join(p.name for p in samples)}",
        f"cohort: {size} copies; distinct dependency sets built: {len(builds)}",
        f"cold cache: {sum(builds):.1f} s building ({', '.join(f'{b:.1f}' for b in builds)} s each);"
        f" {cold_mean:.3f} s per submission on average",
        f"warm cache: {warm_mean:.4f} s per submission (target at most {WARM_TARGET} s):"
        f" {'met' if warm_mean <= WARM_TARGET else 'NOT met'}",
        f"gradelib grade, {jobs} jobs, warm cache: {kit:.1f} s;"
        f" floor (sum / {ncores} cores): {computed:.1f} s;"
        f" bare programs on {ncores} workers: {wall:.1f} s",
        f"dependency cohort of {size}: install cold {cold_mean:.2f} s, warm {warm_mean:.3f} s per submission;"
        f" kit/floor ratio {kit / computed:.2f}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--size", type=int, default=None, help="generated submissions (default: one per sample that declares packages)"
    )
    parser.add_argument("--jobs", type=int, default=batch.default_jobs(), help="parallel gradings")
    parser.add_argument("--keep", type=Path, help="keep the cohort, cache and reports in this folder")
    parser.add_argument(
        "--smoke", action="store_true", help=f"{SMOKE_SAMPLE} alone: does the benchmark run? (figures mean nothing)"
    )
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        print(run(args.size, args.jobs, args.keep, args.smoke))
    else:
        with tempfile.TemporaryDirectory(prefix="gradelib-deps-") as tmp:
            print(run(args.size, args.jobs, Path(tmp), args.smoke))
    return 0


if __name__ == "__main__":
    sys.exit(main())
