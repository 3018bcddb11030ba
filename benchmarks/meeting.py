"""The calibration meeting: how long `gradelib summary`, `queue` (and the lead's commands) take on a big gradebook.

    .venv/bin/python benchmarks/meeting.py                    # gradebooks of 100 and 1,000, 3 runs each
    .venv/bin/python benchmarks/meeting.py --sizes 100 --repeat 1
    .venv/bin/python benchmarks/meeting.py --keep /tmp/meeting   # keep (and reuse) the gradebooks
    .venv/bin/python benchmarks/meeting.py --smoke               # a gradebook of 2, once: does it still run?

Each gradebook is built through the gradebook API from real line results (the stored reports in
`tests/golden/report-*.json`), in the samples' proportions of replay and payments, and three
reviewers score every rubric line of every submission, often disagreeing (seeded). Then the real
CLI is timed in a subprocess, as a user runs it (median of the repetitions), and the summary's time
is split into its parts. Not a timed test: figures, printed. The last line:
`meeting at 100/1000: summary A/B s; queue C/D s`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import kitpython

kitpython.ensure_kit()
HERE = Path(__file__).resolve().parent
REPO = kitpython.REPO

from gradelib.gradebook import Gradebook  # noqa: E402
from gradelib.review.scoring import ReviewLine, review_lines  # noqa: E402
from gradelib.takehomes.rubric import default_rubric  # noqa: E402

GOLDEN = REPO / "tests" / "golden"
SAMPLES = REPO / "submissions"
TAKEHOMES = ("replay", "payments")
DEFAULT_SIZES = (100, 1000)
DEFAULT_REPEAT = 3
DEFAULT_SEED = 22
SMOKE_SIZES, SMOKE_REPEAT = (2,), 1  # --smoke: every command once on a tiny gradebook (its figures mean nothing)
# The last line scripts read (tests/e2e/test_benchmark_e2e.py checks that the smoke run prints it).
LAST_LINE = r"meeting at [\d/]+: summary [-\d./a-z]+ s(; \w+ [-\d./a-z]+ s)*"
REVIEWERS = ("ana", "ben", "chloe")
LATE_REVIEWER = "dora"  # joins after the others: every human line of the cohort is in her queue
AGREE_WITH_KIT = 0.5  # how often a reviewer takes the kit's suggestion, where it has one
GRADEBOOK = "gradebook.sqlite"
KIT_VERSION = "benchmark"
# The real CLI beside the Python that runs this script (the repository's venv).
GRADELIB = Path(sys.executable).parent / "gradelib"


@dataclass(frozen=True)
class Command:
    """One timed command: its argv after `gradelib`, with {placeholders}; `writes`: timed on a fresh copy."""

    name: str
    argv: tuple[str, ...]
    needs: str | None = None  # a subcommand that must exist (`gradelib NEEDS --help`), else the row is skipped
    writes: bool = False


# What the lead runs in the meeting; one row per command.
COMMANDS: tuple[Command, ...] = (
    Command("summary", ("summary", "--reports", "{reports}", "--gradebook", "{gradebook}")),
    Command("queue", ("queue", "--reviewer", "{reviewer}", "--gradebook", "{gradebook}")),
    Command("agenda", ("agenda", "--gradebook", "{gradebook}"), needs="agenda"),
    Command(
        "resolve",
        ("resolve", "{takehome}", "{label}", "{line}", "{value}", "--why", "agreed in the meeting", "--by", "lead")
        + ("--gradebook", "{gradebook}"),
        needs="resolve",
        writes=True,
    ),
    Command(
        "decide",
        ("decide", "{takehome}", "{label}", "advance", "--why", "agreed in the meeting", "--by", "lead")
        + ("--gradebook", "{gradebook}"),
        needs="decide",
        writes=True,
    ),
)


def child_env(work: Path, as_is: bool) -> dict[str, str]:
    """The commands' environment: as given, or with compiled bytecode cached (as a pip install has it)."""
    return dict(os.environ) if as_is else kitpython.with_bytecode(dict(os.environ), work / "pycache")


def _progress(message: str) -> None:
    print(f"[meeting] {message}", file=sys.stderr, flush=True)


# -- the gradebooks ---------------------------------------------------------


