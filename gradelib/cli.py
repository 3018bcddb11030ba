"""The `gradelib` command: thin over the library."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradelib import __version__, safetext, takehomes
from gradelib.errors import GradebookError, GradelibError, SchedulerLost, SettingsError
from gradelib.gradebook import DEFAULT_PATH, Gradebook, scorefile
from gradelib.gradebook import exchange as gradebook_io
from gradelib.gradebook.health import CODE_TABLES, READ_TABLES, open_checked
from gradelib.gradebook.identity import find_submission
from gradelib.meeting import decisions, resolutions
from gradelib.review import reportfiles, rubricview, worklist
from gradelib.settings import (
    Settings,
    current_settings,
    default_text,
    effective_json,
    effective_text,
    setting_for,
)
from gradelib.similarity.pairs import THRESHOLD
from gradelib.takehomes import clarifications, handout
from gradelib.takehomes.rubric import load_rubric

# Each command imports what only it needs (batch, cohort, environment...): `summary` and `queue`
# need not pay for pandas, the batch's kernels or the sandbox before they start.
if TYPE_CHECKING:
    from gradelib.batch import GradeOutcome
    from gradelib.environment import InstallSettings

# `grade --jobs`: the batch's default_jobs() is JOBS_PER_CORE x the cores, said here without importing the batch
# (a second, for every command); tests/unit/test_cli_commands.py compares the two
JOBS_DEFAULT = "twice the CPU count"
DEFAULT_IN_HELP = "default: "  # how an option's help states its default (the README's table of defaults reads it)
# What a script can rely on: the README's table of exit codes is EXIT_CODES (tests/unit/test_cli_exits.py).
EXIT_OK = 0
EXIT_GRADING_ERRORS = 1  # the batch ran to its end, and at least one submission's grading ended in error
EXIT_CANNOT_RUN = 2  # the kit could not do what was asked (argparse's own exit status for a bad command line)
EXIT_SCHEDULER_LOST = 3  # the Dask scheduler went away mid-batch: what was left is not graded
EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by SIGINT
EXIT_SIGTERM = 143  # as a shell reports a command stopped by SIGTERM
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "it did what was asked: `check` ran its checks, whatever they found (a line it could not check"
     " says so: `error`); `grade` graded every submission with every line checked, or found it up to date"),
    (EXIT_GRADING_ERRORS, "`grade` ran to its end (every other submission graded) and a submission ended in"
     " `error`: its grading failed, or the kit could not check one of its lines (graded now, or up to date"
     " from such a grading); the lines before the last name each one with its report, the last line counts"
     " them. Also `deps fetch`, `similarity add` and `similarity scan` when some of their work failed,"
     " `demo` when a score was refused, `new-takehome` when it wrote the take-home but could not install it"
     " (it prints the command that does)"),
    (EXIT_CANNOT_RUN, "the kit could not do what was asked, and said why in one line on stderr: a command line"
     " it does not understand, an unknown `GRADELIB_*` variable or value, a gradebook that is not there, a"
     " reports folder it cannot write, a submission `check` could not open"),
    (EXIT_SCHEDULER_LOST, "`grade --scheduler`: the Dask scheduler went away mid-batch; nothing is recorded for"
     " what was not graded: run the same command again"),
    (EXIT_INTERRUPTED, "stopped by Ctrl+C (SIGINT): every report written is whole; run the same command again"),
    (EXIT_SIGTERM, "stopped by SIGTERM: as Ctrl+C"),
)  # fmt: skip


def exit_codes_table() -> str:
    """The README's table of exit codes, from EXIT_CODES."""
    rows = "\n".join(f"| {code} | {meaning} |" for code, meaning in EXIT_CODES)
    return f"| exit status | when |\n|---|---|\n{rows}"


def _setting_default(field: str) -> str:
    """A flag's default: the variable it overrides, else that setting's own default (the settings table's)."""
    setting = setting_for(field)
    return f"{setting.name}, else {default_text(setting)}"


