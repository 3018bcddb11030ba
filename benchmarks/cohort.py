"""How long until a reviewer can read the reports: the kit against the floor, at the cohort sizes teams grade.

    .venv/bin/python benchmarks/cohort.py            # generated cohorts of 6, 20 and 100 (~20 min on 2 cores)
    .venv/bin/python benchmarks/cohort.py --quick    # 6 and 20, the cohort figures only (~4 min)
    .venv/bin/python benchmarks/cohort.py --sizes 6,40 --jobs 2 --keep /tmp/bench
    .venv/bin/python benchmarks/cohort.py --smoke    # every stage at its smallest: does it still run? (~1 min)

Prints side-by-side tables, each stage's duration, and ends with one line
`cohorts of 6/20/100: kit/bare-parallel ratio A/B/C; kit/floor ratio D/E/F`
(see benchmarks/README.md for what each figure means).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kitpython  # noqa: E402

kitpython.ensure_kit()

import floor  # noqa: E402
import measure  # noqa: E402
import runner  # noqa: E402
from runner import SAMPLES, cores, log, mib, ratio, table  # noqa: E402

from gradelib import batch  # noqa: E402

DEFAULT_SIZES = (6, 20, 100)  # the cohorts teams grade (6 to 20), and the big one
QUICK_SIZES = (6, 20)
# --smoke: one sample of each take-home (the payments one with tests, so the floor runs a suite), a cohort of two,
# each unit measured once: every stage runs, no figure means anything
SMOKE_SAMPLES = ("amara-okafor", "leo-fontaine")
SMOKE_SIZES = (2,)
SMOKE_REPEAT = 1
# The last line scripts read (tests/e2e/test_benchmark_e2e.py checks that each benchmark's smoke run prints it).
LAST_LINE = r"cohorts of [\d/]+: kit/bare-parallel ratio [\d./]+; kit/floor ratio [\d./]+"
CHECK_POOL_MAX = 20  # `check` in a pool only for cohorts up to this size: it has no batch start-up to amortise
# The overhead split is shown for one sample of each take-home: the first of these with a copy in the
# largest cohort that was not a worker's first job (those also pay the worker's start-up).
OVERHEAD_SAMPLES = {
    "replay": ("amara-okafor", "bruno-silva", "farah-nasser", "eli-haddad"),
    "payments": ("kemi-adeyemi", "iris-moreau", "leo-fontaine", "jonas-berg"),
}
# What a grading's processes import, compiled once before anything is timed (with bytecode cached).
BYTECODE_WARMUP = "import gradelib.batch.warmup, measure"  # the fork server imports what kernels import too


@dataclass
class Stages:
    """Each stage's wall time, in order: printed, so that the next slow stage is visible."""

    done: list[tuple[str, float]] = field(default_factory=list)

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block as one stage (logged as it starts and ends)."""
        log(name)
        started = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - started
            self.done.append((name, seconds))
            log(f"  {seconds:.1f} s")


def sample_of(copy: Path) -> str:
    """The sample a generated copy `NNN-<sample>` was made from."""
    return copy.name.partition("-")[2]


def floor_figures(results: Sequence[dict[str, Any]], ncores: int) -> dict[str, Any]:
    """The floor of a cohort from its submissions' bare commands (one result per submission)."""
    total = sum(r["command_seconds"] for r in results)
    return {
        "submissions": len(results),
        "sum": total,
        "cpu": sum(r["cpu_seconds"] for r in results),
        "computed": total / ncores,
        "servers": sum(r["server_seconds"] for r in results),
        "server_instances": sum(r["servers"] for r in results),
    }


def warm_bytecode(env: dict[str, str]) -> None:
    """Compile what the kit's processes import into the benchmark's bytecode folder (untimed)."""
    subprocess.run([sys.executable, "-c", BYTECODE_WARMUP], cwd=HERE, env=env, check=True, capture_output=True)


# -- printing ----------------------------------------------------------------------------------------


