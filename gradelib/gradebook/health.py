"""Whether a gradebook is whole, checked before any command uses it: read-only, `PRAGMA quick_check`, then
every page of the tables the command reads.

A damaged gradebook is never written: not a journal mode, not a probe, not a backup of it. Every
command that opens one refuses with the same line (the damage, the newest good backup and the
`gradelib restore` command that puts it back), before it makes or changes anything.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from gradelib.errors import GradebookDamaged, GradebookError
from gradelib.gradebook import backup as copies
from gradelib.gradebook.store import TABLES, Gradebook, require
from gradelib.safetext import one_line

CODE_TABLES = ("code_sources", "code_files", "similar_views")  # the similarity check's: large, read by few
READ_TABLES = tuple(table for table in TABLES if table not in CODE_TABLES)  # what most commands read
DAMAGE_SHOWN = 300  # characters of SQLite's own account of the damage


def damage(path: Path, tables: Sequence[str] = READ_TABLES) -> str | None:
    """What is wrong with the gradebook's file (one line), or None when it is whole: read-only, nothing written.

    GradebookError for what is not damage (a file that cannot be opened, a lock that does not let go).
    """
    try:
        with contextlib.closing(sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True)) as conn:
            rows = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
            if rows != ["ok"]:
                return one_line("; ".join(rows), DAMAGE_SHOWN)
            there = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for table in tables:  # every page of every row, overflow pages included
                if table in there:
                    for _ in conn.execute(f"SELECT * FROM {table}"):  # noqa: S608 - the kit's own table names
                        pass
    except sqlite3.Error as exc:
        if copies.is_damage(exc):
            return one_line(str(exc), DAMAGE_SHOWN)
        raise GradebookError(str(path), f"cannot read it: {exc}") from exc
    return None


def check(path: Path, tables: Sequence[str] = READ_TABLES) -> Path:
    """The gradebook's path when its file is whole; else GradebookDamaged, with the one line every command says."""
    found = damage(path, tables)
    if found is not None:
        raise GradebookDamaged(str(path), found, copies.advice(Path(path)))
    return Path(path)


def open_checked(path: Path | str, *, write: bool = False, tables: Sequence[str] = READ_TABLES) -> Gradebook:
    """The gradebook at `path`, there already (GradebookMissing) and whole (GradebookDamaged), opened read-only
    unless the command writes to it."""
    return Gradebook(check(require(path), tables), readonly=not write)
