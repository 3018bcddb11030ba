"""Backups of a gradebook, so a damaged one costs no reviewer's work: taken online (SQLite's backup API)
before each batch and each import, checked, the last few kept beside it; a damaged gradebook's error
names the newest good one and the command that restores it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from gradelib.errors import GradebookError

FOLDER = ".gradebook-backups"
KEEP = 5
DAMAGE = ("malformed", "not a database", "file is encrypted", "disk image")
STAMP = "%Y%m%dT%H%M%S%fZ"


@dataclass(frozen=True)
class Restored:
    """What a restore did: the backup it restored, and where the damaged file was kept."""

    backup: Path
    kept_damaged: Path | None


def folder_for(gradebook: Path) -> Path:
    """Where a gradebook's backups are kept: beside it."""
    return Path(gradebook).parent / FOLDER


def backups(gradebook: Path) -> list[Path]:
    """The gradebook's backups, newest first."""
    found = folder_for(gradebook).glob(f"{Path(gradebook).stem}-*.sqlite")
    return sorted(found, key=lambda path: path.name, reverse=True)


def take(connection: sqlite3.Connection, gradebook: Path, keep: int = KEEP) -> Path:
    """Back the open gradebook up (a consistent copy, whatever other processes write meanwhile), check the
    copy, and keep the newest `keep`; GradebookError when the copy cannot be written or is not whole."""
    folder = folder_for(gradebook)
    stamp = datetime.now(UTC).strftime(STAMP)
    target = folder / f"{Path(gradebook).stem}-{stamp}.sqlite"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        problem = _copy(connection, target)
    except (OSError, sqlite3.Error) as exc:
        raise GradebookError(str(gradebook), f"cannot back it up in {folder}: {exc}") from exc
    if problem:
        raise GradebookError(str(gradebook), f"its backup is not whole ({problem}): nothing replaced")
    for old in backups(gradebook)[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()
    return target


def check(path: Path) -> str | None:
    """None when the file is a whole SQLite database (`PRAGMA quick_check`), else what is wrong."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            rows = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.Error as exc:
        return str(exc)
    return None if rows == ["ok"] else "; ".join(map(str, rows))[:300]


def is_damage(error: BaseException | str) -> bool:
    """Whether an SQLite error says the file itself is damaged (not locked, not missing)."""
    text = str(error).lower()
    return any(word in text for word in DAMAGE)


def newest_good(gradebook: Path) -> Path | None:
    """The newest backup that is whole, or None."""
    return next((path for path in backups(gradebook) if check(path) is None), None)


def advice(gradebook: Path) -> str:
    """What a reviewer can do about a damaged gradebook: restore the newest good backup, with the command."""
    good = newest_good(gradebook)
    if good is None:
        return "it is damaged and there is no good backup of it beside it"
    return (
        f"it is damaged; the newest good backup is {good} (taken {_taken(good)}): restore it with "
        f"`gradelib restore {good} --gradebook {gradebook}`"
    )


def restore(backup: Path, gradebook: Path) -> Restored:
    """Put `backup` back as the gradebook; the file it replaces is kept beside it (`.damaged-<time>`).

    GradebookError when the backup is not whole, or the gradebook cannot be replaced."""
    backup, gradebook = Path(backup), Path(gradebook)
    problem = check(backup) if backup.is_file() else "no such file"
    if problem:
        raise GradebookError(str(backup), f"not a whole backup ({problem}): nothing restored")
    kept = None
    try:
        if gradebook.exists():
            kept = gradebook.with_name(f"{gradebook.name}.damaged-{datetime.now(UTC).strftime(STAMP)}")
            os.replace(gradebook, kept)
            for suffix in ("-wal", "-shm"):  # the damaged file's journal is not the backup's
                with contextlib.suppress(FileNotFoundError):
                    os.replace(f"{gradebook}{suffix}", f"{kept}{suffix}")
        with contextlib.closing(sqlite3.connect(f"file:{backup}?mode=ro", uri=True)) as source:
            problem = _copy(source, gradebook)
    except (OSError, sqlite3.Error) as exc:
        raise GradebookError(str(gradebook), f"cannot restore {backup}: {exc}") from exc
    if problem:
        raise GradebookError(str(gradebook), f"the copy of {backup} was not whole ({problem}); the old file is {kept}")
    return Restored(backup, kept)


def _copy(source: sqlite3.Connection, target: Path) -> str | None:
    """Copy the open database into `target` whole (SQLite's backup API into a temporary file beside it,
    checked, then renamed): None once it is there, or what is wrong with the copy (then nothing is)."""
    handle, partial = tempfile.mkstemp(prefix=".partial-", suffix=".sqlite", dir=target.parent)
    os.close(handle)
    try:
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE").fetchone()  # one file, no journal beside it
        problem = check(Path(partial))
        if problem is None:
            os.replace(partial, target)
        return problem
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)


def _taken(path: Path) -> str:
    stamp = path.stem.rsplit("-", 1)[-1]
    try:
        return datetime.strptime(stamp, STAMP).replace(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return "at an unknown time"