def report(results: dict[str, Any]) -> str:
    """The readable tables, from the results document."""
    ncores, jobs = results["cores"], results["jobs"]
    columns = results["columns"]  # label -> {floor, check_pool_wall, grade}
    labels = list(columns)
    rows: list[list[Any]] = []

    def row(name: str, getter: Callable[[dict[str, Any]], Any]) -> None:
        rows.append([name, *(getter(columns[label]) for label in labels)])

    def graded(key: str) -> Callable[[dict[str, Any]], Any]:
        return lambda c: c["grade"][key] if c.get("grade") else None

    row("submissions", lambda c: c["floor"]["submissions"])
    row("floor: bare commands, summed (s)", lambda c: c["floor"]["sum"])
    row(f"floor: computed = sum / {ncores} cores (s)", lambda c: c["floor"]["computed"])
    row(f"bare: parallel, measured ({jobs} workers, as grade) (s)", lambda c: c["floor"]["parallel_jobs"])
    row("  kit servers start+stop, summed, not in floor (s)", lambda c: c["floor"]["servers"])
    row("  CPU of the bare commands, summed (s)", lambda c: c["floor"]["cpu"])
    if any(c.get("check_pool_wall") for c in columns.values()):
        row(f"gradelib check, pool of {jobs} (s)", lambda c: c.get("check_pool_wall"))
    row(f"gradelib grade, {jobs} jobs (s)", graded("wall_seconds"))
    row("  grade CPU, driver + descendants (s)", graded("cpu_seconds"))
    row(
        f"  cores busy during grade = CPU / (wall x {ncores})",
        lambda c: ratio(c["grade"]["cpu_seconds"], c["grade"]["wall_seconds"] * ncores) if c.get("grade") else None,
    )
    if results.get("extra_jobs"):
        extra = results["extra_jobs"]
        row(
            f"gradelib grade, {extra} jobs (s)",
            lambda c: c["grade_extra"]["wall_seconds"] if c.get("grade_extra") else None,
        )
        row(
            f"  cores busy during grade with {extra} jobs",
            lambda c: (
                ratio(c["grade_extra"]["cpu_seconds"], c["grade_extra"]["wall_seconds"] * ncores)
                if c.get("grade_extra")
                else None
            ),
        )
    row("floor per submission = sum / N (s)", lambda c: c["floor"]["sum"] / c["floor"]["submissions"])
    row(
        f"kit per submission = grade x {ncores} cores / N (s)",
        lambda c: c["grade"]["wall_seconds"] * ncores / c["floor"]["submissions"] if c.get("grade") else None,
    )
    if any(c.get("check_pool_wall") for c in columns.values()):
        row("ratio: check / floor", lambda c: ratio(c.get("check_pool_wall"), c["floor"]["computed"]))
    row("ratio: kit (grade) / floor", lambda c: ratio(graded("wall_seconds")(c), c["floor"]["computed"]))
    row(
        f"ratio: kit (grade) / bare with {jobs} workers",
        lambda c: ratio(graded("wall_seconds")(c), c["floor"]["parallel_jobs"]),
    )
    if results.get("extra_jobs"):
        row(
            f"ratio: kit with {results['extra_jobs']} jobs / floor",
            lambda c: ratio(c["grade_extra"]["wall_seconds"], c["floor"]["computed"]) if c.get("grade_extra") else None,
        )
    row("driver peak RSS (MiB)", lambda c: mib(graded("driver_maxrss_kib")(c)))
    row("  of which before grading (imports) (MiB)", lambda c: mib(graded("driver_maxrss_kib_before")(c)))
    row("largest child RSS (MiB)", lambda c: mib(graded("children_maxrss_kib")(c)))
    sf = results["samples_floor"]
    out = [
        "COHORT (wall seconds; floor = the candidates' programs only)",
        table(["", *labels], rows),
        (
            f"  floor: each of the {sf['count']} samples' bare commands measured once, {sf['side_by_side']} sample(s)"
            f" at a time ({sf['sum']:.1f} s summed); a copy's floor is its sample's"
        ),
        "",
    ]

    samples = results["samples"]
    rows = []
    for s in samples:
        check = s.get("check")
        rows.append(
            [
                s["name"],
                s["takehome"],
                s["floor"]["command_seconds"],
                len(s["floor"]["commands"]),
                check["seconds"] if check else None,
                check["sandbox"]["runs"] if check else None,
                check["seconds"] - s["floor"]["command_seconds"] if check else None,
                ratio(check["seconds"], s["floor"]["command_seconds"]) if check else None,
                s.get("grade_job"),
                f"{s['grade_job_copies']}{'*' if s['grade_job_first_of_worker'] else ''}" if "grade_job" in s else "-",
            ]
        )
    out += [
        (
            "PER SAMPLE (check: in-process, one at a time; grade job: median over the sample's copies"
            f" in {results['final']} of the batch worker's time, {jobs} jobs side by side)"
        ),
        table(
            [
                "sample",
                "take-home",
                "bare (s)",
                "cmds",
                "check (s)",
                "sandbox runs",
                "check-bare",
                "check/bare",
                "grade job (s)",
                "copies",
            ],
            rows,
        ),
        "  (* only copies that were a worker's first job, so the worker's start-up is included)",
        "",
    ]

    rows = [
        [
            s["name"],
            s["seed"]["seconds"],
            "yes" if s["seed"]["identical"] else "no",
            s["kit_identical"]["seconds"],
            s["kit_identical"]["outcome"],
            ratio(s["kit_identical"]["seconds"], s["seed"]["seconds"]),
        ]
        for s in samples
        if s["takehome"] == "replay" and "seed" in s
    ]
    if rows:
        out += [
            "IDENTICAL LINE ALONE: the seed's `run.sh replay` twice + diff, bare, vs ReplayGrading.identical()",
            table(["sample", "seed (s)", "same bytes", "kit (s)", "kit says", "kit/seed"], rows),
            "",
        ]
    if results.get("units"):
        out += overhead_split(results)
    out += [
        "STAGES (wall seconds, in order)",
        table(["stage", "seconds"], [[name, seconds] for name, seconds in results["stages"]]),
        "",
    ]
    return "\n".join(out)


