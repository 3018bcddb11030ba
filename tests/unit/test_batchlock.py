"""One batch at a time on a reports folder and a gradebook; a lock dies with its batch."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from gradelib.batch.batchlock import held, lock_files
from gradelib.errors import BatchRunning


def test_a_second_batch_on_the_same_folder_or_gradebook_is_refused_naming_the_first(tmp_path: Path) -> None:
    reports, book = tmp_path / "reports", tmp_path / "reports" / "gradebook.sqlite"
    with held(reports, book):
        with pytest.raises(BatchRunning, match=r"pid \d+, started \d\d:\d\d UTC.*graded nothing"), held(reports, book):
            pass
        with pytest.raises(BatchRunning), held(tmp_path / "other", book):  # another folder, the same gradebook
            pass
        with held(tmp_path / "other", tmp_path / "other.sqlite"):  # nothing shared: fine
            pass
    with held(reports, book):  # let go when the batch ended
        pass


def test_a_batch_that_dies_lets_go_of_its_lock(tmp_path: Path) -> None:
    reports, book = tmp_path / "reports", tmp_path / "book.sqlite"
    hold = (
        "import sys, time; from pathlib import Path; from gradelib.batch.batchlock import held\n"
        "with held(Path(sys.argv[1]), Path(sys.argv[2])):\n    print('held', flush=True); time.sleep(60)\n"
    )
    argv = [sys.executable, "-c", hold, str(reports), str(book)]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None and child.stdout.readline().strip() == "held"
            with pytest.raises(BatchRunning, match=f"pid {child.pid}"), held(reports, book):
                pass
        finally:
            child.kill()
    time.sleep(0.1)
    with held(reports, book):
        pass
    assert all(path.exists() for path in lock_files(reports, book))


def test_a_folder_it_cannot_write_is_left_to_the_batchs_own_checks(tmp_path: Path) -> None:
    missing_parent = tmp_path / "file"
    missing_parent.write_text("not a folder")
    with held(missing_parent / "reports", tmp_path / "book.sqlite"):
        pass
