"""Rubric clarifications the gradebook keeps: what a team's calibration meeting agreed, as examples of a tier.

A clarification belongs to the team that agreed it, so it lives in the team's gradebook (never
beside the installed kit's rubric, which an upgrade replaces and a read-only install refuses). It
is promoted from a resolution (its uid is the resolution's: promoting it again adds nothing), names
its example by submission, so the example is always shown by the gradebook's own blind label, and is
append-only like the scores. The table is additive (a kit that does not know it ignores it), so the
schema version stays.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

TABLE = "clarifications"
SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS clarifications (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        submission_id INTEGER NOT NULL REFERENCES submissions (id),
        line_id TEXT NOT NULL,
        value TEXT NOT NULL,
        note TEXT NOT NULL,
        report TEXT NOT NULL,
        clarified_by TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    *(
        f"""CREATE TRIGGER IF NOT EXISTS clarifications_no_{action} BEFORE {action.upper()} ON clarifications
        BEGIN SELECT RAISE(ABORT, 'the team''s clarifications are append-only'); END"""
        for action in ("update", "delete")
    ),
)


@dataclass(frozen=True)
class Clarification:
    """One example of a tier on one line, agreed by a calibration meeting."""

    uid: str  # the resolution it was promoted from (promoting it again adds nothing)
    takehome: str
    line_id: str
    value: str  # the tier (or points) the example shows
    note: str
    example: str  # the example submission, by its blind label in the gradebook that keeps it
    report: str  # where that submission's report was, "" when unknown
    by: str
    at: str
    submission: str = ""  # the example's name (how an export is matched on import); "" in a rubric's own file


_SELECT = """
    SELECT c.uid, s.takehome, c.line_id, c.value, c.note, s.blind_number, c.report, c.clarified_by,
           c.created_at, s.name
    FROM clarifications AS c JOIN submissions AS s ON s.id = c.submission_id
    WHERE ? IS NULL OR s.takehome = ?
    ORDER BY c.created_at, c.id"""
# Inserts nothing when the submission is unknown or the uid is already there (promoted, or imported, twice).
_INSERT = """
    INSERT INTO clarifications (uid, submission_id, line_id, value, note, report, clarified_by, created_at)
    SELECT ?, s.id, ?, ?, ?, ?, ?, ? FROM submissions AS s WHERE s.takehome = ? AND s.name = ?
    ON CONFLICT (uid) DO NOTHING"""


def insert(conn: sqlite3.Connection, item: Clarification) -> bool:
    """Append one clarification (inside the caller's transaction); False when its uid or no submission is there."""
    values = (item.uid, item.line_id, item.value, item.note, item.report, item.by, item.at)
    return conn.execute(_INSERT, (*values, item.takehome, item.submission)).rowcount > 0


def read(conn: sqlite3.Connection, takehome: str | None, label: str) -> list[Clarification]:
    """Every clarification (of a take-home), oldest first, its example shown by `label` (the gradebook's blind
    label, formatted with its number); none in a gradebook made before the table was."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)).fetchone() is None:
        return []
    found = []
    for uid, kind, line_id, value, note, number, report, by, at, name in conn.execute(_SELECT, (takehome, takehome)):
        example = label.format(number=number)
        found.append(Clarification(uid, kind, line_id, value, note, example, report, by, at, name))
    return found