def _install_options(parser: argparse.ArgumentParser) -> None:
    """How declared dependencies are installed (default: the reviewer's own uv / npm configuration)."""
    group = parser.add_argument_group("declared dependencies")
    index, registry, cache = (_setting_default(field) for field in ("index_url", "npm_registry", "cache_dir"))
    group.add_argument("--index-url", help=f"the Python package index to install from (default: {index})")
    group.add_argument("--registry", help=f"the npm registry to install from (default: {registry})")
    group.add_argument("--offline", action="store_true", help="install only from the cache (see `deps fetch`)")
    group.add_argument("--cache-dir", type=Path, help=f"where environments are cached (default: {cache})")
    group.add_argument(
        "--build-source",
        action="store_true",
        help="let uv build a package that has no usable wheel from its sdist, inside the sandbox"
        " (default: wheels only, such a package is refused)",
    )


def _flagged(args: argparse.Namespace) -> Settings:
    """The kit's settings with the flags this command line gave applied (their source: "flag")."""
    given = {
        "index_url": getattr(args, "index_url", None),
        "npm_registry": getattr(args, "registry", None),
        "offline": getattr(args, "offline", False),
        "build_source": getattr(args, "build_source", False),
        "cache_dir": args.cache_dir.resolve() if getattr(args, "cache_dir", None) else None,
    }
    return current_settings().with_flags(**{name: value for name, value in given.items() if value})


def _settings(args: argparse.Namespace) -> InstallSettings:
    """The install settings from the command line, also exported for worker processes and kernels."""
    from gradelib.environment import InstallSettings

    settings = InstallSettings.from_settings(_flagged(args))
    settings.export(os.environ)
    return settings