def overhead_split(results: dict[str, Any]) -> list[str]:
    """The kit's time beyond the bare commands for one sample of each take-home, from units measured once."""
    jobs, columns, samples = results["jobs"], results["columns"], results["samples"]
    units = results["units"]
    sb, sv, kn = units["sandbox"], units["servers"], units["kernel"]
    final = columns[results["final"]]["floor"]["submissions"]
    wk = units.get("worker")
    # paid once per batch (the warm fork server's imports) and once per worker (its first notebook and export)
    startup = (wk["per_batch"] + wk["per_worker"] * min(jobs, final)) / final if wk else 0.0
    heads = ["per submission (s)"]
    per: dict[str, dict[str, Any]] = {}
    for takehome, name in results["overhead_samples"].items():
        sample = next((s for s in samples if s["name"] == name), None)
        if sample is None or "check" not in sample:
            continue
        heads.append(f"{takehome} ({name})")
        tally = sample["check"]["sandbox"]
        sandbox = tally["runs"] * sb["per_run"] + tally["copies"] * sb["per_copy"]
        servers = tally["services"] * sv["model_stub" if takehome == "replay" else "gateway"]
        kernel = kn["trivial"]
        imports = max(0.0, kn["imports"].get(takehome, kernel) - kernel)
        export = units["export"].get(takehome, {}).get("warm", 0.0)
        bare = sample["floor"]["command_seconds"]
        per[takehome] = {
            "bare": bare,
            "sandbox": sandbox,
            "servers": servers,
            "kernel": kernel,
            "imports": imports,
            "export": export,
            "startup": startup,
            "sum": sandbox + servers + kernel + imports + export + startup,
            "check_gap": sample["check"]["seconds"] - bare,
            "job_gap": sample["grade_job"] - bare if sample.get("grade_job") is not None else None,
            "counts": f"{tally['runs']} / {tally['copies']} / {tally['services']}",
        }
    names = list(per)
    split_rows = [
        [title, *(per[n][key] for n in names)]
        for title, key in (
            ("bare commands (this submission's share of the floor)", "bare"),
            ("sandbox: runs x per-run + copies x per-copy", "sandbox"),
            ("servers: instances x start+stop", "servers"),
            ("notebook kernel: start, 1 trivial cell, shutdown", "kernel"),
            ("notebook imports in the kernel (beyond trivial)", "imports"),
            ("report export (export_html, warm)", "export"),
            (f"start-up: once per batch + once per worker, over N={final}", "startup"),
            ("= overhead the units explain", "sum"),
            ("measured: check - bare (sandbox, servers, kit logic)", "check_gap"),
            (f"measured: grade job - bare (median of copies, {jobs} jobs)", "job_gap"),
            ("sandbox runs / copies / server instances", "counts"),
        )
    ]
    return [
        "OVERHEAD SPLIT PER SUBMISSION (units measured once, times what one grading asks for)",
        table(heads, split_rows),
        (
            f"units: Sandbox.run(true) {sb['sandbox_true']:.3f} s vs bare true {sb['bare_true']:.4f} s "
            f"(+{sb['per_run']:.3f} s per run); Sandbox.copy {sb['per_copy']:.3f} s; "
            f"start+stop: model stub {sv['model_stub']:.3f} s, gateway {sv['gateway']:.3f} s "
            f"(in a sandbox run: {sb['with_model_stub'] - sb['sandbox_true']:+.3f} s / "
            f"{sb['with_gateway'] - sb['sandbox_true']:+.3f} s);"
        ),
        (
            f"       kernel {kn['trivial']:.2f} s, with the notebook's imports "
            + ", ".join(f"{t} {v:.2f} s" for t, v in kn["imports"].items())
            + "; export_html warm "
            + ", ".join(f"{t} {u['warm']:.2f} s" for t, u in units["export"].items())
        ),
        (
            "       start-up (fresh process, as a batch's fork server and a worker forked from it): "
            + (
                f"the fork server's imports {wk['per_batch']:.2f} s once per batch; per worker, "
                f"first notebook run {wk['first_execute']:.2f} s vs warm {wk['warm_execute']:.2f} s, "
                f"first export_html {wk['first_export']:.2f} s vs warm {wk['warm_export']:.2f} s"
                if wk
                else "not measured"
            )
        ),
        "",
    ]


