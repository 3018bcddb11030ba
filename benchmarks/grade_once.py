"""`gradelib grade` for one cohort in a fresh driver process: wall time, per-submission times, peak RSS.

    python benchmarks/grade_once.py COHORT_FOLDER REPORTS_FOLDER JOBS
    python benchmarks/grade_once.py --smoke     # one replay sample, graded in a temporary folder

Prints one JSON object on stdout (its last line). A fresh process per cohort, so the driver's peak RSS
(ru_maxrss of RUSAGE_SELF) belongs to that cohort alone.
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SMOKE_SAMPLE = REPO / "submissions" / "replay" / "amara-okafor"  # --smoke: a cohort of this one sample
LAST_LINE = r"\{.*\}"  # the JSON object (tests/e2e/test_benchmark_e2e.py checks that the smoke run prints it)


def main(argv: list[str]) -> int:
    """Grade the cohort, print the figures as JSON."""
    if argv == ["--smoke"]:
        with tempfile.TemporaryDirectory(prefix="gradelib-grade-once-") as tmp:
            shutil.copytree(SMOKE_SAMPLE, Path(tmp) / "cohort" / SMOKE_SAMPLE.name, symlinks=True)
            return main([str(Path(tmp) / "cohort"), str(Path(tmp) / "reports"), "1"])
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    cohort, reports, jobs = Path(argv[0]), Path(argv[1]), int(argv[2])
    from gradelib import batch  # imported before the baseline, as the CLI would

    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cpu_before = _cpu()
    started = time.perf_counter()
    # the batch ends its workers and their fork server before it returns, so their CPU counts below
    outcomes = batch.grade([cohort], reports=reports, jobs=jobs, force=True)
    wall = time.perf_counter() - started
    own_usage = resource.getrusage(resource.RUSAGE_SELF)
    children_usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    own, children = own_usage.ru_maxrss, children_usage.ru_maxrss
    print(
        json.dumps(
            {
                "wall_seconds": wall,
                "submissions": len(outcomes),
                "errors": [o.error for o in outcomes if o.status == "error"],
                "outcomes": [
                    {
                        "name": o.submission,
                        "takehome": o.takehome,
                        "status": o.status,
                        "seconds": o.seconds,
                        "notebook": o.notebook,
                    }
                    for o in outcomes
                ],
                "driver_maxrss_kib_before": baseline,
                "driver_maxrss_kib": own,
                "children_maxrss_kib": children,
                # the driver's and every reaped descendant's: workers, kernels, sandboxes, candidates
                "cpu_seconds": _cpu() - cpu_before,
            }
        )
    )
    return 0


def _cpu() -> float:
    """User + system seconds of this process and its reaped descendants."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
