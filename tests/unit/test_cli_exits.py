"""What `gradelib grade` exits with when the kit's own cluster fails it: one line, a status of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib import batch, cli
from gradelib.errors import SchedulerLost


def test_a_lost_scheduler_is_one_line_and_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def lose(*_args: object, **_kwargs: object) -> list[batch.GradeOutcome]:
        raise SchedulerLost("tcp://10.0.0.5:8786", 3)

    monkeypatch.setattr(batch, "grade", lose)
    code = cli.main(["grade", str(tmp_path), "--reports", str(tmp_path / "r"), "--scheduler", "tcp://10.0.0.5:8786"])
    said = capsys.readouterr()
    assert code == cli.EXIT_SCHEDULER_LOST == 3
    lines = [line for line in said.err.splitlines() if line.startswith("gradelib:")]
    assert lines == [
        "gradelib: the Dask scheduler at tcp://10.0.0.5:8786 went away mid-batch and did not come back:"
        " 3 submission(s) not graded (nothing recorded for them); start it again and run the same command:"
        " it grades only what is left"
    ]
    assert "Traceback" not in said.err