def _servers() -> dict[str, str]:
    """Each take-home's standalone servers (`gradelib stub`, `gradelib gateway`): name -> take-home."""
    return {name: plugin.id for plugin in takehomes.available() for name in plugin.servers}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gradelib", description="Grade hiring take-homes by re-running them.")
    parser.add_argument("--version", action="version", version=f"gradelib {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _grading_commands(sub)
    _review_commands(sub)
    _team_commands(sub)
    _meeting_commands(sub)
    shown = sub.add_parser("settings", help="every GRADELIB_* setting: its value and where it came from")
    shown.add_argument("--json", action="store_true", help="print the rows as JSON")
    _install_options(shown)
    return parser


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser, by name, in the order `gradelib --help` lists them."""
    (sub,) = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return dict(sub.choices)


def _help_default(text: str) -> str | None:
    """What an option's help says its default is: the text after "default: " to the parenthesis it closes."""
    start = text.find(DEFAULT_IN_HELP)
    if start < 0:
        return None
    depth, end = 0, len(text)
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth < 0 or (text[index] == ";" and depth == 0):
            end = index
            break
    return text[start + len(DEFAULT_IN_HELP) : end].strip()


def defaults_table() -> str:
    """The README's table of the commands' defaults: each option whose help names its default, or whose value
    is one, with the commands it belongs to (tests/unit/test_cli_commands.py compares the README with it)."""
    rows: dict[tuple[str, str], list[str]] = {}
    for name, command in _commands(_parser()).items():
        for action in command._actions:
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            default = _help_default(action.help or "")
            if default is None and action.default not in (None, False, [], argparse.SUPPRESS):
                default = str(action.default)
            if default is not None:
                rows.setdefault((action.option_strings[-1], default), []).append(f"`{name}`")
    lines = ["| option | default | commands |", "|---|---|---|"]
    lines += [f"| `{option}` | {default} | {', '.join(names)} |" for (option, default), names in sorted(rows.items())]
    return "\n".join(lines)


def _grading_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`check`, `grade` and `deps`: running submissions."""
    check = sub.add_parser("check", help="check one submission and print its rubric lines")
    check.add_argument("takehome", choices=takehomes.names())
    check.add_argument("path", type=Path, help="a folder, .zip, .tar.gz or git bundle")
    check.add_argument("--json", action="store_true", help="print the stable JSON shape")
    check.add_argument("--rubric", type=Path, help="a rubric TOML file (default: the packaged one)")
    _install_options(check)
    grade = sub.add_parser("grade", help="grade submissions with the notebooks, into reports/")
    grade.add_argument("paths", nargs="+", type=Path, help="submissions, or folders of them")
    grade.add_argument("--takehome", choices=takehomes.names(), help="default: detected from the files")
    grade.add_argument("--reports", type=Path, default=Path("reports"), help="output folder (default: reports/)")
    grade.add_argument("--jobs", type=int, default=None, help=f"parallel notebooks (default: {JOBS_DEFAULT})")
    grade.add_argument(
        "--grading-timeout", type=float, default=None, metavar="SECONDS",
        help="kill a grading that runs longer (default: its take-home's runs, installs and a margin)",
    )  # fmt: skip
    grade.add_argument("--gradebook", type=Path, help="SQLite gradebook (default: REPORTS/gradebook.sqlite)")
    grade.add_argument("--force", action="store_true", help="re-grade submissions that have not changed")
    grade.add_argument("--reveal", action="store_true", help="name reports after candidates, not 'Submission #N'")
    grade.add_argument("--scheduler", help="a Dask distributed scheduler address: grade on its workers")
    grade.add_argument(
        "--move-reports", action="store_true",
        help="grade into a reports folder that belongs to another gradebook on purpose: it becomes this one's",
    )  # fmt: skip
    _install_options(grade)
    deps = sub.add_parser("deps", help="declared dependencies: `deps fetch PATH...` fills the cache for --offline")
    deps.add_argument("action", choices=("fetch",))
    deps.add_argument("paths", nargs="+", type=Path, help="submissions, or folders of them")
    _install_options(deps)


def _review_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`queue`, `export`, `import`, `tables` and `anchor`: reviewers' scores in the gradebook."""
    queue = sub.add_parser("queue", help="what a reviewer still has to score, in their own stable order")
    queue.add_argument("--reviewer", help="whose queue (default: GRADELIB_REVIEWER)")
    queue.add_argument("--takehome", choices=takehomes.names())
    queue.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    queue.add_argument("--reveal", action="store_true", help="show candidates' names")
    export = sub.add_parser("export", help="write reviewer scores to FILE (.json or .csv), blind by default")
    export.add_argument("dest", type=Path, help="the file to write: .json or .csv")
    export.add_argument("--reviewer", help="only this reviewer's scores (what you hand the lead)")
    export.add_argument("--reveal", action="store_true", help="name candidates instead of 'Submission #N'")
    export.add_argument(
        "--all", action="store_true",
        help="the whole gradebook (runs, lines, names, resolutions, decisions) as JSON",
    )  # fmt: skip
    export.add_argument(
        "--decisions", action="store_true",
        help="write the decisions table (one row per candidate) as CSV for a hiring system, blind unless --reveal",
    )  # fmt: skip
    export.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    merge = sub.add_parser("import", help="merge a score file from `gradelib export` (no duplicates)")
    merge.add_argument("source", type=Path, help="a .json or .csv file written by `gradelib export`")
    merge.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    restore = sub.add_parser("restore", help="put a gradebook backup back (a damaged gradebook's error names one)")
    restore.add_argument("backup", type=Path, help="a backup from the gradebook's .gradebook-backups/ folder")
    restore.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    tables = sub.add_parser("tables", help="take every report's score table again from the gradebook")
    tables.add_argument("--reports", type=Path, default=Path("reports"), help="the reports folder (default: reports/)")
    tables.add_argument("--gradebook", type=Path, help="default: REPORTS/gradebook.sqlite")
    tables.add_argument("--takehome", choices=takehomes.names())
    tables.add_argument("--reveal", action="store_true", help="show every reviewer's values and candidates' names")
    anchor = sub.add_parser("anchor", help="calibration anchors: submissions every reviewer scores first")
    anchor.add_argument("action", choices=("add", "remove", "list"))
    anchor.add_argument("labels", nargs="*", help='blind labels ("Submission #3" or 3) or names')
    anchor.add_argument("--takehome", choices=takehomes.names(), help="needed to add or remove")
    anchor.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)


