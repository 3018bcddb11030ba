"""Bad input is refused up front: a path that is not there, or a folder with no submission, gets one line and a
non-zero exit before any gradebook or report is made (no sandbox is needed to see it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib import cli


@pytest.mark.parametrize("given", ["missing", "empty"])
def test_a_missing_or_empty_path_is_refused_before_anything_is_made(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cohort"
    if given == "empty":
        (path / "notes").mkdir(parents=True)
        (path / "README.md").write_text("the cohort, soon")
    assert cli.main(["grade", str(path), "--reports", str(tmp_path / "reports")]) == 2
    (said,) = capsys.readouterr().err.strip().splitlines()
    assert said.startswith(f"gradelib: {path}: ") and "nothing graded" in said
    assert not (tmp_path / "reports").exists()
