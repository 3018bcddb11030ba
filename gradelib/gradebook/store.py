"""The gradebook: submissions, grading runs, check results and append-only reviewer scores in SQLite."""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import astuple, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from gradelib.errors import CommentRequired, GradebookError, GradebookMissing, ScoreRejected
from gradelib.gradebook import backup as copies
from gradelib.gradebook import clarified, codeprints, nearby
from gradelib.gradebook import meetingrecords as meeting_records
from gradelib.gradebook.clarified import Clarification
from gradelib.gradebook.codeprints import CodeSource, StoredFile
from gradelib.gradebook.meetingrecords import Decision, Resolution
from gradelib.result import LineResult

DEFAULT_PATH = Path("reports/gradebook.sqlite")
SCHEMA_VERSION = 1
SCHEMA_VERSION_KEY = "schema_version"
GRADEBOOK_ID_KEY = "gradebook_id"  # who this gradebook is, whatever its path: what its reports folder records
LAST_WRITE_KEY = "last_batch_started"  # written when a batch opens the gradebook, to know it can be written
BUSY_TIMEOUT_MS = 5_000  # SQLite's own wait for a lock, per attempt
LOCK_ATTEMPTS = 8  # attempts on top of busy_timeout before giving up on a locked database
RETRY_SLEEP_S = 0.02  # first pause between attempts; doubles, with jitter, up to RETRY_SLEEP_MAX_S
RETRY_SLEEP_MAX_S = 0.5
RUN_STATUSES = ("running", "graded", "error")
FINISHED_STATUSES = ("graded", "error")
BLIND_LABEL = "Submission #{number}"
IMPORTED_ORIGIN = "imported"
_LOCKED_MESSAGES = ("database is locked", "database table is locked", "database schema is locked")

T = TypeVar("T")

SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS submissions (
        id INTEGER PRIMARY KEY,
        takehome TEXT NOT NULL,
        name TEXT NOT NULL,
        digest TEXT NOT NULL,
        origin TEXT NOT NULL,
        blind_number INTEGER NOT NULL,
        first_seen TEXT NOT NULL,
        UNIQUE (takehome, name),
        UNIQUE (takehome, blind_number))""",
    """CREATE TABLE IF NOT EXISTS runs (
        id INTEGER PRIMARY KEY,
        submission_id INTEGER NOT NULL REFERENCES submissions (id),
        kit_version TEXT NOT NULL,
        digest TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        seconds REAL,
        status TEXT NOT NULL CHECK (status IN ('running', 'graded', 'error')),
        error TEXT,
        notebook TEXT,
        html TEXT,
        facts TEXT NOT NULL DEFAULT '{}')""",
    "CREATE INDEX IF NOT EXISTS runs_by_submission ON runs (submission_id, id)",
    """CREATE TABLE IF NOT EXISTS lines (
        run_id INTEGER NOT NULL REFERENCES runs (id),
        position INTEGER NOT NULL,
        line_id TEXT NOT NULL,
        outcome TEXT NOT NULL,
        points REAL,
        max_points REAL,
        tier TEXT,
        message TEXT NOT NULL,
        evidence TEXT NOT NULL,
        PRIMARY KEY (run_id, position))""",
    """CREATE TABLE IF NOT EXISTS scores (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        submission_id INTEGER NOT NULL REFERENCES submissions (id),
        line_id TEXT NOT NULL,
        reviewer TEXT NOT NULL,
        value TEXT NOT NULL,
        comment TEXT NOT NULL,
        created_at TEXT NOT NULL,
        kit_value TEXT)""",
    "CREATE INDEX IF NOT EXISTS scores_by_submission ON scores (submission_id, created_at, id)",
    # Calibration anchors: submissions the lead asks every reviewer to score first. Additive: a kit
    # that does not know the table ignores it, so the schema version stays.
    """CREATE TABLE IF NOT EXISTS anchors (
        submission_id INTEGER PRIMARY KEY REFERENCES submissions (id),
        marked_at TEXT NOT NULL)""",
    # Reviewer scores record a hiring decision: the database itself refuses to rewrite or drop one.
    """CREATE TRIGGER IF NOT EXISTS scores_no_update BEFORE UPDATE ON scores
        BEGIN SELECT RAISE(ABORT, 'reviewer scores are append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS scores_no_delete BEFORE DELETE ON scores
        BEGIN SELECT RAISE(ABORT, 'reviewer scores are append-only'); END""",
    *meeting_records.SCHEMA,
    *clarified.SCHEMA,
    *codeprints.SCHEMA,
)
# Every table the schema makes: a gradebook read-only that lacks one was made by an earlier kit.
TABLES: tuple[str, ...] = tuple(
    statement.split("EXISTS", 1)[1].split()[0] for statement in SCHEMA if statement.startswith("CREATE TABLE")
)

# First sight of (takehome, name) takes the next blind number of that take-home; a later sight keeps it.
_INSERT_SUBMISSION = """
    INSERT INTO submissions (takehome, name, digest, origin, blind_number, first_seen)
    VALUES (?, ?, ?, ?, (SELECT COALESCE(MAX(blind_number), 0) + 1 FROM submissions WHERE takehome = ?), ?)
    ON CONFLICT (takehome, name) DO {on_conflict}"""
_SUBMISSION_COLUMNS = "id, takehome, name, digest, origin, blind_number, first_seen"
_RUN_COLUMNS = (
    "runs.id, runs.submission_id, runs.kit_version, runs.started_at, runs.finished_at, runs.seconds,"
    " runs.status, runs.error, runs.notebook, runs.html, runs.digest, runs.facts"
)
_LINE_COLUMNS = "run_id, position, line_id, outcome, points, max_points, tier, message, evidence"
_SCORE_SELECT = """
    SELECT sc.uid, s.takehome, s.name, sc.line_id, sc.reviewer, sc.value, sc.comment, sc.created_at, sc.kit_value
    FROM scores AS sc JOIN submissions AS s ON s.id = sc.submission_id"""
# Inserts nothing when the submission is unknown or the uid is already there.
_INSERT_SCORE = """
    INSERT INTO scores (uid, submission_id, line_id, reviewer, value, comment, created_at, kit_value)
    SELECT ?, s.id, ?, ?, ?, ?, ?, ? FROM submissions AS s WHERE s.takehome = ? AND s.name = ?
    ON CONFLICT (uid) DO NOTHING"""


@dataclass(frozen=True)
class SubmissionRow:
    """One submission as the gradebook knows it."""

    id: int
    takehome: str
    name: str
    digest: str
    origin: str
    blind_number: int
    first_seen: str

    @property
    def blind_label(self) -> str:
        """The name reviewers see in blind review, e.g. "Submission #3"."""
        return BLIND_LABEL.format(number=self.blind_number)


@dataclass(frozen=True)
class RunRow:
    """One grading run of one submission."""

    id: int
    submission_id: int
    kit_version: str
    started_at: str
    finished_at: str | None
    seconds: float | None
    status: str
    error: str | None
    notebook: str | None
    html: str | None
    digest: str
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreEntry:
    """One saved reviewer score; never changed once written."""

    uid: str
    takehome: str
    submission: str
    line_id: str
    reviewer: str
    value: str
    comment: str
    created_at: str
    kit_value: str | None


def utc_now() -> str:
    """Now as ISO 8601 UTC with microseconds, the gradebook's one timestamp format."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def utc_iso(text: str) -> str:
    """An ISO 8601 timestamp in the gradebook's format (naive times are taken as UTC); ValueError if unreadable."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def require(path: Path | str) -> Path:
    """The path of a gradebook that is there already, else GradebookMissing (naming the gradebooks near it):
    reading never creates one."""
    if not Path(path).is_file():
        raise GradebookMissing(str(path), nearby.suggestion(path))
    return Path(path)


def _same_value(a: str, b: str) -> bool:
    """Whether two score values agree ("3" and "3.0" do)."""
    if a.strip() == b.strip():
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    return any(message in str(exc) for message in _LOCKED_MESSAGES)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


# The SELECTs below list columns in field order, so a row builds its record positionally.
def _submission(row: sqlite3.Row) -> SubmissionRow:
    return SubmissionRow(*row)


def _run(row: sqlite3.Row) -> RunRow:
    values = list(row)
    values[-1] = json.loads(values[-1] or "{}")  # facts
    return RunRow(*values)


def _line(row: sqlite3.Row) -> LineResult:
    return LineResult(
        id=row["line_id"],
        outcome=row["outcome"],
        message=row["message"],
        evidence=json.loads(row["evidence"] or "{}"),
        points=row["points"],
        max_points=row["max_points"],
        tier=row["tier"],
        run_id=row["run_id"],
        position=row["position"],
    )


def line_record(line: LineResult) -> dict[str, Any]:
    """A stored line as its row of the `lines` table (the columns, in order; what an export writes)."""
    return {
        "run_id": line.run_id,
        "position": line.position,
        "line_id": line.id,
        "outcome": line.outcome,
        "points": line.points,
        "max_points": line.max_points,
        "tier": line.tier,
        "message": line.message,
        "evidence": dict(line.evidence),
    }


def _line_values(run_id: int, report: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """Rows for the `lines` table from the stable JSON shape of a report."""
    return [
        (run_id, position, str(line["id"]), str(line["outcome"]), _float(line.get("points")))
        + (_float(line.get("max_points")), line.get("tier"), str(line.get("message", "")))
        + (json.dumps(dict(line.get("evidence") or {}), default=str),)
        for position, line in enumerate(report.get("lines", ()))
    ]


def _required(fields: Mapping[str, str]) -> list[str]:
    """The fields' values stripped, in order; ScoreRejected naming the first blank one."""
    for what, text in fields.items():
        if not text.strip():
            raise ScoreRejected(f"a meeting record needs {what}")
    return [text.strip() for text in fields.values()]


def _insert_score(conn: sqlite3.Connection, entry: ScoreEntry) -> bool:
    values = (entry.uid, *astuple(entry)[3:], entry.takehome, entry.submission)
    return conn.execute(_INSERT_SCORE, values).rowcount > 0


class Gradebook:
    """One connection to a gradebook file; safe to share between threads, one per process."""

    def __init__(self, path: Path = DEFAULT_PATH, *, readonly: bool = False) -> None:
        """Open (creating if needed) the gradebook at path: WAL, busy timeout, foreign keys, schema.

        `readonly` opens a gradebook that is there for reading only: nothing is created or written, and
        a write is refused (only a gradebook an earlier kit made gets its missing tables first).
        """
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._connect()
        try:
            if readonly and not self._retry(lambda: self._check_schema(self._connection())):
                self.close()  # an earlier kit's gradebook: its new (empty) tables are made once, then read
                Gradebook(self.path).close()
                self._connect()
            elif not readonly:
                conn = self._connection()
                self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
                self._write(self._create_schema)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> None:
        try:
            if self.readonly:
                target = f"{self.path.absolute().as_uri()}?mode=ro"
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                target = str(self.path)
            self._conn = sqlite3.connect(
                target,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
                uri=self.readonly,
            )
        except (OSError, sqlite3.Error) as exc:
            raise GradebookError(str(self.path), f"cannot open: {exc}") from exc
        self._conn.row_factory = sqlite3.Row
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            self.close()
            raise GradebookError(str(self.path), self._why(exc)) from exc

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection; calling it twice is harmless."""
        with self._lock:
            try:
                if self._conn is not None:
                    self._conn.close()
            finally:
                self._conn = None

    # -- plumbing ---------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise GradebookError(str(self.path), "the gradebook is closed")
        return self._conn

    def _retry(self, attempt: Callable[[], T]) -> T:
        """Run attempt under the thread lock, again after a short sleep while another process holds the lock."""
        delay = RETRY_SLEEP_S
        with self._lock:
            for tries in range(1, LOCK_ATTEMPTS + 1):
                try:
                    return attempt()
                except sqlite3.OperationalError as exc:
                    if not _is_locked(exc):
                        raise GradebookError(str(self.path), self._why(exc)) from exc
                    if tries == LOCK_ATTEMPTS:
                        raise GradebookError(str(self.path), f"still locked after {tries} attempts: {exc}") from exc
                except sqlite3.DatabaseError as exc:
                    raise GradebookError(str(self.path), self._why(exc)) from exc
                time.sleep(delay * random.uniform(0.5, 1.5))  # noqa: S311 - retry jitter
                delay = min(delay * 2, RETRY_SLEEP_MAX_S)
        raise AssertionError("unreachable")

    def _why(self, exc: sqlite3.Error) -> str:
        """The error, and for a damaged file what to do about it (the newest good backup, the command)."""
        return f"{exc}: {copies.advice(self.path)}" if copies.is_damage(exc) else str(exc)

    def backup(self) -> Path:
        """A checked copy of the gradebook as it is now, kept beside it with the last few (see `backup`)."""
        with self._lock:
            return copies.take(self._connection(), self.path)

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run work in one write transaction, taken up front so two writers never deadlock on an upgrade."""
        conn = self._connection()

        def attempt() -> T:
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(conn)
                conn.execute("COMMIT")
                return result
            finally:
                if conn.in_transaction:
                    conn.rollback()

        return self._retry(attempt)

    def probe_write(self) -> None:
        """Write (and commit) one small row: a gradebook that cannot be written fails here, before a batch starts."""
        self._write(
            lambda conn: conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (LAST_WRITE_KEY, utc_now()),
            )
        )

    @contextmanager
    def snapshot(self) -> Iterator[Gradebook]:
        """Reads inside the block all see one consistent state, whatever other processes write meanwhile."""
        with self._lock:
            conn = self._connection()
            self._retry(lambda: conn.execute("BEGIN"))  # deferred: a WAL read snapshot, no write lock
            try:
                yield self
            finally:
                if conn.in_transaction:
                    conn.rollback()

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        conn = self._connection()
        return self._retry(lambda: conn.execute(sql, params).fetchall())

    def _check_schema(self, conn: sqlite3.Connection) -> bool:
        """GradebookError unless the file is a gradebook this kit can read; whether it has every table."""
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and self.readonly:
            raise GradebookError(str(self.path), "an empty file, not a gradebook")
        if tables and "meta" not in tables:
            raise GradebookError(str(self.path), "an SQLite database, but not a gradebook")
        if "meta" in tables:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_VERSION_KEY,)).fetchone()
            found = int(row[0]) if row and str(row[0]).isdigit() else None
            if found is None:
                raise GradebookError(str(self.path), "a gradebook without a schema version")
            if found > SCHEMA_VERSION:
                raise GradebookError(
                    str(self.path), f"schema {found} is newer than this kit's {SCHEMA_VERSION}; upgrade gradelib"
                )
        return set(TABLES) <= tables

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        self._check_schema(conn)
        for statement in SCHEMA:
            conn.execute(statement)
        codeprints.migrate(conn)
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (SCHEMA_VERSION_KEY, str(SCHEMA_VERSION)))
        conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (GRADEBOOK_ID_KEY, uuid.uuid4().hex))

    @property
    def id(self) -> str:
        """The gradebook's own id, made with it and kept whatever its path ("" in an earlier kit's, read-only)."""
        rows = self._read("SELECT value FROM meta WHERE key = ?", (GRADEBOOK_ID_KEY,))
        return str(rows[0][0]) if rows else ""

    # -- submissions ------------------------------------------------------

    def upsert_submission(self, takehome: str, name: str, digest: str, origin: str) -> SubmissionRow:
        """Record a submission; a known (takehome, name) keeps its id and blind number, digest and origin update."""
        sql = _INSERT_SUBMISSION.format(on_conflict="UPDATE SET digest = excluded.digest, origin = excluded.origin")

        def work(conn: sqlite3.Connection) -> SubmissionRow:
            conn.execute(sql, (takehome, name, digest, origin, takehome, utc_now()))
            row = conn.execute(
                f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE takehome = ? AND name = ?", (takehome, name)
            ).fetchone()
            return _submission(row)

        return self._write(work)

    def submission(self, takehome: str, name: str) -> SubmissionRow | None:
        """The submission by its real name, or None."""
        rows = self._read(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE takehome = ? AND name = ?", (takehome, name)
        )
        return _submission(rows[0]) if rows else None

    def submission_by_number(self, takehome: str, number: int) -> SubmissionRow | None:
        """The submission with this blind number, or None (labels are read by `identity`)."""
        rows = self._read(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE takehome = ? AND blind_number = ?",
            (takehome, number),
        )
        return _submission(rows[0]) if rows else None

    def submissions(self, takehome: str | None = None) -> list[SubmissionRow]:
        """Every submission (of one take-home), by take-home then blind number."""
        rows = self._read(
            f"SELECT {_SUBMISSION_COLUMNS} FROM submissions WHERE ? IS NULL OR takehome = ?"
            " ORDER BY takehome, blind_number",
            (takehome, takehome),
        )
        return [_submission(row) for row in rows]

    # -- calibration anchors ----------------------------------------------

    def set_anchor(self, takehome: str, name: str, anchored: bool = True) -> bool:
        """Mark (or unmark) a submission as a calibration anchor; whether anything changed."""

        def work(conn: sqlite3.Connection) -> bool:
            row = conn.execute(
                "SELECT id FROM submissions WHERE takehome = ? AND name = ?", (takehome, name)
            ).fetchone()
            if row is None:
                raise GradebookError(str(self.path), f"no {takehome} submission {name!r}")
            if anchored:
                sql = "INSERT OR IGNORE INTO anchors (submission_id, marked_at) VALUES (?, ?)"
                return conn.execute(sql, (row[0], utc_now())).rowcount > 0
            return conn.execute("DELETE FROM anchors WHERE submission_id = ?", (row[0],)).rowcount > 0

        return self._write(work)

    def anchors(self, takehome: str | None = None) -> list[SubmissionRow]:
        """The calibration anchors (of one take-home), by take-home then blind number."""
        columns = ", ".join(f"s.{column}" for column in _SUBMISSION_COLUMNS.split(", "))
        rows = self._read(
            f"SELECT {columns} FROM anchors JOIN submissions AS s ON s.id = anchors.submission_id"
            " WHERE ? IS NULL OR s.takehome = ? ORDER BY s.takehome, s.blind_number",
            (takehome, takehome),
        )
        return [_submission(row) for row in rows]

    # -- runs and automated results ---------------------------------------

    def start_run(self, submission_id: int, kit_version: str, digest: str) -> int:
        """Open a "running" run of a submission; returns its id."""

        def work(conn: sqlite3.Connection) -> int:
            if conn.execute("SELECT 1 FROM submissions WHERE id = ?", (submission_id,)).fetchone() is None:
                raise GradebookError(str(self.path), f"no submission with id {submission_id}")
            cursor = conn.execute(
                "INSERT INTO runs (submission_id, kit_version, digest, started_at, status) VALUES (?, ?, ?, ?, ?)",
                (submission_id, kit_version, digest, utc_now(), "running"),
            )
            return int(cursor.lastrowid or 0)

        return self._write(work)

    def finish_run(
        self,
        run_id: int,
        status: str,
        *,
        report: Mapping[str, Any] | None = None,
        error: str | None = None,
        notebook: str | None = None,
        html: str | None = None,
        seconds: float | None = None,
    ) -> None:
        """Close a running run as "graded" or "error", writing report["lines"] in the same transaction.

        `seconds` is the grading's own time when it ran elsewhere (default: since the run started).
        """
        if status not in FINISHED_STATUSES:
            raise ValueError(f"a run finishes as one of {FINISHED_STATUSES}, not {status!r}")
        lines = _line_values(run_id, report) if report is not None else []
        facts = json.dumps(dict((report or {}).get("facts") or {}), default=str)

        def work(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT started_at, status FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise GradebookError(str(self.path), f"no run with id {run_id}")
            if row["status"] != "running":
                raise GradebookError(str(self.path), f"run {run_id} already finished as {row['status']!r}")
            finished = utc_now()
            took = seconds
            if took is None:
                took = (datetime.fromisoformat(finished) - datetime.fromisoformat(row["started_at"])).total_seconds()
            conn.execute(
                "UPDATE runs SET finished_at = ?, seconds = ?, status = ?, error = ?, notebook = ?, html = ?, facts = ?"
                " WHERE id = ?",
                (finished, max(took, 0.0), status, error, notebook, html, facts, run_id),
            )
            conn.executemany(f"INSERT INTO lines ({_LINE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", lines)

        self._write(work)

    def drop_run(self, run_id: int) -> None:
        """Remove a run that is still "running" and never graded anything (the batch lost its cluster):
        a submission that never ran gets no error line. A finished run is never removed."""

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM runs WHERE id = ? AND status = 'running'", (run_id,))

        self._write(work)

    def latest_run(self, takehome: str, name: str, *, graded_only: bool = False) -> RunRow | None:
        """The submission's most recent run (only "graded" ones when asked), or None."""
        rows = self._read(
            f"SELECT {_RUN_COLUMNS} FROM runs JOIN submissions AS s ON s.id = runs.submission_id"
            " WHERE s.takehome = ? AND s.name = ? AND (? = 0 OR runs.status = 'graded')"
            " ORDER BY runs.id DESC LIMIT 1",
            (takehome, name, int(graded_only)),
        )
        return _run(rows[0]) if rows else None

    def runs(self, takehome: str | None = None) -> list[RunRow]:
        """Every run (of one take-home's submissions), oldest first."""
        rows = self._read(
            f"SELECT {_RUN_COLUMNS} FROM runs JOIN submissions AS s ON s.id = runs.submission_id"
            " WHERE ? IS NULL OR s.takehome = ? ORDER BY runs.id",
            (takehome, takehome),
        )
        return [_run(row) for row in rows]

    def up_to_date(self, takehome: str, name: str, digest: str) -> bool:
        """Whether the latest run graded exactly this content and finished cleanly (so a batch may skip it)."""
        run = self.latest_run(takehome, name)
        return run is not None and run.status == "graded" and run.digest == digest

    def lines(self, run_id: int) -> list[LineResult]:
        """The automated line results of one run, in report order."""
        rows = self._read(f"SELECT {_LINE_COLUMNS} FROM lines WHERE run_id = ? ORDER BY position", (run_id,))
        return [_line(row) for row in rows]

    def all_lines(self) -> list[LineResult]:
        """Every automated line result of every run, by run then position."""
        rows = self._read(f"SELECT {_LINE_COLUMNS} FROM lines ORDER BY run_id, position")
        return [_line(row) for row in rows]

    def latest_lines(self, takehome: str, name: str) -> list[LineResult]:
        """The line results of the submission's latest graded run; empty if it has none."""
        run = self.latest_run(takehome, name, graded_only=True)
        return self.lines(run.id) if run else []

    # -- reviewer scores --------------------------------------------------

    def add_score(
        self,
        takehome: str,
        name: str,
        line_id: str,
        reviewer: str,
        value: str,
        comment: str = "",
        *,
        kit_value: str | None = None,
    ) -> ScoreEntry:
        """Append one reviewer score; overriding the kit's value (kit_value) needs a comment."""
        reviewer, value, line_id, comment = reviewer.strip(), value.strip(), line_id.strip(), comment.strip()
        if not reviewer:
            raise ScoreRejected("a score needs a reviewer name")
        if not line_id:
            raise ScoreRejected("a score needs a rubric line")
        if not value:
            raise ScoreRejected(f"{line_id}: a score needs a value")
        if kit_value is not None and not _same_value(value, kit_value) and not comment:
            raise CommentRequired(line_id, kit_value, value)
        entry = ScoreEntry(uuid.uuid4().hex, takehome, name, line_id, reviewer, value, comment, utc_now(), kit_value)

        def work(conn: sqlite3.Connection) -> None:
            if not _insert_score(conn, entry):
                raise ScoreRejected(f"no submission {name!r} of take-home {takehome!r} in {self.path}")

        self._write(work)
        return entry

    def scores(self, takehome: str | None = None, name: str | None = None) -> list[ScoreEntry]:
        """Every score entry (of a take-home, of a submission), oldest first."""
        rows = self._read(
            f"{_SCORE_SELECT} WHERE (? IS NULL OR s.takehome = ?) AND (? IS NULL OR s.name = ?)"
            " ORDER BY sc.created_at, sc.id",
            (takehome, takehome, name, name),
        )
        return [ScoreEntry(*row) for row in rows]

    def current_scores(self, takehome: str, name: str) -> dict[tuple[str, str], ScoreEntry]:
        """(line_id, reviewer) -> that reviewer's latest entry on that line (latest saved, then latest written)."""
        current: dict[tuple[str, str], ScoreEntry] = {}
        for entry in self.scores(takehome, name):  # oldest first, so the last one seen wins
            current[(entry.line_id, entry.reviewer)] = entry
        return current

    def reviewers(self) -> list[str]:
        """Everyone who has saved a score, sorted."""
        return [row[0] for row in self._read("SELECT DISTINCT reviewer FROM scores ORDER BY reviewer")]

    # -- the calibration meeting's records ---------------------------------

    def add_resolution(
        self, takehome: str, name: str, line_id: str, value: str, reason: str, resolved_by: str
    ) -> Resolution:
        """Append the agreed value of one line of one submission (a reason and who resolved it are required)."""
        line_id, value, reason, resolved_by = _required(
            {"line": line_id, "value": value, "reason": reason, "who resolved it": resolved_by}
        )
        record = Resolution(uuid.uuid4().hex, takehome, name, line_id, value, reason, resolved_by, utc_now())
        self._append(record)
        return record

    def add_decision(self, takehome: str, name: str, decision: str, reason: str, decided_by: str) -> Decision:
        """Append the decision for one candidate (a reason and who decided are required)."""
        decision, reason, decided_by = _required({"decision": decision, "reason": reason, "who decided": decided_by})
        record = Decision(uuid.uuid4().hex, takehome, name, decision, reason, decided_by, utc_now())
        self._append(record)
        return record

    def _append(self, record: Resolution | Decision) -> None:
        def work(conn: sqlite3.Connection) -> None:
            if not meeting_records.insert(conn, record):
                raise ScoreRejected(f"no {record.takehome} submission {record.submission!r} in {self.path}")

        self._write(work)

    def resolutions(self, takehome: str | None = None, name: str | None = None) -> list[Resolution]:
        """Every resolution (of a take-home, of a submission), oldest first, superseded ones included."""
        conn = self._connection()
        return self._retry(lambda: meeting_records.read_resolutions(conn, takehome, name))

    def decisions(self, takehome: str | None = None, name: str | None = None) -> list[Decision]:
        """Every decision (of a take-home, of a submission), oldest first, superseded ones included."""
        conn = self._connection()
        return self._retry(lambda: meeting_records.read_decisions(conn, takehome, name))

    def add_clarification(self, item: Clarification) -> bool:
        """Append a clarification of the rubric; False when it is there already (same uid)."""

        def work(conn: sqlite3.Connection) -> bool:
            if (
                conn.execute(
                    "SELECT 1 FROM submissions WHERE takehome = ? AND name = ?", (item.takehome, item.submission)
                ).fetchone()
                is None
            ):
                raise ScoreRejected(f"no {item.takehome} submission {item.submission!r} in {self.path}")
            return clarified.insert(conn, item)

        return self._write(work)

    def clarifications(self, takehome: str | None = None) -> list[Clarification]:
        """Every clarification the team agreed (of a take-home), oldest first, examples by blind label."""
        return self._retry(lambda: clarified.read(self._connection(), takehome, BLIND_LABEL))

    def merge(
        self,
        submissions: Sequence[tuple[str, str, str, str]],
        entries: Sequence[ScoreEntry],
        records: Sequence[Resolution | Decision | Clarification] = (),
    ) -> tuple[int, int, int]:
        """Add missing (takehome, name, digest, origin) submissions, numbered here, and score entries and
        the team's records (resolutions, decisions, clarifications) with a new uid.

        One transaction; returns (submissions added, entries and records added, those already present).
        """
        sql = _INSERT_SUBMISSION.format(on_conflict="NOTHING")

        def work(conn: sqlite3.Connection) -> tuple[int, int, int]:
            new_submissions = added = 0
            named = [*entries, *records]
            wanted = list(submissions) + [
                (e.takehome, e.submission, "", IMPORTED_ORIGIN) for e in named if e.submission
            ]
            for takehome, name, digest, origin in wanted:
                cursor = conn.execute(sql, (takehome, name, digest, origin, takehome, utc_now()))
                new_submissions += cursor.rowcount
            for entry in entries:
                added += _insert_score(conn, entry)
            for record in records:
                added += (
                    clarified.insert(conn, record)
                    if isinstance(record, Clarification)
                    else meeting_records.insert(conn, record)
                )
            return new_submissions, added, len(named) - added

        return self._write(work)

    # -- code kept for the similarity check (gradebook/codeprints.py) ----

    def add_code(self, source: CodeSource, files: Sequence[StoredFile]) -> bool:
        """Keep a submission's code and fingerprints, once per (take-home, digest); False if kept already."""
        return self._write(lambda conn: codeprints.insert_source(conn, source, files))

    def code_sources(self, takehome: str | None = None) -> list[CodeSource]:
        """Every submission whose code is kept, oldest first."""
        return self._retry(lambda: codeprints.select_sources(self._connection(), takehome))

    def has_code(self, takehome: str, digest: str) -> bool:
        """Whether the code of this digest is kept."""
        return self._retry(lambda: codeprints.source_exists(self._connection(), takehome, digest))

    def replace_code_marks(
        self, source_id: int, scheme: str, marks: Sequence[tuple[tuple[int, int, int], ...]]
    ) -> None:
        """Store a kept source's fingerprints, made again under `scheme` from its kept text."""
        self._write(lambda conn: codeprints.replace_marks(conn, source_id, scheme, marks))

    def code_files(self, source_ids: Sequence[int]) -> dict[int, list[StoredFile]]:
        """The kept files of these sources."""
        return self._retry(lambda: codeprints.select_files(self._connection(), source_ids))

    def code_hashes(self, takehome: str) -> dict[int, frozenset[int]]:
        """Every kept source's distinct fingerprints, by source id."""
        return self._retry(lambda: codeprints.select_hashes(self._connection(), takehome))

    def put_similar_views(self, takehome: str, views: Mapping[str, str]) -> None:
        """Store each named submission's similar-submissions view (JSON), in one transaction."""

        def work(conn: sqlite3.Connection) -> None:
            for name, payload in views.items():
                codeprints.put_view(conn, takehome, name, payload)

        self._write(work)

    def similar_view(self, takehome: str, name: str) -> str | None:
        """The similar-submissions view the last batch stored for a submission (JSON), or None."""
        return self._retry(lambda: codeprints.select_view(self._connection(), takehome, name))

    def excerpt(self, takehome: str, name: str) -> bytes:
        """A new gradebook file's bytes holding only this submission (same id and number) and its scores.

        What a worker's notebook reads for its scoring panel; the driver's gradebook never leaves it.
        """
        row = self.submission(takehome, name)
        entries = self.scores(takehome, name)
        records: list[Resolution | Decision] = [*self.resolutions(takehome, name), *self.decisions(takehome, name)]
        similar = self.similar_view(takehome, name)
        with tempfile.TemporaryDirectory(prefix="gradelib-excerpt-") as folder:
            path = Path(folder) / "gradebook.sqlite"
            with Gradebook(path) as copy:

                def work(conn: sqlite3.Connection) -> None:
                    if row is not None:
                        conn.execute(
                            f"INSERT INTO submissions ({_SUBMISSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            astuple(row),
                        )
                    for entry in entries:
                        _insert_score(conn, entry)
                    for record in records:
                        meeting_records.insert(conn, record)
                    if similar is not None:
                        codeprints.put_view(conn, takehome, name, similar)

                copy._write(work)
                copy._retry(lambda: copy._connection().execute("PRAGMA journal_mode = DELETE").fetchone())
            return path.read_bytes()

    # -- bulk reads: one query for every submission ----------------------
    # What a per-submission loop over `latest_run`, `latest_lines` and `current_scores` reads, keyed
    # by submission id: the summary and the queue read a cohort of 1,000 in three queries, not 3,000.

    def latest_runs(self, *, graded_only: bool = False) -> dict[int, RunRow]:
        """Submission id -> its most recent run (only "graded" ones when asked): `latest_run` of every submission."""
        rows = self._read(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE runs.id IN"
            " (SELECT MAX(id) FROM runs WHERE ? = 0 OR status = 'graded' GROUP BY submission_id)"
            " ORDER BY runs.submission_id",
            (int(graded_only),),
        )
        return {run.submission_id: run for run in map(_run, rows)}

    def latest_lines_by_submission(self, *, evidence: bool = True) -> dict[int, list[LineResult]]:
        """Submission id -> the line results of its latest graded run (`latest_lines`); absent when it has none.

        Without `evidence` each result's evidence is left empty: reading (and repairing) every line's
        evidence is most of the time, and a queue needs only outcomes, points and tiers.
        """
        columns = [
            f"lines.{c}" if evidence or c != "evidence" else "'{}' AS evidence" for c in _LINE_COLUMNS.split(", ")
        ]
        rows = self._read(
            f"SELECT runs.submission_id, {', '.join(columns)}"
            " FROM lines JOIN runs ON runs.id = lines.run_id WHERE lines.run_id IN"
            " (SELECT MAX(id) FROM runs WHERE status = 'graded' GROUP BY submission_id)"
            " ORDER BY lines.run_id, lines.position"
        )
        found: dict[int, list[LineResult]] = {}
        for row in rows:
            found.setdefault(row["submission_id"], []).append(_line(row))
        return found

    def current_scores_by_submission(self) -> dict[int, dict[tuple[str, str], ScoreEntry]]:
        """Submission id -> (line_id, reviewer) -> current entry (`current_scores`); absent when it has no score."""
        rows = self._read(
            _SCORE_SELECT.replace("SELECT ", "SELECT sc.submission_id, ", 1)
            + " ORDER BY sc.submission_id, sc.created_at, sc.id"
        )
        found: dict[int, dict[tuple[str, str], ScoreEntry]] = {}
        for row in rows:  # oldest first within a submission, so the last one seen wins
            entry = ScoreEntry(*tuple(row)[1:])
            found.setdefault(row[0], {})[(entry.line_id, entry.reviewer)] = entry
        return found