def golden_reports() -> dict[str, list[dict[str, Any]]]:
    """The real reports stored as golden files, by take-home (their stable JSON shape)."""
    found: dict[str, list[dict[str, Any]]] = {t: [] for t in TAKEHOMES}
    for path in sorted(GOLDEN.glob("report-*.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        if report.get("takehome") in found:
            found[report["takehome"]].append(report)
    missing = [t for t, reports in found.items() if not reports]
    if missing:
        raise SystemExit(f"no golden report of {', '.join(missing)} in {GOLDEN}")
    return found


def proportions() -> dict[str, int]:
    """How many samples each take-home has (the mix of a generated cohort)."""
    return {t: sum(1 for p in (SAMPLES / t).iterdir() if p.is_dir()) for t in TAKEHOMES}


def mix(size: int) -> list[str]:
    """`size` take-homes in the samples' proportions, interleaved (as the cohort benchmark spreads them)."""
    counts = proportions()
    total = sum(counts.values())
    shares = {t: round(size * n / total) for t, n in counts.items()}
    shares[TAKEHOMES[0]] += size - sum(shares.values())
    spread = sorted(((i + 0.5) / shares[t], t) for t in TAKEHOMES for i in range(shares[t]))  # each one evenly
    return [t for _, t in spread]


def _choice(line: ReviewLine, rng: random.Random) -> tuple[str, str]:
    """A reviewer's value on one line, and a comment where it differs from the kit's suggestion."""
    if line.kit_value is not None and rng.random() < AGREE_WITH_KIT:
        return line.kit_value, ""
    value = rng.choice(line.choices)
    if line.kit_value is not None and value != line.kit_value:
        return value, f"{value}, not the kit's {line.kit_value}: the evidence reads otherwise to me"
    return value, "judged from the note and the evidence" if line.kit_value is None else ""


def build(path: Path, size: int, seed: int) -> dict[str, int]:
    """A gradebook of `size` graded submissions and three reviewers' scores on every line; counts."""
    rng = random.Random(seed)
    reports = golden_reports()
    rubrics = {t: default_rubric(t) for t in TAKEHOMES}
    scores = 0
    with Gradebook(path) as book:
        for number, takehome in enumerate(mix(size)):
            report = reports[takehome][number % len(reports[takehome])]
            name = f"{number:04d}-{report['submission']}"
            digest = f"{seed:x}{number:08x}"
            row = book.upsert_submission(takehome, name, digest, "benchmark")
            run = book.start_run(row.id, KIT_VERSION, digest)
            book.finish_run(run, "graded", report={**report, "submission": name})
            for line in review_lines(rubrics[takehome], report["lines"]):
                for reviewer in REVIEWERS:
                    value, comment = _choice(line, rng)
                    book.add_score(takehome, name, line.line_id, reviewer, value, comment, kit_value=line.kit_value)
                    scores += 1
    return {"submissions": size, "scores": scores}


def gradebook_for(work: Path, size: int, seed: int) -> Path:
    """The gradebook of `size` in `work` (built once; a kept one is reused when it was built the same way)."""
    folder = work / f"gradebook-{size}"
    path = folder / GRADEBOOK
    stamp = folder / "built.json"
    wanted = {"size": size, "seed": seed, "reports": sorted(p.name for p in GOLDEN.glob("report-*.json"))}
    if path.is_file() and stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) == wanted:
        _progress(f"reusing {path}")
        return path
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    counts = build(path, size, seed)
    _progress(f"built {path}: {counts['submissions']} submissions, {counts['scores']} scores"
              f" in {time.perf_counter() - started:.1f} s")  # fmt: skip
    stamp.write_text(json.dumps(wanted), encoding="utf-8")
    return path


def placeholders(gradebook: Path, reports: Path) -> dict[str, str]:
    """What the commands' {placeholders} stand for: this gradebook, the late reviewer, the first replay line."""
    with Gradebook(gradebook) as book:
        row = book.submissions(TAKEHOMES[0])[0]
        line = default_rubric(row.takehome).lines[0]
    return {
        "gradebook": str(gradebook),
        "reports": str(reports),
        "reviewer": LATE_REVIEWER,
        "takehome": row.takehome,
        "label": row.blind_label,
        "line": line.id,
        "value": str(int(line.max_points or 0)),
    }


# -- timing the CLI ---------------------------------------------------------


def available(command: Command, env: dict[str, str]) -> str | None:
    """Why a command cannot be timed here (its subcommand is missing), or None."""
    if command.needs is None:
        return None
    argv = [str(GRADELIB), command.needs, "--help"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    return None if done.returncode == 0 else f"`gradelib {command.needs} --help` failed: not in this kit yet"


def time_command(
    command: Command, values: dict[str, str], repeat: int, env: dict[str, str]
) -> tuple[list[float], str | None]:
    """Wall times of `repeat` runs of the command in a subprocess, after one untimed; a failed run's error."""
    seconds = []
    for _ in range(repeat + 1):  # the first run only warms the disk and bytecode caches
        with tempfile.TemporaryDirectory(prefix="gradelib-meeting-") as tmp:
            here = dict(values)
            if command.writes:  # a writing command gets its own copy, so the other rows keep the same gradebook
                copy = Path(tmp) / GRADEBOOK
                shutil.copyfile(values["gradebook"], copy)
                here["gradebook"] = str(copy)
            argv = [str(GRADELIB), *(part.format(**here) for part in command.argv)]
            started = time.perf_counter()
            done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
            seconds.append(time.perf_counter() - started)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            return seconds, f"exit {done.returncode}: {last}"
    return seconds[1:], None


PROBE = """
import json, sys, time
started = time.perf_counter()
from gradelib import cli
imported = time.perf_counter() - started
import gradelib.cohort.summary as summary
import gradelib.review.reportfiles as reportfiles
spent = {"CLI import": imported}
def timed(label, function):
    def wrapper(*args, **kwargs):
        began = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - began
    return wrapper
reportfiles.refresh_score_tables = timed("score-table refresh", reportfiles.refresh_score_tables)
summary.execute = timed("notebook run (papermill)", summary.execute)
summary.write_report = timed("HTML export", summary.write_report)
sys.argv = ["gradelib", *sys.argv[1:]]
code = cli.main()  # as the console script calls it
spent["whole main()"] = time.perf_counter() - started
print(json.dumps(spent))
sys.exit(code)
"""


def summary_parts(values: dict[str, str], env: dict[str, str], repeat: int) -> list[tuple[str, float]]:
    """Where `gradelib summary` spends its time (import, refresh, kernel, each cell, export); medians of `repeat`."""
    runs = [_summary_parts(values, env) for _ in range(repeat)]
    return [(label, statistics.median(dict(run)[label] for run in runs)) for label, _ in runs[0]]


def _summary_parts(values: dict[str, str], env: dict[str, str]) -> list[tuple[str, float]]:
    argv = [part.format(**values) for part in COMMANDS[0].argv]
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the summary probe failed: {done.stderr.strip()[-2000:]}")
    spent = json.loads(done.stdout.strip().splitlines()[-1])
    parts = [("process start + interpreter", wall - spent.pop("whole main()"))]
    parts += [(label, spent[label]) for label in ("CLI import", "score-table refresh")]
    parts += notebook_parts(Path(values["reports"]) / "summary.ipynb", spent["notebook run (papermill)"])
    parts.append(("HTML export", spent["HTML export"]))
    parts.append(("whole command (one run)", wall))
    return parts


def notebook_parts(notebook: Path, total: float) -> list[tuple[str, float]]:
    """The notebook run split by papermill's own timing: kernel start, each code cell, the rest."""
    import nbformat

    node = nbformat.read(notebook, as_version=4)
    start = datetime.fromisoformat(node.metadata["papermill"]["start_time"])
    cells = [c for c in node.cells if c.cell_type == "code" and "papermill" in c.metadata]
    first = min(
        datetime.fromisoformat(c.metadata.papermill.start_time) for c in cells if c.metadata.papermill.start_time
    )
    parts = [("  kernel start", (first - start).total_seconds())]
    for cell in cells:
        tags = cell.metadata.get("tags", [])
        source = cell.source.strip().splitlines()
        shown = next((line for line in source if line and not line.startswith(("#", "%"))), "")
        label = "(parameters)" if "parameters" in tags else "(injected parameters)" if tags else shown[:60]
        parts.append((f"  cell {label}", float(cell.metadata.papermill.duration or 0.0)))
    rest = total - sum(seconds for _, seconds in parts)
    parts.append(("  papermill rest (before kernel, shutdown, write)", rest))
    return [("notebook run (papermill)", total), *parts]


# -- the report -------------------------------------------------------------


def measure(work: Path, sizes: Sequence[int], repeat: int, seed: int, as_is: bool) -> dict[str, Any]:
    """Build each gradebook, time every command on it, split one summary at each size; every figure."""
    env = child_env(work, as_is)
    skipped = {c.name: why for c in COMMANDS if (why := available(c, env))}
    for name, why in skipped.items():
        _progress(f"skipping {name}: {why}")
    results: dict[str, Any] = {"sizes": list(sizes), "repeat": repeat, "bytecode": not as_is, "skipped": skipped}
    results.update(times={}, parts={})
    for size in sizes:
        gradebook = gradebook_for(work, size, seed)
        reports = work / f"reports-{size}"
        reports.mkdir(exist_ok=True)
        values = placeholders(gradebook, reports)
        for command in COMMANDS:
            if command.name in skipped:
                continue
            _progress(f"{command.name} at {size}, {repeat} run(s)")
            seconds, error = time_command(command, values, repeat, env)
            results["times"][f"{command.name}/{size}"] = {"seconds": seconds, "error": error}
        _progress(f"summary at {size}: where the time goes")
        results["parts"][str(size)] = summary_parts(values, env, repeat)
    return results


def _median(results: dict[str, Any], name: str, size: int) -> str:
    figure = results["times"].get(f"{name}/{size}")
    if figure is None:
        return "-"
    if figure["error"]:
        return "failed"
    return f"{statistics.median(figure['seconds']):.2f}"


def report(results: dict[str, Any]) -> str:
    """The tables: each command at each size, then the summary's parts."""
    sizes = results["sizes"]
    bytecode = "bytecode cached" if results["bytecode"] else "environment as is"
    out = [f"COMMANDS (median of {results['repeat']} run(s) after a warm-up, {bytecode}, seconds)"]
    out.append(f"{'command':<10}" + "".join(f"{size:>10}" for size in sizes))
    for command in COMMANDS:
        if command.name in results["skipped"]:
            out.append(f"{command.name:<10}  skipped: {results['skipped'][command.name]}")
            continue
        out.append(f"{command.name:<10}" + "".join(f"{_median(results, command.name, s):>10}" for s in sizes))
        for size in sizes:
            error = results["times"][f"{command.name}/{size}"]["error"]
            if error:
                out.append(f"  {command.name} at {size} failed: {error}")
    labels = list(dict.fromkeys(label for parts in results["parts"].values() for label, _ in parts))
    out.append(f"\nWHERE SUMMARY'S TIME GOES (median of {results['repeat']} run(s), seconds)")
    out.append(f"{'part':<66}" + "".join(f"{size:>10}" for size in sizes))
    for label in labels:
        row = [dict(results["parts"][str(size)]).get(label) for size in sizes]
        out.append(f"{label:<66}" + "".join("-".rjust(10) if v is None else f"{v:>10.2f}" for v in row))
    return "\n".join(out)


def last_line(results: dict[str, Any]) -> str:
    """`meeting at 100/1000: summary A/B s; queue C/D s`, the line scripts read."""
    sizes = results["sizes"]
    figures = "; ".join(
        f"{name} {'/'.join(_median(results, name, s) for s in sizes)} s"
        for name in (c.name for c in COMMANDS)
        if name not in results["skipped"]
    )
    return f"meeting at {'/'.join(str(s) for s in sizes)}: {figures}"


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, build, time, print; the last line is `meeting at 100/1000: summary A/B s; queue C/D s`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="submissions per gradebook")
    parser.add_argument("--repeat", type=int, default=DEFAULT_REPEAT, help="runs of each command (the median counts)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the reviewers' choices")
    parser.add_argument("--keep", type=Path, help="build the gradebooks here and keep them (reused when they match)")
    parser.add_argument(
        "--as-is",
        action="store_true",
        help=f"the environment as it is (default: compiled bytecode cached, {kitpython.NO_BYTECODE} dropped)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help=f"a gradebook of {SMOKE_SIZES[0]}, every command once: does the benchmark run? (figures mean nothing)",
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.sizes, args.repeat = list(SMOKE_SIZES), SMOKE_REPEAT
    if min(args.sizes) < 1 or args.repeat < 1:
        parser.error("--sizes and --repeat must be at least 1")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        results = measure(args.keep, args.sizes, args.repeat, args.seed, args.as_is)
        (args.keep / "results.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    else:
        with tempfile.TemporaryDirectory(prefix="gradelib-meeting-") as tmp:
            results = measure(Path(tmp), args.sizes, args.repeat, args.seed, args.as_is)
    print(report(results))
    print(last_line(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