def _team_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """What a hiring team runs around grading: `handout`, `new-takehome`, `summary`, `demo`, each take-home's
    servers."""
    out = sub.add_parser("handout", help="write what a hiring team sends to candidates")
    out.add_argument("takehome", choices=takehomes.names())
    out.add_argument("dest", type=Path)
    new = sub.add_parser("new-takehome", help="start your own take-home: a package whose tests pass as written")
    new.add_argument("name", help="its id: lowercase letters, digits, underscores (e.g. webhooks)")
    new.add_argument("--into", type=Path, default=Path("."), help="where its folder goes (default: here)")
    new.add_argument("--title", help="one line: what the take-home asks")
    new.add_argument(
        "--no-install", action="store_true",
        help="only write it; print the command that installs it into the kit's environment",
    )  # fmt: skip
    summary = sub.add_parser("summary", help="the cohort summary: table, charts, calibration -> REPORTS/summary.html")
    summary.add_argument("--reports", type=Path, default=Path("reports"), help="the reports folder (default: reports/)")
    summary.add_argument("--gradebook", type=Path, help="default: REPORTS/gradebook.sqlite")
    summary.add_argument("--takehome", choices=takehomes.names())
    summary.add_argument("--reviewer", help="only the submissions this reviewer scored")
    summary.add_argument("--from", dest="graded_from", help="graded on or after YYYY-MM-DD")
    summary.add_argument("--to", dest="graded_to", help="graded on or before YYYY-MM-DD")
    summary.add_argument("--reveal", action="store_true", help="per-report score tables show every value too")
    similar = sub.add_parser(
        "similarity",
        help="submissions that share code: in the gradebook (`list`), earlier cohorts (`add PATH...`), or any "
        "folders without grading (`scan PATH...`)",
    )
    similar.add_argument("action", nargs="?", choices=("list", "add", "scan"), default="list")
    similar.add_argument(
        "paths",
        nargs="*",
        type=Path,
        help="with add: earlier cohorts' submissions, folders of them, or gradebooks; with scan: submissions, "
        "archives or folders of them",
    )
    similar.add_argument(
        "--template", type=Path, action="append", default=[], help="with scan: starter code every candidate got"
    )
    similar.add_argument("--all", action="store_true", help="with scan: every pair with its score, highest first")
    similar.add_argument("--html", type=Path, help="with scan: also write the histogram and the pairs to this page")
    similar.add_argument("--takehome", choices=takehomes.names())
    similar.add_argument(
        "--gradebook", type=Path,
        help="default: reports/gradebook.sqlite (with scan: its labels, when it is there; else the scan's own)",
    )  # fmt: skip
    similar.add_argument(
        "--threshold", type=float, help=f"the share of either side's code a pair must cover (default: {THRESHOLD:g})"
    )
    similar.add_argument("--reveal", action="store_true", help="also candidates' names")
    similar.add_argument("--json", action="store_true", help="print the stable JSON shape")
    similar.add_argument("--cohort", help="with add: the name the earlier cohort is kept under (default: each path)")
    sub.add_parser("demo", help="enter demo reviewer scores (the sample cohort; see --help)", add_help=False)
    for name, plugin in _servers().items():
        sub.add_parser(name, help=f"run the {plugin} take-home's {name} server standalone (see --help)", add_help=False)


