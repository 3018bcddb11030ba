"""Commands work as printed: a reviewer's name from GRADELIB_REVIEWER wherever a command needs one, `--version`,
every usage line starting `gradelib ...`, the README's defaults the command line's own."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from golden_util import assert_readme_block
from test_cohort import book_path

from gradelib import __version__, cli
from gradelib.commands import exits, options
from gradelib.settings import ENV_REVIEWER

__all__ = ["book_path"]  # the fixture, shared with test_cohort


def test_queue_reads_the_reviewer_from_gradelib_reviewer_as_the_panel_does(
    book_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ENV_REVIEWER, raising=False)
    named = {}
    for reviewer in ("ana", "ben"):
        assert cli.main(["queue", "--reviewer", reviewer, "--gradebook", str(book_path)]) == 0
        named[reviewer] = capsys.readouterr().out
    monkeypatch.setenv(ENV_REVIEWER, "ana")
    assert cli.main(["queue", "--gradebook", str(book_path)]) == 0
    assert capsys.readouterr().out == named["ana"]
    assert cli.main(["queue", "--reviewer", "ben", "--gradebook", str(book_path)]) == 0  # the flag wins
    assert capsys.readouterr().out == named["ben"]


def test_queue_without_a_reviewer_says_how_to_name_one(
    book_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ENV_REVIEWER, raising=False)
    assert cli.main(["queue", "--gradebook", str(book_path)]) == exits.EXIT_CANNOT_RUN
    assert capsys.readouterr().err.strip() == f"gradelib: say whose it is: --reviewer NAME, or set {ENV_REVIEWER}"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"gradelib {__version__}"


def _commands() -> list[str]:
    """Every subcommand `gradelib --help` lists: the parser's, `demo` and each take-home's servers among them."""
    return sorted(cli._commands(cli._parser()))


def test_every_command_is_listed() -> None:
    assert {"check", "grade", "queue", "demo", "stub", "gateway", "new-takehome", "settings"} <= set(_commands())


@pytest.mark.parametrize("command", _commands())
def test_each_commands_usage_line_says_gradelib(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`gradelib demo --help` printed `usage: python -m gradelib.cohort.demo`: a lead copies usage lines."""
    with pytest.raises(SystemExit) as done:
        cli.main([command, "--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: gradelib {command} ")


README = Path(__file__).resolve().parents[2] / "README.md"
# "(`--jobs`, default: twice the CPU count)": a default stated in the README's prose
STATED = re.compile(r"`(--[\w-]+)`, default: ([^)]+)\)")


def test_the_readmes_table_of_defaults_is_the_command_lines() -> None:
    what = "table of defaults differs from the commands' options (gradelib/commands/)"
    assert_readme_block(README, "defaults-table", cli.defaults_table(), what, "tests/unit/test_cli_commands.py")


def test_a_default_the_readme_states_in_prose_is_the_command_lines() -> None:
    table = cli.defaults_table()
    stated = STATED.findall(README.read_text(encoding="utf-8"))
    assert ("--jobs", "twice the CPU count") in stated
    for option, default in stated:
        assert f"| `{option}` | {default} |" in table, f"README says {option} defaults to {default!r}"


def test_the_jobs_default_said_is_the_batchs() -> None:
    from gradelib.batch import driver

    said = {"the CPU count": 1, "twice the CPU count": 2}.get(options.JOBS_DEFAULT)
    assert said == driver.JOBS_PER_CORE and driver.default_jobs() == said * (os.cpu_count() or 1)
    assert f"default: {options.JOBS_DEFAULT}" in _help("grade")


def _help(command: str) -> str:
    return cli._commands(cli._parser())[command].format_help()
