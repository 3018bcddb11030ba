"""Soak: a generated cohort graded twice (`--force` the second time), watching what the batch holds.

    .venv/bin/python benchmarks/soak.py               # a cohort of 300, twice
    .venv/bin/python benchmarks/soak.py --size 30     # a quick look
    .venv/bin/python benchmarks/soak.py --smoke       # a cohort of one, twice: does it still run?

The driver (`gradelib grade`, a fresh process per pass) and every process under it are sampled
twice a second from /proc: resident memory, open file descriptors, the number of processes. Each
pass is reported at its start and its end, both in full swing (15-35 % and 65-85 % of its time):
a batch that leaks grows from one to the other, and from the first pass to the second. Not a
timed test: figures, printed.
The last line: `soak of N x2: driver RSS A -> B MiB, workers A -> B MiB, fds A -> B,
processes A -> B; steady` (or `GROWS: ...`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import runner  # noqa: E402  (the generated cohort and the re-exec into the repository's venv)

DEFAULT_SIZE = 300
SMOKE_SIZE = 1  # one replay copy (the samples' proportions at that size)
# The last line scripts read (tests/e2e/test_benchmark_e2e.py checks that the smoke run prints it).
LAST_LINE = (
    r"soak of \d+ x\d+: driver RSS \d+ -> \d+ MiB, workers \d+ -> \d+ MiB, fds \d+ -> \d+,"
    r" processes \d+ -> \d+; (steady|GROWS: .+)"
)
SAMPLE_SECONDS = 0.5
START = (0.15, 0.35)  # the share of a pass read as its start, after the workers' ramp-up
END = (0.65, 0.85)  # and as its end, before its last gradings leave workers idle
GROWTH_TOLERANCE = 1.25  # end over start beyond this (and past the slack below) is growth
# What varies anyway: the driver's first reports import the notebook tools; each job's kernel,
# sandboxed runs and servers come and go.
SLACK = {"driver_rss": 32.0, "worker_rss": 64.0, "fds": 32, "processes": 16}


@dataclass(frozen=True)
class Sample:
    """One look at the batch: the driver, its workers (its direct children) and everything under it."""

    at: float
    driver_rss: float  # MiB
    worker_rss: float  # MiB, the largest worker
    fds: int  # open in the driver and its workers
    processes: int  # the driver's descendants


@dataclass
class Pass:
    """One `gradelib grade` of the cohort and what was seen while it ran."""

    seconds: float = 0.0
    samples: list[Sample] = field(default_factory=list)

    def window(self, end: bool) -> list[Sample]:
        """The samples of the pass's start or its end, both in full swing (not its ramp-up or ramp-down)."""
        low, high = END if end else START
        chosen = [s for s in self.samples if low * self.seconds <= s.at <= high * self.seconds]
        return chosen or self.samples

    def figure(self, name: str, end: bool) -> float:
        """The median of one figure over the start or the end of the pass."""
        return float(statistics.median(getattr(s, name) for s in self.window(end)))

    def peak(self, name: str) -> float:
        """The largest value of one figure over the pass."""
        return float(max(getattr(s, name) for s in self.samples))


def _status(pid: int) -> dict[str, str]:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def _rss(pid: int) -> float:
    value = _status(pid).get("VmRSS", "0 kB").split()[0]
    return int(value) / 1024 if value.isdigit() else 0.0


def _fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = _status(int(entry)).get("PPid", "")
            if parent.isdigit():
                tree.setdefault(int(parent), []).append(int(entry))
    return tree


def sample(driver: int, started: float) -> Sample:
    """One look at the driver and what runs under it (fork servers and their kernels included)."""
    tree = _children()
    workers = tree.get(driver, [])
    under: list[int] = []
    stack = list(workers)
    while stack:
        pid = stack.pop()
        under.append(pid)
        stack += tree.get(pid, [])
    # Fork servers start their own sessions but stay the workers' children; kernels are theirs.
    return Sample(
        at=time.monotonic() - started,
        driver_rss=_rss(driver),
        worker_rss=max((_rss(pid) for pid in workers), default=0.0),
        fds=_fds(driver) + sum(_fds(pid) for pid in workers),
        processes=len(under),
    )