def _meeting_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """What the lead runs in a calibration meeting: `agenda`, `resolve`, `clarify`, `decide`, `rubric`."""
    agenda = sub.add_parser("agenda", help="where reviewers disagree by a tier or more: the meeting's agenda")
    agenda.add_argument("--takehome", choices=takehomes.names())
    agenda.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    agenda.add_argument("--reveal", action="store_true", help="show candidates' names")
    agenda.add_argument("--resolved", action="store_true", help="also the items the meeting already resolved")
    agenda.add_argument("--json", action="store_true", help="print the items as JSON")
    resolve = sub.add_parser("resolve", help="record the value the meeting agreed for one line of one submission")
    resolve.add_argument("takehome", choices=takehomes.names())
    resolve.add_argument("label", help='the blind label ("Submission #3" or 3) or the name')
    resolve.add_argument("line", help="the rubric line: its id or its title, as the agenda or `gradelib rubric` says")
    resolve.add_argument("value", help="a tier of the line, or its points")
    clarify = sub.add_parser("clarify", help="promote a resolution to a rubric clarification (kept in the gradebook)")
    clarify.add_argument("takehome", choices=takehomes.names())
    clarify.add_argument("label", help='the blind label ("Submission #3" or 3) or the name')
    clarify.add_argument("line", help="the rubric line: its id or its title")
    clarify.add_argument("--note", help="the clarification's text (default: the resolution's reason)")
    decide = sub.add_parser("decide", help="record the decision for one candidate (advance, hold, decline)")
    decide.add_argument("takehome", choices=takehomes.names())
    decide.add_argument("label", help='the blind label ("Submission #3" or 3) or the name')
    wording = f"default: {', '.join(decisions.DEFAULT_DECISIONS)}; {decisions.ENV_DECISIONS} sets the wording"
    decide.add_argument("decision", help=f"one of the team's decisions ({wording})")
    for command in (resolve, decide):
        command.add_argument("--why", required=True, help="the reason, as the meeting agreed it")
    for command in (resolve, clarify, decide):
        command.add_argument("--by", help="who records it (default: GRADELIB_REVIEWER)")
        command.add_argument("--gradebook", type=Path, default=DEFAULT_PATH)
    for command in (resolve, clarify):
        command.add_argument("--rubric", type=Path, help="the rubric file (default: the packaged one)")
    rubric = sub.add_parser("rubric", help="a take-home's rubric, with the calibration meetings' clarifications")
    rubric.add_argument("takehome", choices=takehomes.names())
    rubric.add_argument("--rubric", type=Path, help="a rubric TOML file (default: the packaged one)")
    rubric.add_argument(
        "--gradebook", type=Path, help="whose clarifications to show (default: reports/gradebook.sqlite, when there)"
    )


def _check(args: argparse.Namespace) -> int:
    from gradelib.display import render
    from gradelib.intake import ingest

    _settings(args)
    plugin = takehomes.load(args.takehome)
    rubric = load_rubric(args.rubric, takehome=args.takehome) if args.rubric else None
    with ingest.open_submission(args.path) as sub:
        report = plugin.check(sub.path, name=sub.name, rubric=rubric)
    print(report.to_json(indent=2) if args.json else render.report_text(report))
    return 0


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


def _deps(args: argparse.Namespace) -> int:
    from gradelib.environment.fetch import fetch

    settings = _settings(args)
    found = fetch(
        args.paths,
        settings,
        progress=lambda item: print(safetext.terminal_text(item.describe()), flush=True),
        recognises=takehomes.recognises,
    )
    failed = [item for item in found if item.error or (item.environment and item.environment.error)]
    print(f"{len(found)} submission(s), {len(failed)} with problems; cache: {settings.cache_dir}")
    return 1 if failed else 0


def _grade(args: argparse.Namespace) -> int:
    from gradelib import batch
    from gradelib.batch import console
    from gradelib.batch.preflight import preflight

    _settings(args)
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


def _queue(args: argparse.Namespace) -> int:
    reviewer = worklist.whose(args.reviewer)
    with open_checked(args.gradebook) as book:
        pending = worklist.queue(book, reviewer, takehome=args.takehome, reveal=args.reveal)
    if not pending:
        print(f"nothing left for {safetext.terminal_text(reviewer)} to score")
    for item in pending:
        print(f"{item.takehome}/{safetext.terminal_text(item.label)}: {', '.join(item.lines)}  {item.notebook or ''}")
    return 0


def _export(args: argparse.Namespace) -> int:
    if args.decisions:
        from gradelib.cohort import table as cohort

        if args.all or args.reviewer:
            raise GradelibError("--decisions writes the decisions table alone: drop --all and --reviewer")
        if args.dest.suffix.lower() != ".csv":
            raise GradelibError("--decisions writes CSV: give a .csv file")
        written = decisions.export_decisions(cohort.load(args.gradebook), args.dest, reveal=args.reveal)
        print(written)
        return 0
    with open_checked(args.gradebook) as book:
        if args.all:
            if scorefile.file_format(args.dest) != "json":
                raise GradelibError("--all writes the whole gradebook as JSON: give a .json file")
            written = gradebook_io.export(book, args.dest, "json")
        else:
            written = scorefile.export_scores(book, args.dest, reviewer=args.reviewer, reveal=args.reveal)
    print(written)
    return 0


