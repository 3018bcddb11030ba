"""What the lead runs in a calibration meeting: `agenda`, `resolve`, `clarify`, `decide` and `rubric`."""

from __future__ import annotations

import argparse
from pathlib import Path

from gradelib import takehomes
from gradelib.commands.exits import EXIT_OK
from gradelib.commands.options import Subparsers, runs
from gradelib.gradebook import DEFAULT_PATH
from gradelib.gradebook.health import open_checked
from gradelib.gradebook.identity import find_submission
from gradelib.meeting import decisions, resolutions
from gradelib.review import rubricview
from gradelib.takehomes import clarifications

LABEL_HELP = 'the blind label ("Submission #3" or 3) or the name'


def agenda(sub: Subparsers) -> None:
    """`gradelib agenda`: where reviewers differ by a tier or more."""
    parser = sub.add_parser("agenda", help="where reviewers disagree by a tier or more: the meeting's agenda")
    parser.add_argument("--takehome", choices=takehomes.names())
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--reveal", action="store_true", help="show candidates' names")
    parser.add_argument("--resolved", action="store_true", help="also the items the meeting already resolved")
    parser.add_argument("--json", action="store_true", help="print the items as JSON")
    runs(parser, _agenda)


def _agenda(args: argparse.Namespace) -> int:
    from gradelib.cohort import table as cohort
    from gradelib.meeting import agenda as meeting_agenda

    found = cohort.load(args.gradebook, takehome=args.takehome, evidence=False)
    items = meeting_agenda.agenda(found, resolved=args.resolved)
    if args.json:
        print(meeting_agenda.agenda_json(items, reveal=args.reveal, gradebook=args.gradebook))
    else:
        shown = meeting_agenda.agenda_text(
            items, reveal=args.reveal, reports_dir=found.reports_dir, gradebook=args.gradebook
        )
        print(shown)
    return EXIT_OK


def resolve(sub: Subparsers) -> None:
    """`gradelib resolve TAKEHOME LABEL LINE VALUE --why`: the value the meeting agreed for one line."""
    parser = sub.add_parser("resolve", help="record the value the meeting agreed for one line of one submission")
    parser.add_argument("takehome", choices=takehomes.names())
    parser.add_argument("label", help=LABEL_HELP)
    parser.add_argument("line", help="the rubric line: its id or its title, as the agenda or `gradelib rubric` says")
    parser.add_argument("value", help="a tier of the line, or its points")
    _why(parser)
    _recorded(parser)
    _rubric_file(parser)
    runs(parser, _resolve)


def _resolve(args: argparse.Namespace) -> int:
    rubric = resolutions.rubric_for(args.takehome, args.rubric)
    with open_checked(args.gradebook, write=True) as book:
        record = resolutions.resolve(
            book, args.takehome, args.label, args.line, args.value, args.why, args.by, rubric=rubric
        )
        label = find_submission(book, args.takehome, args.label).blind_label
    print(f"{args.takehome} {label} {record.line_id}: resolved as {record.value} by {record.resolved_by}")
    return EXIT_OK


def clarify(sub: Subparsers) -> None:
    """`gradelib clarify TAKEHOME LABEL LINE`: a resolution promoted to a rubric clarification."""
    parser = sub.add_parser("clarify", help="promote a resolution to a rubric clarification (kept in the gradebook)")
    parser.add_argument("takehome", choices=takehomes.names())
    parser.add_argument("label", help=LABEL_HELP)
    parser.add_argument("line", help="the rubric line: its id or its title")
    parser.add_argument("--note", help="the clarification's text (default: the resolution's reason)")
    _recorded(parser)
    _rubric_file(parser)
    runs(parser, _clarify)


def _clarify(args: argparse.Namespace) -> int:
    rubric = resolutions.rubric_for(args.takehome, args.rubric)
    with open_checked(args.gradebook, write=True) as book:
        done = resolutions.clarify(book, args.takehome, args.label, args.line, note=args.note, rubric=rubric)
    what = "added to" if done.added else "already in"
    print(
        f"{args.takehome} {done.clarification.example} {done.clarification.line_id}: {what} the gradebook's"
        f" clarifications ({done.path}); `gradelib rubric {args.takehome}` shows them"
    )
    return EXIT_OK


def decide(sub: Subparsers) -> None:
    """`gradelib decide TAKEHOME LABEL DECISION --why`: the decision for one candidate."""
    parser = sub.add_parser("decide", help="record the decision for one candidate (advance, hold, decline)")
    parser.add_argument("takehome", choices=takehomes.names())
    parser.add_argument("label", help=LABEL_HELP)
    wording = f"default: {', '.join(decisions.DEFAULT_DECISIONS)}; {decisions.ENV_DECISIONS} sets the wording"
    parser.add_argument("decision", help=f"one of the team's decisions ({wording})")
    _why(parser)
    _recorded(parser)
    runs(parser, _decide)


def _decide(args: argparse.Namespace) -> int:
    with open_checked(args.gradebook, write=True) as book:
        record = decisions.decide(book, args.takehome, args.label, args.decision, args.why, args.by)
        label = find_submission(book, args.takehome, args.label).blind_label
    print(f"{args.takehome} {label}: {record.decision}, decided by {record.decided_by}")
    return EXIT_OK


def rubric(sub: Subparsers) -> None:
    """`gradelib rubric TAKEHOME`: the rubric with the team's clarifications."""
    parser = sub.add_parser("rubric", help="a take-home's rubric, with the calibration meetings' clarifications")
    parser.add_argument("takehome", choices=takehomes.names())
    parser.add_argument("--rubric", type=Path, help="a rubric TOML file (default: the packaged one)")
    parser.add_argument(
        "--gradebook", type=Path, help="whose clarifications to show (default: reports/gradebook.sqlite, when there)"
    )
    runs(parser, _rubric)


def _rubric(args: argparse.Namespace) -> int:
    shown = resolutions.rubric_for(args.takehome, args.rubric)
    given = args.gradebook is not None
    path = args.gradebook if given else DEFAULT_PATH
    if not given and not path.exists():  # before any grading: the rubric as written, and where clarifications go
        print(rubricview.rubric_text(shown, clarifications.load_clarifications(shown)))
        print(f"(no gradebook at {path}: a team's clarifications show with --gradebook PATH)")
        return EXIT_OK
    with open_checked(path) as book:
        print(rubricview.rubric_text(shown, clarifications.load_clarifications(shown, book)))
    return EXIT_OK


def _why(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--why", required=True, help="the reason, as the meeting agreed it")


def _recorded(parser: argparse.ArgumentParser) -> None:
    """Who records it, and where."""
    parser.add_argument("--by", help="who records it (default: GRADELIB_REVIEWER)")
    parser.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)


def _rubric_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rubric", type=Path, help="the rubric file (default: the packaged one)")
