"""What the benchmarks share: the samples, generated cohorts, pools, the kit's grading in a fresh process.

Imported by `cohort.py`, `deps.py` and `soak.py` (none of them imports another).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import kitpython

kitpython.ensure_kit()
REPO = kitpython.REPO

from gradelib import takehomes  # noqa: E402

HERE = Path(__file__).resolve().parent
SAMPLES = REPO / "submissions"
GRADE_ONCE = HERE / "grade_once.py"
COMMENT = {"replay": ("run.sh", "# cohort copy {index}"), "payments": ("checkout.mjs", "// cohort copy {index}")}


def log(message: str) -> None:
    """Progress on stderr (stdout carries the table and the last line)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def cores() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def sample_paths() -> list[Path]:
    """submissions/replay/* and submissions/payments/* (folders only)."""
    return [p for t in ("replay", "payments") for p in sorted((SAMPLES / t).iterdir()) if p.is_dir()]


def generate(samples: Sequence[Path], size: int, dest: Path) -> list[Path]:
    """`size` copies of the samples, mixed in the samples' proportions, each with its own content digest.

    Each take-home gets its share of `size`, spread evenly over its samples; the two take-homes are
    interleaved so that a batch meets them in a steady mix. A comment line naming the copy is
    appended to run.sh / checkout.mjs: behaviour unchanged, digest different.
    """
    by_takehome: dict[str, list[Path]] = {}
    for sample in samples:
        by_takehome.setdefault(takehomes.detect(sample) or "unknown", []).append(sample)
    counts = {t: round(size * len(s) / len(samples)) for t, s in by_takehome.items()}
    largest = max(counts, key=lambda t: counts[t])
    counts[largest] += size - sum(counts.values())
    picks: list[tuple[float, str, Path]] = []
    for takehome, group in by_takehome.items():
        count = counts[takehome]
        picks += [((k + 0.5) / count, takehome, group[k * len(group) // count]) for k in range(count)]
    picks.sort(key=lambda item: item[0])
    dest.mkdir(parents=True, exist_ok=True)
    made = []
    for index, (_, takehome, sample) in enumerate(picks, 1):
        target = dest / f"{index:03d}-{sample.name}"
        shutil.copytree(sample, target, symlinks=True)
        name, comment = COMMENT.get(takehome, ("README.md", "cohort copy {index}"))
        path = target / name
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        separator = "" if not text or text.endswith("\n") else "\n"
        path.write_text(text + separator + comment.format(index=index) + "\n", encoding="utf-8")
        made.append(target)
    return made


def pool_map(
    function: Callable[[str], dict[str, Any]], paths: Sequence[Path], workers: int
) -> tuple[float, float, list[dict[str, Any]]]:
    """function over paths in a spawn pool of `workers`: (wall seconds, CPU seconds, results in order).

    CPU: the pool's workers and what they reaped, counted once the pool has shut down.
    """
    cpu_before = children_cpu()
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        results = list(pool.map(function, [str(p) for p in paths]))
    return time.perf_counter() - started, children_cpu() - cpu_before, results


def children_cpu() -> float:
    """User + system seconds of this process's reaped descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sequential(function: Callable[[str], dict[str, Any]], paths: Sequence[Path], what: str) -> list[dict[str, Any]]:
    """function over paths one after the other, with progress."""
    results = []
    for number, path in enumerate(paths, 1):
        result = function(str(path))
        results.append(result)
        seconds = result.get("seconds", result.get("command_seconds", 0.0))
        log(f"  {what} {number}/{len(paths)} {path.name}: {seconds:.1f} s")
    return results


def grade(cohort: Path, reports: Path, jobs: int) -> dict[str, Any]:
    """`batch.grade` for the cohort in a fresh driver process (benchmarks/grade_once.py)."""
    done = subprocess.run(
        [sys.executable, str(GRADE_ONCE), str(cohort), str(reports), str(jobs)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"grading {cohort} failed:\n{done.stderr[-3000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned table; numbers right-aligned."""

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, float):
            return f"{value:.2f}"
        return str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]

    def numeric(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    def line(texts: Sequence[str], right: Sequence[bool]) -> str:
        parts = [t.rjust(w) if r else t.ljust(w) for t, w, r in zip(texts, widths, right, strict=True)]
        return "  ".join(parts).rstrip()

    out = [line(list(headers), [i > 0 for i in range(len(headers))]), "  ".join("-" * w for w in widths)]
    out += [line(c, [numeric(v) or v is None for v in r]) for c, r in zip(cells, rows, strict=True)]
    return "\n".join(out)


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def mib(kib: int | None) -> float | None:
    return kib / 1024 if kib is not None else None