def _import(args: argparse.Namespace) -> int:
    new = not Path(args.gradebook).exists()
    if not new or scorefile.needs_cohort(args.source):  # only a whole-gradebook export may start a new gradebook
        open_checked(args.gradebook).close()
    with Gradebook(args.gradebook) as book:
        result = scorefile.import_file(book, args.source)
    if new:
        print(f"new gradebook at {args.gradebook}")
    print(f"imported {result.added} entries ({result.skipped} already present) from {args.source}")
    return 0


def _restore(args: argparse.Namespace) -> int:
    from gradelib.gradebook import backup

    done = backup.restore(args.backup, args.gradebook)
    kept = f"; the file it replaced is kept as {done.kept_damaged}" if done.kept_damaged else ""
    print(f"restored {args.gradebook} from {done.backup}{kept}")
    return 0


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
    return 0


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
    return 0


def _agenda(args: argparse.Namespace) -> int:
    from gradelib.cohort import table as cohort
    from gradelib.meeting import agenda

    found = cohort.load(args.gradebook, takehome=args.takehome, evidence=False)
    items = agenda.agenda(found, resolved=args.resolved)
    if args.json:
        print(agenda.agenda_json(items, reveal=args.reveal, gradebook=args.gradebook))
    else:
        print(agenda.agenda_text(items, reveal=args.reveal, reports_dir=found.reports_dir, gradebook=args.gradebook))
    return 0


def _resolve(args: argparse.Namespace) -> int:
    rubric = resolutions.rubric_for(args.takehome, args.rubric)
    with open_checked(args.gradebook, write=True) as book:
        record = resolutions.resolve(
            book, args.takehome, args.label, args.line, args.value, args.why, args.by, rubric=rubric
        )
        label = find_submission(book, args.takehome, args.label).blind_label
    print(f"{args.takehome} {label} {record.line_id}: resolved as {record.value} by {record.resolved_by}")
    return 0


def _clarify(args: argparse.Namespace) -> int:
    rubric = resolutions.rubric_for(args.takehome, args.rubric)
    with open_checked(args.gradebook, write=True) as book:
        done = resolutions.clarify(book, args.takehome, args.label, args.line, note=args.note, rubric=rubric)
    what = "added to" if done.added else "already in"
    print(
        f"{args.takehome} {done.clarification.example} {done.clarification.line_id}: {what} the gradebook's"
        f" clarifications ({done.path}); `gradelib rubric {args.takehome}` shows them"
    )
    return 0


def _decide(args: argparse.Namespace) -> int:
    with open_checked(args.gradebook, write=True) as book:
        record = decisions.decide(book, args.takehome, args.label, args.decision, args.why, args.by)
        label = find_submission(book, args.takehome, args.label).blind_label
    print(f"{args.takehome} {label}: {record.decision}, decided by {record.decided_by}")
    return 0


def _similarity(args: argparse.Namespace) -> int:
    from gradelib import similarity
    from gradelib.similarity import earliercohorts, listing
    from gradelib.similarity.handoutbase import handout_base

    if args.action == "scan":
        return _similarity_scan(args)
    if args.action == "add":
        if not args.paths:
            raise GradelibError("similarity add needs PATH...: earlier cohorts' submissions, or their gradebooks")
        with open_checked(args.gradebook or DEFAULT_PATH, write=True, tables=READ_TABLES + CODE_TABLES) as book:
            done = earliercohorts.add_earlier(book, args.paths, takehome=args.takehome, cohort=args.cohort)
        print(f"earlier cohorts: {len(done.added)} submission(s) added, {len(done.known)} kept already")
        for error in done.errors:
            print(f"not added: {safetext.terminal_text(error)}", file=sys.stderr)
        return 1 if done.errors and not (done.added or done.known) else 0
    if args.paths:
        raise GradelibError("paths are for `gradelib similarity add PATH...`")
    threshold = similarity.THRESHOLD if args.threshold is None else args.threshold
    if not 0 < threshold <= 1:
        raise GradelibError("--threshold is a share of the code: more than 0, at most 1")
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
    return 0


