"""What the `gradelib` commands exit with: the table a script relies on (in the README too), and a lost cluster."""

from __future__ import annotations

from pathlib import Path

import pytest
from golden_util import assert_readme_block

from gradelib import batch, cli
from gradelib.commands import exits
from gradelib.errors import SchedulerLost


def test_a_lost_scheduler_is_one_line_and_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def lose(*_args: object, **_kwargs: object) -> list[batch.GradeOutcome]:
        raise SchedulerLost("tcp://10.0.0.5:8786", 3)

    monkeypatch.setattr(batch, "grade", lose)
    code = cli.main(["grade", str(tmp_path), "--reports", str(tmp_path / "r"), "--scheduler", "tcp://10.0.0.5:8786"])
    said = capsys.readouterr()
    assert code == exits.EXIT_SCHEDULER_LOST == 3
    lines = [line for line in said.err.splitlines() if line.startswith("gradelib:")]
    assert lines == [
        "gradelib: the Dask scheduler at tcp://10.0.0.5:8786 went away mid-batch and did not come back:"
        " 3 submission(s) not graded (nothing recorded for them); start it again and run the same command:"
        " it grades only what is left"
    ]
    assert "Traceback" not in said.err


README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_exit_code_the_cli_names_is_in_its_table_once() -> None:
    named = {name: value for name, value in vars(exits).items() if name.startswith("EXIT_") and isinstance(value, int)}
    codes = [code for code, _ in exits.EXIT_CODES]
    assert sorted(codes) == sorted(set(named.values())) == [0, 1, 2, 3, 130, 143]
    assert len(codes) == len(set(codes)) and all(meaning.strip() for _, meaning in exits.EXIT_CODES)


def test_the_readmes_table_of_exit_codes_is_the_clis() -> None:
    what = "table of exit codes differs from gradelib/commands/exits.py's EXIT_CODES"
    assert_readme_block(README, "exit-codes", exits.exit_codes_table(), what, "tests/unit/test_cli_exits.py")
