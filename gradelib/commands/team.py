"""What a hiring team runs around grading: `handout`, `new-takehome`, `summary`, `demo`, each take-home's own
servers, and `settings`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gradelib import takehomes
from gradelib.commands.exits import EXIT_GRADING_ERRORS, EXIT_OK
from gradelib.commands.options import Subparsers, flagged, install_options, runs
from gradelib.gradebook import DEFAULT_PATH
from gradelib.review import reportfiles
from gradelib.settings import effective_json, effective_text
from gradelib.takehomes import handout as handouts


def handout(sub: Subparsers) -> None:
    """`gradelib handout TAKEHOME DEST`: what a hiring team sends to candidates."""
    parser = sub.add_parser("handout", help="write what a hiring team sends to candidates")
    parser.add_argument("takehome", choices=takehomes.names())
    parser.add_argument("dest", type=Path)
    runs(parser, _handout)


def _handout(args: argparse.Namespace) -> int:
    written = handouts.write_handout(args.takehome, args.dest)
    print(json.dumps({"handout": args.takehome, "dest": str(args.dest), "files": len(written)}))
    return EXIT_OK


def new_takehome(sub: Subparsers) -> None:
    """`gradelib new-takehome NAME`: a team's own take-home package, written and installed."""
    parser = sub.add_parser("new-takehome", help="start your own take-home: a package whose tests pass as written")
    parser.add_argument("name", help="its id: lowercase letters, digits, underscores (e.g. webhooks)")
    parser.add_argument("--into", type=Path, default=Path("."), help="where its folder goes (default: here)")
    parser.add_argument("--title", help="one line: what the take-home asks")
    parser.add_argument(
        "--no-install", action="store_true",
        help="only write it; print the command that installs it into the kit's environment",
    )  # fmt: skip
    runs(parser, _new_takehome)


def _new_takehome(args: argparse.Namespace) -> int:
    import shlex

    from gradelib.scaffold import install
    from gradelib.scaffold.newtakehome import SAMPLE
    from gradelib.scaffold.newtakehome import new_takehome as write_takehome

    folder = write_takehome(args.name, args.into, title=args.title)
    print(f"wrote {folder}")
    done = None if args.no_install else install.install(folder)
    if done is None:
        print(f"install it into the kit's environment: {shlex.join(install.pip_command(folder))}")
    elif done.ok:
        print(f"installed it into the kit's environment ({sys.executable}): {shlex.join(done.command)}")
    else:
        print(f"gradelib: could not install it into the kit's environment: {done.why}", file=sys.stderr)
        print(f"install it into the kit's environment: {shlex.join(done.instead)}")
    kit = install.gradelib_command()
    print(f"then check its sample: {kit} check {args.name} {shlex.quote(str(folder / 'submissions' / SAMPLE))}")
    print(f"run its tests: {shlex.quote(sys.executable)} -m pytest {shlex.quote(str(folder / 'tests'))}")
    print(f"grade its samples: {kit} grade {shlex.quote(str(folder / 'submissions'))}")
    return EXIT_OK if done is None or done.ok else EXIT_GRADING_ERRORS


def summary(sub: Subparsers) -> None:
    """`gradelib summary`: the cohort summary, every report's score table taken again first."""
    parser = sub.add_parser("summary", help="the cohort summary: table, charts, calibration -> REPORTS/summary.html")
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="the reports folder (default: reports/)")
    parser.add_argument("--gradebook", type=Path, help="default: REPORTS/gradebook.sqlite")
    parser.add_argument("--takehome", choices=takehomes.names())
    parser.add_argument("--reviewer", help="only the submissions this reviewer scored")
    parser.add_argument("--from", dest="graded_from", help="graded on or after YYYY-MM-DD")
    parser.add_argument("--to", dest="graded_to", help="graded on or before YYYY-MM-DD")
    parser.add_argument("--reveal", action="store_true", help="per-report score tables show every value too")
    runs(parser, _summary)


def _summary(args: argparse.Namespace) -> int:
    from gradelib.cohort import summary as cohort_summary

    book = args.gradebook or args.reports / DEFAULT_PATH.name
    done = reportfiles.refresh_score_tables(book, args.reports, reveal=args.reveal)
    print(f"score tables taken again in {len(done.notebooks)} report(s)")
    html = cohort_summary.run_summary(
        args.reports,
        args.gradebook,
        takehome=args.takehome,
        reviewer=args.reviewer,
        graded_from=args.graded_from,
        graded_to=args.graded_to,
    )
    print(f"cohort summary: {html}")
    return EXIT_OK


def demo(sub: Subparsers) -> None:
    """`gradelib demo ...`: demo reviewer scores; it reads its own arguments."""
    parser = sub.add_parser("demo", help="enter demo reviewer scores (the sample cohort; see --help)", add_help=False)
    runs(parser, _demo, passes_on=True)


def _demo(_args: argparse.Namespace, rest: Sequence[str]) -> int:
    from gradelib.cohort import demo as cohort_demo

    return cohort_demo.main(list(rest))


def servers(sub: Subparsers) -> None:
    """`gradelib NAME ...`: each take-home's standalone servers (`stub`, `gateway`); each reads its own arguments."""
    for name, plugin in server_names().items():
        parser = sub.add_parser(
            name, help=f"run the {plugin} take-home's {name} server standalone (see --help)", add_help=False
        )
        parser.set_defaults(server=name)
        runs(parser, _serve, passes_on=True)


def server_names() -> dict[str, str]:
    """Each take-home's standalone servers: name -> take-home."""
    return {name: plugin.id for plugin in takehomes.available() for name in plugin.servers}


def _serve(args: argparse.Namespace, rest: Sequence[str]) -> int:
    plugin = takehomes.load(server_names()[args.server])
    return plugin.servers[args.server](list(rest))


def settings(sub: Subparsers) -> None:
    """`gradelib settings`: every GRADELIB_* setting, its value and where it came from."""
    parser = sub.add_parser("settings", help="every GRADELIB_* setting: its value and where it came from")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    install_options(parser)
    runs(parser, _settings)


def _settings(args: argparse.Namespace) -> int:
    given = flagged(args)
    print(effective_json(given) if args.json else effective_text(given))
    return EXIT_OK
