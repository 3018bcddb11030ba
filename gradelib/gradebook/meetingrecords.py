"""What a calibration meeting records: resolutions (the agreed value of a line) and decisions (one per candidate).

Both are append-only, like reviewer scores: the database refuses to rewrite or delete a row,
and a later record for the same line (or candidate) supersedes an earlier one when read.
The tables are additive (a kit that does not know them ignores them), so the schema
version stays. The gradebook keeps them (its schema includes `SCHEMA`); the meeting package, above
the cohort it reads, writes and reads them through the gradebook.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import astuple, dataclass

SCHEMA: tuple[str, ...] = (
    """CREATE TABLE IF NOT EXISTS resolutions (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        submission_id INTEGER NOT NULL REFERENCES submissions (id),
        line_id TEXT NOT NULL,
        value TEXT NOT NULL,
        reason TEXT NOT NULL,
        resolved_by TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS resolutions_by_submission ON resolutions (submission_id, created_at, id)",
    """CREATE TABLE IF NOT EXISTS decisions (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        submission_id INTEGER NOT NULL REFERENCES submissions (id),
        decision TEXT NOT NULL,
        reason TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS decisions_by_submission ON decisions (submission_id, created_at, id)",
    *(
        f"""CREATE TRIGGER IF NOT EXISTS {table}_no_{action} BEFORE {action.upper()} ON {table}
        BEGIN SELECT RAISE(ABORT, 'the meeting''s {table} are append-only'); END"""
        for table in ("resolutions", "decisions")
        for action in ("update", "delete")
    ),
)


@dataclass(frozen=True)
class Resolution:
    """The value a calibration meeting agreed for one line of one submission; never changed once written."""

    uid: str
    takehome: str
    submission: str  # the candidate's name
    line_id: str
    value: str
    reason: str
    resolved_by: str
    created_at: str


@dataclass(frozen=True)
class Decision:
    """The hiring decision recorded for one candidate on one take-home; never changed once written."""

    uid: str
    takehome: str
    submission: str
    decision: str
    reason: str
    decided_by: str
    created_at: str


_RESOLUTION_SELECT = """
    SELECT r.uid, s.takehome, s.name, r.line_id, r.value, r.reason, r.resolved_by, r.created_at
    FROM resolutions AS r JOIN submissions AS s ON s.id = r.submission_id
    WHERE (? IS NULL OR s.takehome = ?) AND (? IS NULL OR s.name = ?)
    ORDER BY r.created_at, r.id"""
_DECISION_SELECT = """
    SELECT d.uid, s.takehome, s.name, d.decision, d.reason, d.decided_by, d.created_at
    FROM decisions AS d JOIN submissions AS s ON s.id = d.submission_id
    WHERE (? IS NULL OR s.takehome = ?) AND (? IS NULL OR s.name = ?)
    ORDER BY d.created_at, d.id"""
# Insert nothing when the submission is unknown or the uid is already there (an import read twice).
_INSERT_RESOLUTION = """
    INSERT INTO resolutions (uid, submission_id, line_id, value, reason, resolved_by, created_at)
    SELECT ?, s.id, ?, ?, ?, ?, ? FROM submissions AS s WHERE s.takehome = ? AND s.name = ?
    ON CONFLICT (uid) DO NOTHING"""
_INSERT_DECISION = """
    INSERT INTO decisions (uid, submission_id, decision, reason, decided_by, created_at)
    SELECT ?, s.id, ?, ?, ?, ? FROM submissions AS s WHERE s.takehome = ? AND s.name = ?
    ON CONFLICT (uid) DO NOTHING"""


def insert(conn: sqlite3.Connection, record: Resolution | Decision) -> bool:
    """Append one record (inside the caller's transaction); False when its uid is there or its submission is not."""
    values = astuple(record)
    sql = _INSERT_RESOLUTION if isinstance(record, Resolution) else _INSERT_DECISION
    return conn.execute(sql, (values[0], *values[3:], values[1], values[2])).rowcount > 0


def read_resolutions(conn: sqlite3.Connection, takehome: str | None, name: str | None) -> list[Resolution]:
    """Every resolution (of a take-home, of a submission), oldest first."""
    rows = conn.execute(_RESOLUTION_SELECT, (takehome, takehome, name, name)).fetchall()
    return [Resolution(*row) for row in rows]


def read_decisions(conn: sqlite3.Connection, takehome: str | None, name: str | None) -> list[Decision]:
    """Every decision (of a take-home, of a submission), oldest first."""
    rows = conn.execute(_DECISION_SELECT, (takehome, takehome, name, name)).fetchall()
    return [Decision(*row) for row in rows]


def latest_resolutions(records: Iterable[Resolution]) -> dict[tuple[str, str, str], Resolution]:
    """(takehome, name, line_id) -> the resolution in force: the latest one (records come oldest first)."""
    return {(r.takehome, r.submission, r.line_id): r for r in records}


def latest_decisions(records: Iterable[Decision]) -> dict[tuple[str, str], Decision]:
    """(takehome, name) -> the decision in force: the latest one (records come oldest first)."""
    return {(d.takehome, d.submission): d for d in records}