def _similarity_scan(args: argparse.Namespace) -> int:
    from gradelib import similarity
    from gradelib.similarity import listing
    from gradelib.similarity.scan import scan

    if not args.paths:
        raise GradelibError("similarity scan needs PATH...: submissions, archives, or folders of them")
    threshold = similarity.THRESHOLD if args.threshold is None else args.threshold
    if not 0 < threshold <= 1:
        raise GradelibError("--threshold is a share of the code: more than 0, at most 1")
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
    return 1 if found.problems and not found.submissions else 0


def _rubric(args: argparse.Namespace) -> int:
    rubric = resolutions.rubric_for(args.takehome, args.rubric)
    given = args.gradebook is not None
    path = args.gradebook if given else DEFAULT_PATH
    if not given and not path.exists():  # before any grading: the rubric as written, and where clarifications go
        print(rubricview.rubric_text(rubric, clarifications.load_clarifications(rubric)))
        print(f"(no gradebook at {path}: a team's clarifications show with --gradebook PATH)")
        return 0
    with open_checked(path) as book:
        print(rubricview.rubric_text(rubric, clarifications.load_clarifications(rubric, book)))
    return 0


def _show_settings(args: argparse.Namespace) -> int:
    settings = _flagged(args)
    print(effective_json(settings) if args.json else effective_text(settings))
    return 0


def _new_takehome(args: argparse.Namespace) -> int:
    import shlex

    from gradelib.scaffold import install
    from gradelib.scaffold.newtakehome import SAMPLE, new_takehome

    folder = new_takehome(args.name, args.into, title=args.title)
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


_COMMANDS = {
    "queue": _queue,
    "deps": _deps,
    "export": _export,
    "import": _import,
    "restore": _restore,
    "tables": _tables,
    "anchor": _anchor,
    "agenda": _agenda,
    "resolve": _resolve,
    "clarify": _clarify,
    "decide": _decide,
    "rubric": _rubric,
    "similarity": _similarity,
    "new-takehome": _new_takehome,
    "settings": _show_settings,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `gradelib` console script."""
    if argv is None:  # the console script: the process ends when main returns
        atexit.register(gc.freeze)  # its objects are not collected one by one at exit (0.4 s after nbconvert)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:  # before any command runs: an unknown variable or a value the kit cannot mean stops every one
        current_settings()
    except SettingsError as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    if argv and argv[0] in _servers():
        plugin = takehomes.load(_servers()[argv[0]])
        return plugin.servers[argv[0]](argv[1:])
    if argv and argv[0] == "demo":
        from gradelib.cohort import demo

        return demo.main(argv[1:])
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except BrokenPipeError:  # `gradelib agenda | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "grade":
            return _grade(args)
        if args.command == "summary":
            from gradelib.cohort import summary

            book = args.gradebook or args.reports / DEFAULT_PATH.name
            done = reportfiles.refresh_score_tables(book, args.reports, reveal=args.reveal)
            print(f"score tables taken again in {len(done.notebooks)} report(s)")
            html = summary.run_summary(
                args.reports,
                args.gradebook,
                takehome=args.takehome,
                reviewer=args.reviewer,
                graded_from=args.graded_from,
                graded_to=args.graded_to,
            )
            print(f"cohort summary: {html}")
            return 0
        if args.command in _COMMANDS:
            return _COMMANDS[args.command](args)
        if args.command == "handout":
            written = handout.write_handout(args.takehome, args.dest)
            print(json.dumps({"handout": args.takehome, "dest": str(args.dest), "files": len(written)}))
            return 0
    except SchedulerLost as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return EXIT_SCHEDULER_LOST
    except GradelibError as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    return EXIT_CANNOT_RUN
