"""`gradelib similarity`: submissions that share code, in the gradebook (`list`), earlier cohorts added to it
(`add PATH...`), or any folders scanned without grading (`scan PATH...`)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from gradelib import safetext, takehomes
from gradelib.commands.exits import EXIT_GRADING_ERRORS, EXIT_OK
from gradelib.commands.options import Subparsers, runs
from gradelib.errors import GradebookError, GradelibError
from gradelib.gradebook import DEFAULT_PATH
from gradelib.gradebook.health import CODE_TABLES, READ_TABLES, open_checked
from gradelib.similarity.pairs import THRESHOLD


def similarity(sub: Subparsers) -> None:
    """The command and its three actions' options."""
    parser = sub.add_parser(
        "similarity",
        help="submissions that share code: in the gradebook (`list`), earlier cohorts (`add PATH...`), or any "
        "folders without grading (`scan PATH...`)",
    )
    parser.add_argument("action", nargs="?", choices=("list", "add", "scan"), default="list")
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="with add: earlier cohorts' submissions, folders of them, or gradebooks; with scan: submissions, "
        "archives or folders of them",
    )
    parser.add_argument(
        "--template", type=Path, action="append", default=[], help="with scan: starter code every candidate got"
    )
    parser.add_argument("--all", action="store_true", help="with scan: every pair with its score, highest first")
    parser.add_argument("--html", type=Path, help="with scan: also write the histogram and the pairs to this page")
    parser.add_argument("--takehome", choices=takehomes.names())
    parser.add_argument(
        "--gradebook", type=Path,
        help="default: reports/gradebook.sqlite (with scan: its labels, when it is there; else the scan's own)",
    )  # fmt: skip
    parser.add_argument(
        "--threshold", type=float, help=f"the share of either side's code a pair must cover (default: {THRESHOLD:g})"
    )
    parser.add_argument("--reveal", action="store_true", help="also candidates' names")
    parser.add_argument("--json", action="store_true", help="print the stable JSON shape")
    parser.add_argument("--cohort", help="with add: the name the earlier cohort is kept under (default: each path)")
    runs(parser, _similarity)


def _similarity(args: argparse.Namespace) -> int:
    if args.action == "scan":
        return _scan(args)
    if args.action == "add":
        return _add(args)
    if args.paths:
        raise GradelibError("paths are for `gradelib similarity add PATH...`")
    return _list(args)


def _threshold(args: argparse.Namespace) -> float:
    threshold = THRESHOLD if args.threshold is None else args.threshold
    if not 0 < threshold <= 1:
        raise GradelibError("--threshold is a share of the code: more than 0, at most 1")
    return float(threshold)


def _add(args: argparse.Namespace) -> int:
    from gradelib.similarity import earliercohorts

    if not args.paths:
        raise GradelibError("similarity add needs PATH...: earlier cohorts' submissions, or their gradebooks")
    with open_checked(args.gradebook or DEFAULT_PATH, write=True, tables=READ_TABLES + CODE_TABLES) as book:
        done = earliercohorts.add_earlier(book, args.paths, takehome=args.takehome, cohort=args.cohort)
    print(f"earlier cohorts: {len(done.added)} submission(s) added, {len(done.known)} kept already")
    for error in done.errors:
        print(f"not added: {safetext.terminal_text(error)}", file=sys.stderr)
    return EXIT_GRADING_ERRORS if done.errors and not (done.added or done.known) else EXIT_OK


def _list(args: argparse.Namespace) -> int:
    from gradelib import similarity
    from gradelib.similarity import listing
    from gradelib.similarity.handoutbase import handout_base

    threshold = _threshold(args)
    with open_checked(args.gradebook or DEFAULT_PATH, tables=READ_TABLES + CODE_TABLES) as book:
        chosen = [args.takehome] if args.takehome else similarity.takehomes_kept(book)
        for takehome in chosen:
            with contextlib.suppress(GradebookError):  # read-only: what an earlier kit kept is left out
                similarity.refresh(book, takehome, handout_base(takehome))
        pairs = [
            pair
            for takehome in chosen
            for pair in similarity.cohort_pairs(book, takehome, threshold=threshold, reveal=args.reveal)
        ]
    if args.json:
        print(listing.pairs_json(pairs, threshold, reveal=args.reveal))
    else:
        print(listing.pairs_text(pairs, threshold))
    return EXIT_OK


def _scan(args: argparse.Namespace) -> int:
    from gradelib.similarity import listing
    from gradelib.similarity.scan import scan

    if not args.paths:
        raise GradelibError("similarity scan needs PATH...: submissions, archives, or folders of them")
    threshold = _threshold(args)
    labelled = args.gradebook is not None or DEFAULT_PATH.exists()  # a gradebook given must be there
    with open_checked(args.gradebook or DEFAULT_PATH) if labelled else contextlib.nullcontext() as book:
        found = scan(
            args.paths, takehome=args.takehome, templates=args.template, threshold=threshold,
            every=args.all or args.html is not None, reveal=args.reveal, gradebook=book,
        )  # fmt: skip
    for problem in found.problems:
        print(f"not scanned: {safetext.terminal_text(problem)}", file=sys.stderr)
    if args.html:
        from gradelib import atomicfile
        from gradelib.cohort.similar import scan_html

        atomicfile.write_text(args.html, scan_html(found, threshold))
        print(f"scan page: {args.html}", file=sys.stderr)
    if not args.all:  # every pair was measured for the page; the listing shows the flagged ones
        found.pairs = [pair for pair in found.pairs if pair.match.share >= threshold]
    if args.json:
        print(
            listing.scan_json(
                found.pairs, threshold, found.submissions, every=args.all, reveal=args.reveal, gradebook=found.gradebook
            )
        )
    else:
        labels = listing.scan_labels_text(found.gradebook, found.scan_labels)
        print(listing.scan_text(found.pairs, threshold, found.submissions, every=args.all, labels=labels))
    return EXIT_GRADING_ERRORS if found.problems and not found.submissions else EXIT_OK
