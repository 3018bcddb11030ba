"""A gradebook's backups: taken whole, the last few kept, named when the gradebook is damaged, restored."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gradelib.errors import GradebookError
from gradelib.gradebook import Gradebook, backup

REPLAY = "replay"


def _scored(path: Path, value: str) -> None:
    with Gradebook(path) as book:
        book.upsert_submission(REPLAY, "alice", "d-alice", "submissions/alice")
        book.add_score(REPLAY, "alice", "identical", "ana", value)


def _damage(path: Path) -> None:
    """Random bytes over every page but the first, from outside the kit (as a failing disk would)."""
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.seek(4096)
        handle.write(os.urandom(size - 4096))


def test_the_last_few_backups_are_kept_whole_beside_the_gradebook(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    _scored(path, "pass")
    with Gradebook(path) as book:
        taken = [book.backup() for _ in range(backup.KEEP + 2)]
    kept = backup.backups(path)
    assert kept == sorted(taken[-backup.KEEP :], reverse=True) and all(
        p.parent == tmp_path / backup.FOLDER for p in kept
    )
    assert all(backup.check(p) is None for p in kept)
    assert not list((tmp_path / backup.FOLDER).glob(".partial-*")), "no half-written backup left"


def test_a_damaged_gradebook_names_its_newest_good_backup_and_the_command_that_restores_it(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    _scored(path, "pass")
    with Gradebook(path) as book:
        good = book.backup()
        book.add_score(REPLAY, "alice", "offline", "ana", "fail")
    time.sleep(0.01)
    bad = backup.folder_for(path) / f"gradebook-{'9' * 8}T999999999999Z.sqlite"  # newer by name, and broken
    bad.write_bytes(b"not a database" * 100)
    _damage(path)
    with pytest.raises(GradebookError) as info, Gradebook(path) as book:
        book.scores()
    assert backup.is_damage(info.value.reason)
    assert f"the newest good backup is {good}" in str(info.value)
    assert f"`gradelib restore {good} --gradebook {path}`" in str(info.value)

    done = backup.restore(good, path)
    assert done.kept_damaged is not None and done.kept_damaged.is_file()
    with Gradebook(path) as book:
        assert [(s.line_id, s.value) for s in book.scores()] == [("identical", "pass")]


def test_no_backup_or_a_broken_one_is_said_and_never_restored(tmp_path: Path) -> None:
    path = tmp_path / "gradebook.sqlite"
    _scored(path, "pass")
    assert "no good backup" in backup.advice(path)
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"\0" * 8192)
    with pytest.raises(GradebookError, match="not a whole backup"):
        backup.restore(broken, path)
    with Gradebook(path) as book:
        assert len(book.scores()) == 1, "the gradebook was left as it was"
