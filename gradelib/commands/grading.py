"""Running submissions: `check`, `grade` and `deps`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradelib import safetext, takehomes
from gradelib.commands.exits import EXIT_GRADING_ERRORS, EXIT_INTERRUPTED, EXIT_OK, EXIT_SIGTERM
from gradelib.commands.options import JOBS_DEFAULT, Subparsers, install_options, install_settings, runs
from gradelib.takehomes.rubric import load_rubric

if TYPE_CHECKING:
    from gradelib.batch import GradeOutcome


def check(sub: Subparsers) -> None:
    """`gradelib check TAKEHOME PATH`: one submission's rubric lines."""
    parser = sub.add_parser("check", help="check one submission and print its rubric lines")
    parser.add_argument("takehome", choices=takehomes.names())
    parser.add_argument("path", type=Path, help="a folder, .zip, .tar.gz or git bundle")
    parser.add_argument("--json", action="store_true", help="print the stable JSON shape")
    parser.add_argument("--rubric", type=Path, help="a rubric TOML file (default: the packaged one)")
    install_options(parser)
    runs(parser, _check)


def _check(args: argparse.Namespace) -> int:
    from gradelib.display import render
    from gradelib.intake import ingest

    install_settings(args)
    plugin = takehomes.load(args.takehome)
    rubric = load_rubric(args.rubric, takehome=args.takehome) if args.rubric else None
    with ingest.open_submission(args.path) as submission:
        report = plugin.check(submission.path, name=submission.name, rubric=rubric)
    print(report.to_json(indent=2) if args.json else render.report_text(report))
    return EXIT_OK


def grade(sub: Subparsers) -> None:
    """`gradelib grade PATH...`: a cohort graded with the notebooks, into reports/."""
    parser = sub.add_parser("grade", help="grade submissions with the notebooks, into reports/")
    parser.add_argument("paths", nargs="+", type=Path, help="submissions, or folders of them")
    parser.add_argument("--takehome", choices=takehomes.names(), help="default: detected from the files")
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="output folder (default: reports/)")
    parser.add_argument("--jobs", type=int, default=None, help=f"parallel notebooks (default: {JOBS_DEFAULT})")
    parser.add_argument(
        "--grading-timeout", type=float, default=None, metavar="SECONDS",
        help="kill a grading that runs longer (default: its take-home's runs, installs and a margin)",
    )  # fmt: skip
    parser.add_argument("--gradebook", type=Path, help="SQLite gradebook (default: REPORTS/gradebook.sqlite)")
    parser.add_argument("--force", action="store_true", help="re-grade submissions that have not changed")
    parser.add_argument("--reveal", action="store_true", help="name reports after candidates, not 'Submission #N'")
    parser.add_argument("--scheduler", help="a Dask distributed scheduler address: grade on its workers")
    parser.add_argument(
        "--move-reports", action="store_true",
        help="grade into a reports folder that belongs to another gradebook on purpose: it becomes this one's",
    )  # fmt: skip
    install_options(parser)
    runs(parser, _grade)


def _grade(args: argparse.Namespace) -> int:
    from gradelib import batch
    from gradelib.batch import console
    from gradelib.batch.preflight import preflight

    install_settings(args)
    for warning in preflight([args.takehome] if args.takehome else None):
        print(f"WARNING: {warning}", file=sys.stderr)
    progress = _Progress()
    try:
        outcomes = batch.grade(
            args.paths,
            reports=args.reports,
            gradebook=args.gradebook,
            takehome=args.takehome,
            jobs=args.jobs,
            force=args.force,
            reveal=args.reveal,
            progress=progress,
            scheduler=args.scheduler,
            notice=lambda message: print(f"gradelib: {safetext.terminal_text(message)}", file=sys.stderr),
            grading_timeout=args.grading_timeout,
            move_reports=args.move_reports,
        )
    except KeyboardInterrupt as exc:
        progress.close()
        progress.bar = None
        how = str(exc) or "Ctrl+C"
        print(
            f"gradelib: interrupted ({how}): every report written is whole and kept; run the same command again"
            " to grade the rest",
            file=sys.stderr,
        )
        return EXIT_SIGTERM if how == "SIGTERM" else EXIT_INTERRUPTED
    finally:
        progress.close()
    for line in console.needs_a_look(outcomes, colour=console.use_colour(sys.stdout)):
        print(line)
    print(console.last_line(outcomes, args.reports))
    return EXIT_GRADING_ERRORS if any(outcome.ended_in_error for outcome in outcomes) else EXIT_OK


class _Progress:
    """A progress bar on stderr, with one line per finished submission on stdout."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int, outcome: GradeOutcome | None) -> None:
        from tqdm import tqdm

        from gradelib.batch import console

        if self.bar is None:
            self.bar = tqdm(total=total, unit="submission", file=sys.stderr, dynamic_ncols=True)
        if outcome is None:
            return
        # tqdm writes above its bar on stdout, where the batch's last lines go
        self.bar.write(console.outcome_line(outcome, colour=console.use_colour(sys.stdout)))
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def deps(sub: Subparsers) -> None:
    """`gradelib deps fetch PATH...`: the cache filled for `--offline`."""
    parser = sub.add_parser("deps", help="declared dependencies: `deps fetch PATH...` fills the cache for --offline")
    parser.add_argument("action", choices=("fetch",))
    parser.add_argument("paths", nargs="+", type=Path, help="submissions, or folders of them")
    install_options(parser)
    runs(parser, _deps)


def _deps(args: argparse.Namespace) -> int:
    from gradelib.environment.fetch import fetch

    settings = install_settings(args)
    found = fetch(
        args.paths,
        settings,
        progress=lambda item: print(safetext.terminal_text(item.describe()), flush=True),
        recognises=takehomes.recognises,
    )
    failed = [item for item in found if item.error or (item.environment and item.environment.error)]
    print(f"{len(found)} submission(s), {len(failed)} with problems; cache: {settings.cache_dir}")
    return EXIT_GRADING_ERRORS if failed else EXIT_OK