# -- main ----------------------------------------------------------------------------------------------


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Every measurement, into one results document."""
    ncores, jobs, stages = cores(), args.jobs, Stages()
    samples = runner.sample_paths()
    repeat: dict[str, int] = {"repeat": SMOKE_REPEAT} if args.smoke else {}  # each unit's default otherwise
    if args.smoke:
        samples = [path for path in samples if path.name in SMOKE_SAMPLES]
    log(f"{len(samples)} samples, cohorts of {'/'.join(map(str, args.sizes))}; {ncores} cores, {jobs} jobs; in {work}")
    if not args.as_is:
        with stages.stage("bytecode: what the kit's processes import, compiled once (untimed by the others)"):
            warm_bytecode(dict(os.environ))
    cohorts: dict[str, tuple[Path, list[Path]]] = {}
    with stages.stage(f"generate the cohorts of {'/'.join(map(str, args.sizes))}"):
        for size in args.sizes:
            folder = work / f"cohort-{size}"
            cohorts[f"generated {size}"] = (folder, runner.generate(samples, size, folder))
    final_label = list(cohorts)[-1]

    # The floor: each sample's bare commands once, one sample at a time (nothing else running), a copy
    # behaving as its sample. --quick runs `ncores` samples side by side: ~6 % longer commands, which
    # flatters the kit's floor ratio by as much, for half the time.
    side_by_side = ncores if args.quick else 1
    with stages.stage(f"floor: the {len(samples)} samples' bare commands, {side_by_side} sample(s) at a time"):
        if side_by_side == 1:
            sample_floor = runner.sequential(floor.floor_one, samples, "floor")
        else:
            _, _, sample_floor = runner.pool_map(floor.floor_one, samples, side_by_side)
    per_sample: dict[str, dict[str, Any]] = {
        p.name: {"name": p.name, "takehome": f["takehome"], "floor": f}
        for p, f in zip(samples, sample_floor, strict=True)
    }
    samples_floor = {
        "count": len(samples),
        "sum": sum(f["command_seconds"] for f in sample_floor),
        "side_by_side": side_by_side,
    }
    columns: dict[str, dict[str, Any]] = {}
    for label, (folder, paths) in cohorts.items():
        copies = [per_sample[sample_of(p)]["floor"] for p in paths]
        with stages.stage(f"bare programs, {jobs} workers (as grade): {label}"):
            bare_wall, _, _ = runner.pool_map(floor.floor_one, paths, jobs)
        columns[label] = {"folder": str(folder), "floor": floor_figures(copies, ncores) | {"parallel_jobs": bare_wall}}

    if not args.quick:
        with stages.stage("identical line: the seed's manual check vs the kit's"):
            for path in samples:
                if per_sample[path.name]["takehome"] == "replay":
                    per_sample[path.name]["seed"] = floor.seed_identical(str(path))
                    per_sample[path.name]["kit_identical"] = measure.kit_identical(str(path))
        with stages.stage("gradelib check, in-process, one sample at a time"):
            for path, result in zip(samples, runner.sequential(measure.check_tallied, samples, "check"), strict=True):
                per_sample[path.name]["check"] = result
        for label, (_folder, paths) in cohorts.items():
            if len(paths) <= CHECK_POOL_MAX:
                with stages.stage(f"gradelib check, pool of {jobs}: {label}"):
                    wall, cpu, _ = runner.pool_map(measure.check_one, paths, jobs)
                columns[label] |= {"check_pool_wall": wall, "check_pool_cpu": cpu}

    reports = work / "reports"
    for label, (folder, _paths) in cohorts.items():
        with stages.stage(f"gradelib grade, {jobs} jobs: {label}"):
            columns[label]["grade"] = figures = runner.grade(folder, reports / folder.name, jobs)
        log(f"  errors: {len(figures['errors'])}")
    if args.extra_jobs:
        folder = cohorts[final_label][0]
        with stages.stage(f"gradelib grade, {args.extra_jobs} jobs: {final_label}"):
            extra = runner.grade(folder, reports / f"{folder.name}-jobs{args.extra_jobs}", args.extra_jobs)
        columns[final_label]["grade_extra"] = extra

    # Each sample's grade job: the median over its copies in the largest cohort, leaving out the
    # first `jobs` submissions (each is a worker's first job, which also pays the worker's start-up).
    clean: dict[str, list[float]] = {}
    every: dict[str, list[float]] = {}
    notebooks: dict[str, str] = {}
    for outcome in columns[final_label]["grade"]["outcomes"]:
        index, _, sample = outcome["name"].partition("-")
        every.setdefault(sample, []).append(outcome["seconds"])
        if int(index) > jobs:
            clean.setdefault(sample, []).append(outcome["seconds"])
        if outcome["notebook"]:
            notebooks.setdefault(sample, outcome["notebook"])
    for name, times in every.items():
        if name in per_sample:
            chosen = clean.get(name) or times
            per_sample[name] |= {
                "grade_job": statistics.median(chosen),
                "grade_job_copies": len(chosen),
                "grade_job_first_of_worker": name not in clean,
            }
    overhead_samples = {  # a copy that was not a worker's first job, else any graded, else the first named
        takehome: next((n for n in names if n in clean), next((n for n in names if n in every), names[0]))
        for takehome, names in OVERHEAD_SAMPLES.items()
    }

    units: dict[str, Any] | None = None
    if not args.quick:
        with stages.stage("unit costs: sandbox, servers, notebook kernel, report export, start-up"):
            units = {
                "sandbox": measure.sandbox_unit(SAMPLES / "replay" / overhead_samples["replay"], **repeat),
                "servers": measure.server_unit(**repeat),
                "kernel": measure.kernel_unit(**repeat),
                "export": {},
            }
            for takehome, name in overhead_samples.items():
                notebook = notebooks.get(name)
                if notebook and Path(notebook).exists():
                    units["export"][takehome] = measure.export_unit(Path(notebook), **repeat)
                    units.setdefault("worker", measure.worker_startup_unit(Path(notebook), **repeat))
    dependencies = None
    if not args.quick and args.deps_size != 0:
        import deps  # the samples that declare packages as their own cohort: install cold and warm, graded warm

        with stages.stage("dependency cohort: install cold, warm, grade, floor"):
            dependencies = deps.run(args.deps_size, jobs, work / "deps")
    return {
        "dependencies": dependencies,
        "cores": ncores,
        "jobs": jobs,
        "extra_jobs": args.extra_jobs,
        "sizes": list(args.sizes),
        "quick": args.quick,
        "columns": columns,
        "samples_floor": samples_floor,
        "samples": [per_sample[p.name] for p in samples],
        "overhead_samples": overhead_samples,
        "units": units,
        "final": final_label,
        "stages": stages.done,
    }


def sizes(text: str) -> tuple[int, ...]:
    """`6,20,100` -> (6, 20, 100): distinct, ascending, each at least 1."""
    try:
        values = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of sizes: {text!r}") from None
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError("sizes must be at least 1")
    return tuple(values)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, measure, print; the last line is `cohorts of 6/20/100: kit/bare-parallel ratio A/B/C; kit/floor ...`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes",
        type=sizes,
        default=None,
        help=f"generated cohorts, comma-separated (default {','.join(map(str, DEFAULT_SIZES))})",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"the cohort figures only, at {','.join(map(str, QUICK_SIZES))} unless --sizes says otherwise",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=batch.default_jobs(),
        help=f"parallel gradings for check and grade (default: the kit's own, {batch.default_jobs()} here)",
    )
    parser.add_argument(
        "--extra-jobs",
        type=int,
        default=None,
        help="grade the largest cohort once more with this many jobs (default 0: skip; e.g. the cores)",
    )
    parser.add_argument(
        "--deps-size",
        type=int,
        default=None,
        help="copies in the dependency cohort (full run only; default one per sample that declares packages; 0 skips)",
    )
    parser.add_argument(
        "--as-is",
        action="store_true",
        help=f"this environment exactly as it is (default: bytecode cached, {kitpython.NO_BYTECODE} dropped)",
    )
    parser.add_argument("--keep", type=Path, help="keep the cohorts, reports and results.json in this folder")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help=f"every stage at its smallest, to check the benchmark runs: the samples {', '.join(SMOKE_SAMPLES)},"
        f" a cohort of {SMOKE_SIZES[0]}, each unit measured once, no dependency cohort (its figures mean nothing)",
    )
    args = parser.parse_args(argv)
    if args.smoke and args.quick:
        parser.error("--smoke runs every stage at its smallest: leave out --quick")
    if args.smoke:
        args.deps_size = 0  # benchmarks/deps.py has a smoke run of its own
    if args.sizes is None:
        args.sizes = SMOKE_SIZES if args.smoke else QUICK_SIZES if args.quick else DEFAULT_SIZES
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.extra_jobs is None or args.extra_jobs == args.jobs:
        args.extra_jobs = 0
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            work = args.keep
            for old in [*work.glob("cohort-*"), work / "reports", work / "deps", work / "pycache"]:
                shutil.rmtree(old, ignore_errors=True)  # this script's own output from a previous run
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gradelib-bench-")))
        if not args.as_is:  # every process started from here on (pools, the graders) caches its bytecode
            env = kitpython.with_bytecode(dict(os.environ), work / "pycache")
            os.environ.clear()
            os.environ.update(env)
        results = run(args, work)
    results["total_seconds"] = time.perf_counter() - started
    if args.keep:
        (args.keep / "results.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(report(results))
    if results.get("dependencies"):
        print("DEPENDENCY COHORT (benchmarks/deps.py)\n" + results["dependencies"])
    print(f"(benchmark ran {results['total_seconds'] / 60:.1f} min)")
    print(last_line(results))
    return 0


def last_line(results: dict[str, Any]) -> str:
    """`cohorts of 6/20/100: kit/bare-parallel ratio A/B/C; kit/floor ratio D/E/F`, the line scripts read.

    The bare-parallel ratio is the kit's wall time over the bare programs' with as many workers as the
    kit has jobs; the floor ratio, over the cohort's computed floor.
    """
    columns = list(results["columns"].values())
    sizes_ = "/".join(str(c["floor"]["submissions"]) for c in columns)
    bare = "/".join(f"{c['grade']['wall_seconds'] / c['floor']['parallel_jobs']:.2f}" for c in columns)
    floor_ = "/".join(f"{c['grade']['wall_seconds'] / c['floor']['computed']:.2f}" for c in columns)
    return f"cohorts of {sizes_}: kit/bare-parallel ratio {bare}; kit/floor ratio {floor_}"


if __name__ == "__main__":
    sys.exit(main())
