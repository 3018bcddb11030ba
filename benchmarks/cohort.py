"""How long until a reviewer can read the reports: the kit against the floor, for a cohort.

    .venv/bin/python benchmarks/cohort.py            # samples + a generated cohort of 100
    .venv/bin/python benchmarks/cohort.py --quick    # generated cohort of 10
    .venv/bin/python benchmarks/cohort.py --size 40 --jobs 2 --keep /tmp/bench

Prints a side-by-side table and ends with one line
`cohort of N: kit/floor ratio R; kit/bare-parallel ratio S`
(see benchmarks/README.md for what each figure means).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import kitpython  # noqa: E402

kitpython.ensure_kit()
REPO = kitpython.REPO

import floor  # noqa: E402
import measure  # noqa: E402

from gradelib import batch, takehomes  # noqa: E402

SAMPLES = REPO / "submissions"
GRADE_ONCE = HERE / "grade_once.py"
QUICK_SIZE = 10
DEFAULT_SIZE = 100
RSS_SMALL = 10  # the driver's peak RSS is compared between a cohort of this size and --size
# The overhead split is shown for one sample of each take-home: the first of these with a copy in the
# generated cohort that was not a worker's first job (those also pay the worker's start-up).
OVERHEAD_SAMPLES = {
    "replay": ("amara-okafor", "bruno-silva", "farah-nasser", "eli-haddad"),
    "payments": ("kemi-adeyemi", "iris-moreau", "leo-fontaine", "jonas-berg"),
}
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


# -- the cohort -------------------------------------------------------------------------------------


def sample_paths() -> list[Path]:
    """submissions/replay/* and submissions/payments/* (folders only)."""
    return [p for t in takehomes.KIT_TAKEHOMES for p in sorted((SAMPLES / t).iterdir()) if p.is_dir()]


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


# -- running things ------------------------------------------------------------------------------------


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


def floor_figures(results: Sequence[dict[str, Any]], parallel_wall: float | None, ncores: int) -> dict[str, Any]:
    """The floor of a cohort from its per-submission bare commands."""
    total = sum(r["command_seconds"] for r in results)
    return {
        "submissions": len(results),
        "sum": total,
        "cpu": sum(r["cpu_seconds"] for r in results),
        "computed": total / ncores,
        "parallel_measured": parallel_wall,
        "servers": sum(r["server_seconds"] for r in results),
        "server_instances": sum(r["servers"] for r in results),
    }


# -- printing ----------------------------------------------------------------------------------------


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
    row(f"floor: parallel, measured ({ncores} workers) (s)", lambda c: c["floor"]["parallel_measured"])
    if jobs != ncores:
        row(f"bare: parallel, measured ({jobs} workers, as grade) (s)", lambda c: c["floor"].get("parallel_jobs"))
    row("  kit servers start+stop, summed, not in floor (s)", lambda c: c["floor"]["servers"])
    row("  CPU of the bare commands, summed (s)", lambda c: c["floor"]["cpu"])
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
    row("ratio: check / floor", lambda c: ratio(c.get("check_pool_wall"), c["floor"]["computed"]))
    row("ratio: kit (grade) / floor", lambda c: ratio(graded("wall_seconds")(c), c["floor"]["computed"]))
    if jobs != ncores:
        row(
            f"ratio: kit (grade) / bare with {jobs} workers",
            lambda c: ratio(graded("wall_seconds")(c), c["floor"].get("parallel_jobs")),
        )
    if results.get("extra_jobs"):
        row(
            f"ratio: kit with {results['extra_jobs']} jobs / floor",
            lambda c: ratio(c["grade_extra"]["wall_seconds"], c["floor"]["computed"]) if c.get("grade_extra") else None,
        )
    row("driver peak RSS (MiB)", lambda c: mib(graded("driver_maxrss_kib")(c)))
    row("  of which before grading (imports) (MiB)", lambda c: mib(graded("driver_maxrss_kib_before")(c)))
    row("largest child RSS (MiB)", lambda c: mib(graded("children_maxrss_kib")(c)))
    out = ["COHORT (wall seconds; floor = the candidates' programs only)", table(["", *labels], rows), ""]

    samples = results["samples"]
    rows = []
    for s in samples:
        rows.append(
            [
                s["name"],
                s["takehome"],
                s["floor"]["command_seconds"],
                len(s["floor"]["commands"]),
                s["check"]["seconds"],
                s["check"]["sandbox"]["runs"],
                s["check"]["seconds"] - s["floor"]["command_seconds"],
                s.get("grade_job"),
                f"{s['grade_job_copies']}{'*' if s['grade_job_first_of_worker'] else ''}" if "grade_job" in s else "-",
                s["grade_job"] - s["check"]["seconds"] if s.get("grade_job") is not None else None,
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
                "grade job (s)",
                "copies",
                "job-check",
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
        if s["takehome"] == "replay"
    ]
    out += [
        "IDENTICAL LINE ALONE: the seed's `run.sh replay` twice + diff, bare, vs ReplayGrading.identical()",
        table(["sample", "seed (s)", "same bytes", "kit (s)", "kit says", "kit/seed"], rows),
        "",
    ]

    units = results["units"]
    sb, sv, kn = units["sandbox"], units["servers"], units["kernel"]
    final = columns[results["final"]]["floor"]["submissions"]
    startup = units["worker"]["total"] if units.get("worker") else 0.0  # paid once per worker process
    heads = ["per submission (s)"]
    per: dict[str, dict[str, Any]] = {}
    for takehome, name in results["overhead_samples"].items():
        sample = next((s for s in samples if s["name"] == name), None)
        if sample is None:
            continue
        heads.append(f"{takehome} ({name})")
        tally = sample["check"]["sandbox"]
        sandbox = tally["runs"] * sb["per_run"] + tally["copies"] * sb["per_copy"]
        servers = tally["services"] * sv["model_stub" if takehome == "replay" else "gateway"]
        kernel = kn["trivial"]
        imports = max(0.0, kn["imports"].get(takehome, kernel) - kernel)
        export = units["export"].get(takehome, {}).get("warm", 0.0)
        amortized = startup * jobs / final
        bare = sample["floor"]["command_seconds"]
        per[takehome] = {
            "bare": bare,
            "sandbox": sandbox,
            "servers": servers,
            "kernel": kernel,
            "imports": imports,
            "export": export,
            "startup": amortized,
            "sum": sandbox + servers + kernel + imports + export + amortized,
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
            (f"worker start-up, amortized over N={final} / {jobs} workers", "startup"),
            ("= overhead the units explain", "sum"),
            ("measured: check - bare (sandbox, servers, kit logic)", "check_gap"),
            (f"measured: grade job - bare (median of copies, {jobs} jobs)", "job_gap"),
            ("sandbox runs / copies / server instances", "counts"),
        )
    ]
    out += [
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
            "       per worker, once (fresh process): "
            + (
                f"import gradelib.batch {wk['import_batch']:.2f} s, import papermill {wk['import_papermill']:.2f} s, "
                f"first notebook run {wk['first_execute']:.2f} s vs warm {wk['warm_execute']:.2f} s, "
                f"first export_html {wk['first_export']:.2f} s vs warm {wk['warm_export']:.2f} s"
                if (wk := units.get("worker"))
                else "not measured"
            )
        ),
        "",
    ]
    return "\n".join(out)


# -- main ----------------------------------------------------------------------------------------------


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Every measurement, into one results document."""
    ncores, jobs = cores(), args.jobs
    samples = sample_paths()
    samples_label, final_label = f"samples ({len(samples)})", f"generated {args.size}"
    # label -> (folder, submissions, whether check and grade run on it too)
    cohorts: dict[str, tuple[Path, list[Path], bool]] = {samples_label: (SAMPLES, samples, not args.quick)}
    if not args.quick and args.size != RSS_SMALL:
        folder = work / f"cohort-{RSS_SMALL}"
        cohorts[f"generated {RSS_SMALL}"] = (folder, generate(samples, RSS_SMALL, folder), True)
    folder = work / f"cohort-{args.size}"
    cohorts[final_label] = (folder, generate(samples, args.size, folder), True)
    log(f"{len(samples)} samples, cohorts: {', '.join(cohorts)}; {ncores} cores, {jobs} jobs; work in {work}")

    log("floor, one submission at a time: samples")
    sample_floor = sequential(floor.floor_one, samples, "floor")
    per_sample: dict[str, dict[str, Any]] = {
        p.name: {"name": p.name, "takehome": f["takehome"], "floor": f}
        for p, f in zip(samples, sample_floor, strict=True)
    }
    columns: dict[str, dict[str, Any]] = {}
    for label, (folder, paths, full) in cohorts.items():
        if paths is samples:
            results = sample_floor
        else:
            log(f"floor, one submission at a time: {label}")
            results = sequential(floor.floor_one, paths, "floor")
        wall = same_jobs = None
        if full:
            log(f"floor, pool of {ncores}: {label}")
            wall, _, _ = pool_map(floor.floor_one, paths, ncores)
            if jobs != ncores:  # the bare programs with as many side by side as the kit grades
                log(f"floor, pool of {jobs}: {label}")
                same_jobs, _, _ = pool_map(floor.floor_one, paths, jobs)
        columns[label] = {"folder": str(folder), "floor": floor_figures(results, wall, ncores)}
        columns[label]["floor"]["parallel_jobs"] = same_jobs

    log("identical line: the seed's manual check vs the kit's")
    for path in samples:
        if per_sample[path.name]["takehome"] == "replay":
            per_sample[path.name]["seed"] = floor.seed_identical(str(path))
            per_sample[path.name]["kit_identical"] = measure.kit_identical(str(path))

    log("gradelib check, in-process, one sample at a time")
    for path, result in zip(samples, sequential(measure.check_tallied, samples, "check"), strict=True):
        per_sample[path.name]["check"] = result

    for label, (_folder, paths, full) in cohorts.items():
        if full:
            log(f"gradelib check, pool of {jobs}: {label}")
            wall, cpu, _ = pool_map(measure.check_one, paths, jobs)
            columns[label] |= {"check_pool_wall": wall, "check_pool_cpu": cpu}

    reports = work / "reports"
    for label, (folder, _paths, full) in cohorts.items():
        if full:
            log(f"gradelib grade, {jobs} jobs: {label}")
            columns[label]["grade"] = grade(folder, reports / folder.name, jobs)
            figures = columns[label]["grade"]
            log(f"  {figures['wall_seconds']:.1f} s, errors: {len(figures['errors'])}")
    if args.extra_jobs:
        folder = cohorts[final_label][0]
        log(f"gradelib grade, {args.extra_jobs} jobs: {final_label}")
        extra = grade(folder, reports / f"{folder.name}-jobs{args.extra_jobs}", args.extra_jobs)
        columns[final_label]["grade_extra"] = extra
        log(f"  {extra['wall_seconds']:.1f} s, errors: {len(extra['errors'])}")

    # Each sample's grade job: the median over its copies in the generated cohort, leaving out the
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
    overhead_samples = {
        takehome: next((n for n in names if n in clean), names[0]) for takehome, names in OVERHEAD_SAMPLES.items()
    }

    log("unit costs: sandbox, servers, notebook kernel, report export, worker start-up")
    units: dict[str, Any] = {
        "sandbox": measure.sandbox_unit(SAMPLES / "replay" / overhead_samples["replay"]),
        "servers": measure.server_unit(),
        "kernel": measure.kernel_unit(),
        "export": {},
    }
    for takehome, name in overhead_samples.items():
        notebook = notebooks.get(name)
        if notebook and Path(notebook).exists():
            units["export"][takehome] = measure.export_unit(Path(notebook))
            units.setdefault("worker", measure.worker_startup_unit(Path(notebook)))
    dependencies = None
    if not args.quick and args.deps_size:
        import deps  # the SDK-based samples as their own cohort: install cold and warm, graded warm

        log(f"dependency cohort of {args.deps_size}: install cold, warm, grade, floor")
        dependencies = deps.run(args.deps_size, jobs, work / "deps")
    return {
        "dependencies": dependencies,
        "cores": ncores,
        "jobs": jobs,
        "extra_jobs": args.extra_jobs,
        "size": args.size,
        "quick": args.quick,
        "columns": columns,
        "samples": [per_sample[p.name] for p in samples],
        "overhead_samples": overhead_samples,
        "units": units,
        "final": final_label,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, measure, print; the last line is `cohort of N: kit/floor ratio R; kit/bare-parallel ratio S`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=None, help=f"generated submissions (default {DEFAULT_SIZE})")
    parser.add_argument(
        "--quick", action="store_true", help=f"a fast look: --size {QUICK_SIZE}, no separate N={RSS_SMALL} run"
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
        help="grade the generated cohort once more with this many jobs (default 0: skip; e.g. the cores)",
    )
    parser.add_argument(
        "--deps-size",
        type=int,
        default=10,
        help="copies in the dependency cohort of the SDK-based samples (full run only; 0 skips it)",
    )
    parser.add_argument("--keep", type=Path, help="keep the cohort, reports and results.json in this folder")
    args = parser.parse_args(argv)
    if args.size is None:
        args.size = QUICK_SIZE if args.quick else DEFAULT_SIZE
    if args.size < 1 or args.jobs < 1:
        parser.error("--size and --jobs must be at least 1")
    if args.extra_jobs is None or args.extra_jobs == args.jobs:
        args.extra_jobs = 0
    started = time.perf_counter()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        work = args.keep
        for old in [*work.glob("cohort-*"), work / "reports"]:  # this script's own output from a previous run
            shutil.rmtree(old, ignore_errors=True)
        results = run(args, work)
    else:
        with tempfile.TemporaryDirectory(prefix="gradelib-bench-") as tmp:
            results = run(args, Path(tmp))
    results["total_seconds"] = time.perf_counter() - started
    if args.keep:
        (args.keep / "results.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(report(results))
    if results.get("dependencies"):
        print("\nDEPENDENCY COHORT (benchmarks/deps.py)\n" + results["dependencies"])
    print(f"(benchmark ran {results['total_seconds'] / 60:.1f} min)")
    print(last_line(results))
    return 0


def last_line(results: dict[str, Any]) -> str:
    """`cohort of N: kit/floor ratio R; kit/bare-parallel ratio S`, the line scripts read.

    S is the kit's wall time over the bare programs' with as many workers as the kit's jobs.
    """
    final = results["columns"][results["final"]]
    kit, floor_figures = final["grade"]["wall_seconds"], final["floor"]
    bare = floor_figures.get("parallel_jobs") or floor_figures["parallel_measured"]
    return (
        f"cohort of {results['size']}: kit/floor ratio {kit / floor_figures['computed']:.2f};"
        f" kit/bare-parallel ratio {kit / bare:.2f}"
    )


if __name__ == "__main__":
    sys.exit(main())
