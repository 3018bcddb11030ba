"""Reviewers' scores in the gradebook: `queue`, `export`, `import`, `restore`, `tables` and `anchor`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gradelib import safetext, takehomes
from gradelib.commands.exits import EXIT_OK
from gradelib.commands.options import Subparsers, runs
from gradelib.errors import GradelibError
from gradelib.gradebook import DEFAULT_PATH, Gradebook, scorefile
from gradelib.gradebook import exchange as gradebook_io
from gradelib.gradebook.health import open_checked
from gradelib.gradebook.identity import find_submission
from gradelib.meeting import decisions
from gradelib.review import reportfiles, worklist


def queue(sub: Subparsers) -> None:
    """`gradelib queue`: what a reviewer still has to score."""
    parser = sub.add_parser("queue", help="what a reviewer still has to score, in their own stable order")
    parser.add_argument("--reviewer", help="whose queue (default: GRADELIB_REVIEWER)")
    parser.add_argument("--takehome", choices=takehomes.names())
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--reveal", action="store_true", help="show candidates' names")
    runs(parser, _queue)


def _queue(args: argparse.Namespace) -> int:
    reviewer = worklist.whose(args.reviewer)
    with open_checked(args.gradebook) as book:
        pending = worklist.queue(book, reviewer, takehome=args.takehome, reveal=args.reveal)
    if not pending:
        print(f"nothing left for {safetext.terminal_text(reviewer)} to score")
    for item in pending:
        print(f"{item.takehome}/{safetext.terminal_text(item.label)}: {', '.join(item.lines)}  {item.notebook or ''}")
    return EXIT_OK


def export(sub: Subparsers) -> None:
    """`gradelib export FILE`: scores (or the whole gradebook, or the decisions) to a file."""
    parser = sub.add_parser("export", help="write reviewer scores to FILE (.json or .csv), blind by default")
    parser.add_argument("dest", type=Path, help="the file to write: .json or .csv")
    parser.add_argument("--reviewer", help="only this reviewer's scores (what you hand the lead)")
    parser.add_argument("--reveal", action="store_true", help="name candidates instead of 'Submission #N'")
    parser.add_argument(
        "--all", action="store_true",
        help="the whole gradebook (runs, lines, names, resolutions, decisions) as JSON",
    )  # fmt: skip
    parser.add_argument(
        "--decisions", action="store_true",
        help="write the decisions table (one row per candidate) as CSV for a hiring system, blind unless --reveal",
    )  # fmt: skip
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    runs(parser, _export)


def _export(args: argparse.Namespace) -> int:
    if args.decisions:
        from gradelib.cohort import table as cohort

        if args.all or args.reviewer:
            raise GradelibError("--decisions writes the decisions table alone: drop --all and --reviewer")
        if args.dest.suffix.lower() != ".csv":
            raise GradelibError("--decisions writes CSV: give a .csv file")
        written = decisions.export_decisions(cohort.load(args.gradebook), args.dest, reveal=args.reveal)
        print(written)
        return EXIT_OK
    with open_checked(args.gradebook) as book:
        if args.all:
            if scorefile.file_format(args.dest) != "json":
                raise GradelibError("--all writes the whole gradebook as JSON: give a .json file")
            written = gradebook_io.export(book, args.dest, "json")
        else:
            written = scorefile.export_scores(book, args.dest, reviewer=args.reviewer, reveal=args.reveal)
    print(written)
    return EXIT_OK


def merge(sub: Subparsers) -> None:
    """`gradelib import FILE`: another reviewer's scores (or a whole gradebook) pooled, no duplicates."""
    parser = sub.add_parser("import", help="merge a score file from `gradelib export` (no duplicates)")
    parser.add_argument("source", type=Path, help="a .json or .csv file written by `gradelib export`")
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    runs(parser, _import)


def _import(args: argparse.Namespace) -> int:
    new = not Path(args.gradebook).exists()
    if not new or scorefile.needs_cohort(args.source):  # only a whole-gradebook export may start a new gradebook
        open_checked(args.gradebook).close()
    with Gradebook(args.gradebook) as book:
        result = scorefile.import_file(book, args.source)
    if new:
        print(f"new gradebook at {args.gradebook}")
    print(f"imported {result.added} entries ({result.skipped} already present) from {args.source}")
    return EXIT_OK


def restore(sub: Subparsers) -> None:
    """`gradelib restore BACKUP`: a damaged gradebook put back from its backup."""
    parser = sub.add_parser("restore", help="put a gradebook backup back (a damaged gradebook's error names one)")
    parser.add_argument("backup", type=Path, help="a backup from the gradebook's .gradebook-backups/ folder")
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    runs(parser, _restore)


def _restore(args: argparse.Namespace) -> int:
    from gradelib.gradebook import backup

    done = backup.restore(args.backup, args.gradebook)
    kept = f"; the file it replaced is kept as {done.kept_damaged}" if done.kept_damaged else ""
    print(f"restored {args.gradebook} from {done.backup}{kept}")
    return EXIT_OK


def tables(sub: Subparsers) -> None:
    """`gradelib tables`: every report's score table and verdict card taken again from the gradebook."""
    parser = sub.add_parser("tables", help="take every report's score table again from the gradebook")
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="the reports folder (default: reports/)")
    parser.add_argument("--gradebook", type=Path, help="default: REPORTS/gradebook.sqlite")
    parser.add_argument("--takehome", choices=takehomes.names())
    parser.add_argument("--reveal", action="store_true", help="show every reviewer's values and candidates' names")
    runs(parser, _tables)


def _tables(args: argparse.Namespace) -> int:
    book = args.gradebook or args.reports / DEFAULT_PATH.name
    done = reportfiles.refresh_score_tables(book, args.reports, reveal=args.reveal, takehome=args.takehome)
    print(f"score tables taken again in {len(done.notebooks)} report(s) (and their HTML)")
    for missing in done.missing:
        print(f"report not found: {missing}", file=sys.stderr)
    for stale in done.stale:
        print(
            f"not touched, it shows another gradebook or run (`gradelib grade` writes it again): {stale}",
            file=sys.stderr,
        )
    return EXIT_OK


def anchor(sub: Subparsers) -> None:
    """`gradelib anchor add|remove|list`: the calibration anchors every reviewer scores first."""
    parser = sub.add_parser("anchor", help="calibration anchors: submissions every reviewer scores first")
    parser.add_argument("action", choices=("add", "remove", "list"))
    parser.add_argument("labels", nargs="*", help='blind labels ("Submission #3" or 3) or names')
    parser.add_argument("--takehome", choices=takehomes.names(), help="needed to add or remove")
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    runs(parser, _anchor)


def _anchor(args: argparse.Namespace) -> int:
    with open_checked(args.gradebook, write=args.action != "list") as book:
        if args.action != "list":
            if not args.takehome or not args.labels:
                raise GradelibError(f"anchor {args.action} needs --takehome and at least one label")
            for label in args.labels:
                row = find_submission(book, args.takehome, label)
                book.set_anchor(row.takehome, row.name, args.action == "add")
        anchors = book.anchors(args.takehome)
    print("calibration anchors: " + (", ".join(f"{a.takehome}/{a.blind_label}" for a in anchors) or "none"))
    return EXIT_OK
