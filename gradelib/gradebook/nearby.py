"""Gradebooks near a path where there is none: what a command that found no gradebook names for `--gradebook`.

Only real gradebooks are named (a SQLite file holding the kit's tables, read without a lock or a write), never a
guess from a file name; the search stays in the nearest folder that exists and two levels below it.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
SUFFIXES = (".sqlite", ".sqlite3", ".db")
KIT_TABLES = frozenset({"submissions", "runs", "lines", "scores"})  # what makes a SQLite file a gradebook
DEPTH = 2  # folders below the nearest existing one: `cohort/reports/gradebook.sqlite` from the folder above
MAX_ENTRIES = 5000  # a search in a big folder (a home) stops here: a suggestion must not cost seconds
SHOWN = 3


def is_gradebook(path: Path) -> bool:
    """Whether `path` is a SQLite file with the kit's tables (opened immutable: nothing written, no lock)."""
    try:
        with path.open("rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return False
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    except (OSError, sqlite3.Error, ValueError):
        return False
    try:
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return False
    finally:
        connection.close()
    return names >= KIT_TABLES


def _nearest_folder(path: Path) -> Path | None:
    """The nearest folder above `path` that exists; None at the file system's root (too far to be near)."""
    folder = path.parent
    while not folder.is_dir():
        if folder == folder.parent:
            return None
        folder = folder.parent
    return None if folder.resolve() == Path(folder.resolve().anchor) else folder


def _candidates(folder: Path) -> list[Path]:
    """SQLite-named files in `folder` and up to DEPTH folders below it, hidden folders and installs left out."""
    found: list[Path] = []
    seen = 0
    level = [folder]
    for depth in range(DEPTH + 1):
        below: list[Path] = []
        for current in level:
            try:
                entries = list(os.scandir(current))
            except OSError:
                continue
            for entry in sorted(entries, key=lambda e: e.name):
                seen += 1
                if seen > MAX_ENTRIES:
                    return found
                if entry.name.startswith(".") or entry.name in ("node_modules", "__pycache__"):
                    continue  # the gradebook's own backups are in `.gradebook-backups/`: not what to name
                if entry.is_file(follow_symlinks=False) and entry.name.endswith(SUFFIXES):
                    found.append(Path(entry.path))
                elif depth < DEPTH and entry.is_dir(follow_symlinks=False):
                    below.append(Path(entry.path))
        level = below
    return found


def nearby_gradebooks(missing: Path | str) -> list[Path]:
    """The gradebooks near `missing` (a path where there is none), newest first, as the user would type them."""
    path = Path(missing)
    folder = _nearest_folder(path)
    if folder is None:
        return []
    books = [candidate for candidate in _candidates(folder) if is_gradebook(candidate)]
    books.sort(key=lambda book: (-book.stat().st_mtime, str(book)))
    return books


def suggestion(missing: Path | str) -> str:
    """What to add to "no gradebook at PATH": how to name another, and the gradebooks near it (if any)."""
    books = nearby_gradebooks(missing)
    hint = "or name the one it was graded into with --gradebook PATH"
    if not books:
        return hint
    shown = ", ".join(str(book) for book in books[:SHOWN])
    more = f" and {len(books) - SHOWN} more" if len(books) > SHOWN else ""
    return f"{hint}; gradebooks near it: {shown}{more}"
