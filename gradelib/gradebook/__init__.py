"""The gradebook: submissions, runs, check results and append-only reviewer scores (SQLite); export and import."""

from __future__ import annotations

from gradelib.gradebook.store import (
    DEFAULT_PATH,
    FINISHED_STATUSES,
    SCHEMA_VERSION,
    Gradebook,
    RunRow,
    ScoreEntry,
    SubmissionRow,
    line_record,
    require,
    utc_iso,
    utc_now,
)

__all__ = [
    "DEFAULT_PATH",
    "FINISHED_STATUSES",
    "SCHEMA_VERSION",
    "Gradebook",
    "RunRow",
    "ScoreEntry",
    "SubmissionRow",
    "line_record",
    "require",
    "utc_iso",
    "utc_now",
]
