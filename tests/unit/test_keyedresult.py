"""The keyed result line: a run's secret key handed to the driver in a file, and only its line trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradelib.takehome import KEY_FILE, RESULT_MARKER, parse_result, result_key, without_result


def test_a_key_is_in_the_copy_during_the_run_only_and_each_run_has_its_own(tmp_path: Path) -> None:
    with result_key(tmp_path) as key, result_key(tmp_path / "..") as other:
        assert key.file == tmp_path / KEY_FILE and key.file.read_text() == key.key
        assert len(key.key) == 32 and key.key != other.key
    assert not key.file.exists()
    with pytest.raises(RuntimeError), result_key(tmp_path) as key:
        raise RuntimeError("the run failed")
    assert not key.file.exists()  # gone whatever became of the run


def test_only_the_last_line_with_this_runs_key_is_the_result(tmp_path: Path) -> None:
    with result_key(tmp_path) as key:
        stdout = (
            f'{RESULT_MARKER}{key.key} {{"n": 1}}\n{RESULT_MARKER}forged {{"n": 2}}\ncandidate output\n'
            f'{RESULT_MARKER}{key.key} {{"n": 3}}\n'
        )
    assert key.parse(stdout) == {"n": 3} == parse_result(stdout, key.key)
    assert parse_result(stdout, "") is None
    assert without_result(stdout) == "candidate output"
