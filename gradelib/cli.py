"""The `gradelib` command: parse, run the command (`gradelib/commands/`, each next to its options), say an error.

Thin over the library: every command is a function of `gradelib.commands` that adds its options and what it
runs; this module builds the parser from them, in the order `gradelib --help` lists them, dispatches one way
(`args.run`), and turns a `GradelibError` into one line on stderr and an exit status (`commands/exits.py`).
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
from collections.abc import Callable, Sequence

from gradelib import __version__
from gradelib.commands import grading, meeting, reviewing, similarity, team
from gradelib.commands.exits import EXIT_CANNOT_RUN, EXIT_SCHEDULER_LOST
from gradelib.commands.options import DEFAULT_IN_HELP, Subparsers
from gradelib.errors import GradelibError, SchedulerLost, SettingsError
from gradelib.settings import current_settings

# Each command imports what only it needs (batch, cohort, environment...): `summary` and `queue`
# need not pay for pandas, the batch's kernels or the sandbox before they start.
COMMANDS: tuple[Callable[[Subparsers], None], ...] = (
    grading.check,
    grading.grade,
    grading.deps,
    reviewing.queue,
    reviewing.export,
    reviewing.merge,
    reviewing.restore,
    reviewing.tables,
    reviewing.anchor,
    team.handout,
    team.new_takehome,
    team.summary,
    similarity.similarity,
    team.demo,
    team.servers,
    meeting.agenda,
    meeting.resolve,
    meeting.clarify,
    meeting.decide,
    meeting.rubric,
    team.settings,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gradelib", description="Grade hiring take-homes by re-running them.")
    parser.add_argument("--version", action="version", version=f"gradelib {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command(sub)
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
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if rest and not args.passes_on:  # only a command that reads its own arguments (a server, demo) takes more
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return _run(args, rest)
    except BrokenPipeError:  # `gradelib agenda | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace, rest: Sequence[str]) -> int:
    try:
        code: int = args.run(args, rest) if args.passes_on else args.run(args)
    except SchedulerLost as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return EXIT_SCHEDULER_LOST
    except GradelibError as exc:
        print(f"gradelib: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    return code
