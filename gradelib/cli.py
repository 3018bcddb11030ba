"""The `gradelib` command: thin over the library."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gradelib import batch, gateway, handout, ingest, modelstub, render, takehomes
from gradelib.batch import GradeOutcome
from gradelib.errors import GradelibError
from gradelib.rubric import load_rubric


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gradelib", description="Grade hiring take-homes by re-running them.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check one submission and print its rubric lines")
    check.add_argument("takehome", choices=takehomes.TAKEHOMES)
    check.add_argument("path", type=Path, help="a folder, .zip, .tar.gz or git bundle")
    check.add_argument("--json", action="store_true", help="print the stable JSON shape")
    check.add_argument("--rubric", type=Path, help="a rubric TOML file (default: the packaged one)")
    grade = sub.add_parser("grade", help="grade submissions with the notebooks, into reports/")
    grade.add_argument("paths", nargs="+", type=Path, help="submissions, or folders of them")
    grade.add_argument("--takehome", choices=takehomes.TAKEHOMES, help="default: detected from the files")
    grade.add_argument("--reports", type=Path, default=Path("reports"), help="output folder (default: reports/)")
    grade.add_argument("--jobs", type=int, default=None, help="parallel notebooks (default: CPU count)")
    out = sub.add_parser("handout", help="write what a hiring team sends to candidates")
    out.add_argument("takehome", choices=takehomes.TAKEHOMES)
    out.add_argument("dest", type=Path)
    sub.add_parser("stub", help="run the model stub standalone (see --help)", add_help=False)
    sub.add_parser("gateway", help="run the payment gateway standalone (see --help)", add_help=False)
    return parser


def _check(args: argparse.Namespace) -> int:
    module = takehomes.load(args.takehome)
    rubric = load_rubric(args.rubric, takehome=args.takehome) if args.rubric else None
    with ingest.open_submission(args.path) as sub:
        report = module.check(sub.path, name=sub.name, rubric=rubric)
    print(report.to_json(indent=2) if args.json else render.report_text(report))
    return 0


def _progress(done: int, total: int, outcome: GradeOutcome) -> None:
    what = outcome.error if outcome.error else f"report {outcome.notebook}"
    status = "ok" if outcome.status == "graded" else "ERROR"
    print(
        f"[{done}/{total}] {outcome.takehome or '?'}/{outcome.submission}: {status} ({outcome.seconds:.0f} s) {what}",
        flush=True,
    )


def _grade(args: argparse.Namespace) -> int:
    outcomes = batch.grade(args.paths, reports=args.reports, takehome=args.takehome, jobs=args.jobs, progress=_progress)
    errors = [o for o in outcomes if o.status == "error"]
    print(
        f"graded {len(outcomes) - len(errors)} of {len(outcomes)} submissions into {args.reports}/"
        + (f"; {len(errors)} with errors (see above)" if errors else "")
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gradelib` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "stub":
        return modelstub.main(argv[1:])
    if argv and argv[0] == "gateway":
        return gateway.main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "grade":
            return _grade(args)
        if args.command == "handout":
            written = handout.write_handout(args.takehome, args.dest)
            print(json.dumps({"handout": args.takehome, "dest": str(args.dest), "files": len(written)}))
            return 0
    except GradelibError as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return 2
    return 2