def grade_pass(folder: Path, reports: Path, jobs: int, force: bool) -> Pass:
    """One `gradelib grade` of the cohort, sampled while it runs."""
    argv = [sys.executable, "-m", "gradelib", "grade", str(folder), "--reports", str(reports), "--jobs", str(jobs)]
    started = time.monotonic()
    result = Pass()
    proc = subprocess.Popen([*argv, *(["--force"] if force else [])], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            result.samples.append(sample(proc.pid, started))
            stop.wait(SAMPLE_SECONDS)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, err = proc.communicate()
    stop.set()
    watcher.join()
    result.seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit(f"gradelib grade failed ({proc.returncode}):\n{err.decode(errors='replace')[-3000:]}")
    return result


NAMES = (("driver_rss", "driver RSS (MiB)"), ("worker_rss", "largest worker RSS (MiB)"),
         ("fds", "open fds (driver + workers)"), ("processes", "processes under the driver"))  # fmt: skip


def grows(passes: Sequence[Pass], name: str) -> bool:
    """Whether a figure ends a pass well above where it started it (or ends the last well above the first)."""
    first = passes[0].figure(name, end=False)
    ends = [p.figure(name, end=True) for p in passes]
    starts = [p.figure(name, end=False) for p in passes]
    over = [end > start * GROWTH_TOLERANCE + SLACK[name] for start, end in zip(starts, ends, strict=True)]
    return any(over) or ends[-1] > first * GROWTH_TOLERANCE + SLACK[name]


def report(size: int, passes: Sequence[Pass]) -> str:
    """The table and the last line."""
    headers = ["", *(f"pass {n}: start -> end (peak)" for n in range(1, len(passes) + 1))]
    rows = [
        [
            label,
            *(
                f"{p.figure(name, end=False):.0f} -> {p.figure(name, end=True):.0f} ({p.peak(name):.0f})"
                for p in passes
            ),
        ]
        for name, label in NAMES
    ]
    seconds = ", ".join(f"{p.seconds:.0f} s" for p in passes)
    growing = [label for name, label in NAMES if grows(passes, name)]
    first, last = passes[0], passes[-1]
    shown = zip(NAMES, ("driver RSS", "workers", "fds", "processes"), (" MiB", " MiB", "", ""), strict=True)
    figures = ", ".join(
        f"{short} {first.figure(name, end=False):.0f} -> {last.figure(name, end=True):.0f}{unit}"
        for (name, _), short, unit in shown
    )
    verdict = "steady" if not growing else "GROWS: " + ", ".join(growing)
    return "\n".join([
        f"soak: a generated cohort of {size}, graded {len(passes)} times ({seconds})",
        runner.table(headers, rows),
        f"soak of {size} x{len(passes)}: {figures}; {verdict}",
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Generate the cohort, grade it twice, print what the batch held."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE)
    parser.add_argument("--jobs", type=int, default=None, help="default: the kit's own")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument(
        "--smoke", action="store_true", help=f"a cohort of {SMOKE_SIZE}: does the benchmark run? (figures mean nothing)"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.size = SMOKE_SIZE
    if args.keep:
        return soak(args.size, args.jobs, args.keep)
    with tempfile.TemporaryDirectory(prefix="gradelib-soak-") as tmp:
        return soak(args.size, args.jobs, Path(tmp))


def soak(size: int, jobs: int | None, work: Path) -> int:
    """Generate the cohort in `work`, grade it twice, print the table and the last line."""
    from gradelib import batch  # the repository's venv by now (runner)

    folder = work / "cohort"
    runner.log(f"generating a cohort of {size} in {folder}")
    runner.generate(runner.sample_paths(), size, folder)
    jobs = jobs or batch.default_jobs()
    passes = []
    for number in (1, 2):
        runner.log(f"pass {number}: gradelib grade{' --force' if number > 1 else ''} ({jobs} jobs)")
        passes.append(grade_pass(folder, work / "reports", jobs, force=number > 1))
    series = [[dataclasses.asdict(sample) for sample in grading.samples] for grading in passes]
    (work / "soak-samples.json").write_text(json.dumps(series))  # every sample, for a closer look
    print(report(size, passes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
