"""What the similarity check keeps of every submission it has read: its own files' text and fingerprints (so
later cohorts are compared with it without its folder), and the similar-submissions view a report shows.

The tables are additive (a kit that does not know them ignores them), so the schema version stays. The
gradebook stores fingerprints as plain integers; `gradelib.similarity` computes and compares them.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS code_sources (
        id INTEGER PRIMARY KEY,
        takehome TEXT NOT NULL,
        digest TEXT NOT NULL,
        name TEXT NOT NULL,
        earlier INTEGER NOT NULL,
        cohort TEXT NOT NULL,
        skipped TEXT NOT NULL,
        added_at TEXT NOT NULL,
        scheme TEXT NOT NULL DEFAULT '',
        UNIQUE (takehome, digest))""",
    """CREATE TABLE IF NOT EXISTS code_files (
        source_id INTEGER NOT NULL REFERENCES code_sources (id),
        number INTEGER NOT NULL,
        path TEXT NOT NULL,
        text BLOB NOT NULL,
        marks BLOB NOT NULL,
        PRIMARY KEY (source_id, number))""",
    """CREATE TABLE IF NOT EXISTS similar_views (
        takehome TEXT NOT NULL,
        name TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (takehome, name))""",
)
_MARK = struct.Struct("<qii")  # hash, first line, last line


@dataclass(frozen=True)
class CodeSource:
    """A submission whose code the gradebook keeps: graded here, or added from an earlier cohort."""

    id: int
    takehome: str
    digest: str
    name: str
    earlier: bool
    cohort: str  # where it came from: "graded here", or the path it was added from
    skipped: tuple[tuple[str, str], ...]  # (path, reason) of every file left out
    added_at: str
    scheme: str = ""  # how its fingerprints were made: those of another scheme are made again from its text


@dataclass(frozen=True)
class StoredFile:
    """One compared file: its path, its text and its fingerprints as (hash, first line, last line)."""

    path: str
    text: str
    marks: tuple[tuple[int, int, int], ...]


def _source(row: sqlite3.Row) -> CodeSource:
    skipped = tuple((str(path), str(reason)) for path, reason in json.loads(row["skipped"]))
    return CodeSource(
        row["id"],
        row["takehome"],
        row["digest"],
        row["name"],
        bool(row["earlier"]),
        row["cohort"],
        skipped,
        row["added_at"],
        row["scheme"],
    )


def pack(marks: Sequence[tuple[int, int, int]]) -> bytes:
    """Fingerprints as bytes (16 per fingerprint)."""
    return b"".join(_MARK.pack(*mark) for mark in marks)


def unpack(data: bytes) -> tuple[tuple[int, int, int], ...]:
    """The fingerprints `pack` wrote."""
    return tuple(_MARK.iter_unpack(data))


def insert_source(conn: sqlite3.Connection, source: CodeSource, files: Sequence[StoredFile]) -> bool:
    """Store a submission's code once per (take-home, digest); False when it was there already."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO code_sources (takehome, digest, name, earlier, cohort, skipped, added_at, scheme)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            source.takehome,
            source.digest,
            source.name,
            int(source.earlier),
            source.cohort,
            json.dumps([list(item) for item in source.skipped]),
            source.added_at,
            source.scheme,
        ),
    )
    if not cursor.rowcount:
        return False
    source_id = cursor.lastrowid
    conn.executemany(
        "INSERT INTO code_files (source_id, number, path, text, marks) VALUES (?, ?, ?, ?, ?)",
        [
            (source_id, number, file.path, zlib.compress(file.text.encode("utf-8")), pack(file.marks))
            for number, file in enumerate(files)
        ],
    )
    return True


def migrate(conn: sqlite3.Connection) -> None:
    """Add what a gradebook made by an earlier kit lacks (the fingerprint scheme of each source)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(code_sources)")}
    if "scheme" not in columns:
        conn.execute("ALTER TABLE code_sources ADD COLUMN scheme TEXT NOT NULL DEFAULT ''")


def replace_marks(
    conn: sqlite3.Connection, source_id: int, scheme: str, marks: Sequence[tuple[tuple[int, int, int], ...]]
) -> None:
    """Store a source's fingerprints made again (one tuple per file, in their order) under `scheme`."""
    conn.executemany(
        "UPDATE code_files SET marks = ? WHERE source_id = ? AND number = ?",
        [(pack(file_marks), source_id, number) for number, file_marks in enumerate(marks)],
    )
    conn.execute("UPDATE code_sources SET scheme = ? WHERE id = ?", (scheme, source_id))


def select_sources(conn: sqlite3.Connection, takehome: str | None = None) -> list[CodeSource]:
    """Every stored submission's code record, oldest first (of one take-home, when given)."""
    where, params = ("WHERE takehome = ?", (takehome,)) if takehome else ("", ())
    return [_source(row) for row in conn.execute(f"SELECT * FROM code_sources {where} ORDER BY id", params)]  # noqa: S608


def source_exists(conn: sqlite3.Connection, takehome: str, digest: str) -> bool:
    """Whether the code of this digest is kept."""
    query = "SELECT 1 FROM code_sources WHERE takehome = ? AND digest = ?"
    return conn.execute(query, (takehome, digest)).fetchone() is not None


def select_files(conn: sqlite3.Connection, source_ids: Sequence[int]) -> dict[int, list[StoredFile]]:
    """The stored files of these sources, in their order."""
    found: dict[int, list[StoredFile]] = {source_id: [] for source_id in source_ids}
    for start in range(0, len(source_ids), 500):
        chunk = list(source_ids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        for row in conn.execute(
            f"SELECT * FROM code_files WHERE source_id IN ({marks}) ORDER BY source_id, number",  # noqa: S608
            chunk,
        ):
            text = zlib.decompress(row["text"]).decode("utf-8")
            found[row["source_id"]].append(StoredFile(row["path"], text, unpack(row["marks"])))
    return found


def select_hashes(conn: sqlite3.Connection, takehome: str) -> dict[int, frozenset[int]]:
    """Every stored source's distinct fingerprints, by source id (what the inverted index is built from)."""
    found: dict[int, set[int]] = {source.id: set() for source in select_sources(conn, takehome)}
    rows = conn.execute(
        "SELECT f.source_id, f.marks FROM code_files f JOIN code_sources s ON s.id = f.source_id WHERE s.takehome = ?",
        (takehome,),
    )
    for row in rows:
        found[row["source_id"]].update(mark[0] for mark in _MARK.iter_unpack(row["marks"]))
    return {source_id: frozenset(values) for source_id, values in found.items()}


def put_view(conn: sqlite3.Connection, takehome: str, name: str, payload: str) -> None:
    """Store what a submission's report shows under "similar submissions" (replacing the last batch's)."""
    conn.execute(
        "INSERT INTO similar_views (takehome, name, payload) VALUES (?, ?, ?)"
        " ON CONFLICT (takehome, name) DO UPDATE SET payload = excluded.payload",
        (takehome, name, payload),
    )


def select_view(conn: sqlite3.Connection, takehome: str, name: str) -> str | None:
    """The stored similar-submissions view of one submission, or None when no batch computed one."""
    row = conn.execute("SELECT payload FROM similar_views WHERE takehome = ? AND name = ?", (takehome, name)).fetchone()
    return str(row["payload"]) if row else None
