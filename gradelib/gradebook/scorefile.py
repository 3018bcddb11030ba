"""A file of reviewer scores (JSON or CSV, by extension): what a reviewer hands the lead, and reads back.

`gradelib export FILE [--reviewer NAME] [--reveal]` writes exactly FILE: one row per
score entry (append-only history included), only that reviewer's when asked. Blind by
default: a submission is named by its blind label and its content digest, never by the
candidate's name (`--reveal` writes names). `gradelib import FILE` reads the same file
(and the whole-gradebook JSON of `export --all`), matching each row to a submission by
digest, else by name, else by blind label; entries already present (same uid) are skipped.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from gradelib import __version__
from gradelib.errors import GradebookError
from gradelib.gradebook import Gradebook, ScoreEntry, SubmissionRow, utc_iso, utc_now
from gradelib.gradebook.exchange import ImportResult, atomic_file, csv_cell, import_scores
from gradelib.gradebook.identity import label_for, lookup

Format = Literal["json", "csv"]
SCORES_KIND = "scores"
SCORES_SCHEMA = 1
COLUMNS = (
    "uid",
    "takehome",
    "submission",
    "digest",
    "line_id",
    "reviewer",
    "value",
    "comment",
    "created_at",
    "kit_value",
)
REQUIRED = ("uid", "takehome", "submission", "line_id", "reviewer", "value", "created_at")


def file_format(path: Path) -> Format:
    """JSON or CSV, from the file's extension; anything else is refused."""
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix == ".csv":
        return "csv"
    what = Path(path).suffix or "no extension"
    raise GradebookError(str(path), f"cannot tell the format from {what!r}; use .json or .csv")


def score_rows(gradebook: Gradebook, *, reviewer: str | None = None, reveal: bool = False) -> list[dict[str, Any]]:
    """Every score entry (only `reviewer`'s when given) as a row, oldest first, blind unless `reveal`."""
    with gradebook.snapshot():
        submissions = {(s.takehome, s.name): s for s in gradebook.submissions()}
        entries = gradebook.scores()
    rows = []
    for entry in entries:
        if reviewer is not None and entry.reviewer != reviewer:
            continue
        sub = submissions.get((entry.takehome, entry.submission))
        shown = entry.submission if sub is None else label_for(sub, reveal=reveal)
        rows.append(
            {
                "uid": entry.uid,
                "takehome": entry.takehome,
                "submission": shown,
                "digest": sub.digest if sub else "",
                "line_id": entry.line_id,
                "reviewer": entry.reviewer,
                "value": entry.value,
                "comment": entry.comment,
                "created_at": entry.created_at,
                "kit_value": entry.kit_value,
            }
        )
    return rows


def export_scores(gradebook: Gradebook, path: Path, *, reviewer: str | None = None, reveal: bool = False) -> Path:
    """Write the score rows to exactly `path` (JSON or CSV by its extension); returns `path`."""
    path = Path(path)
    chosen = file_format(path)
    rows = score_rows(gradebook, reviewer=reviewer, reveal=reveal)
    if chosen == "json":
        document = {
            "kind": SCORES_KIND,
            "schema": SCORES_SCHEMA,
            "kit": __version__,
            "exported_at": utc_now(),
            "gradebook": gradebook.id,  # whose blind labels these are
            "reviewer": reviewer,
            "blind": not reveal,
            "scores": rows,
        }
        with atomic_file(path) as out:
            json.dump(document, out, indent=2, default=str)
            out.write("\n")
        return path
    with atomic_file(path, newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(COLUMNS))
        writer.writeheader()
        for row in rows:
            writer.writerow({column: csv_cell(row.get(column)) for column in COLUMNS})
    return path


def needs_cohort(path: Path) -> bool:
    """Whether importing `path` needs a gradebook that holds the cohort already: a score file names its
    submissions; a whole-gradebook export (`export --all`) brings them, so it may start a new gradebook."""
    if file_format(path) != "json":
        return True
    try:
        return bool(_read_json(Path(path)).get("kind") == SCORES_KIND)
    except GradebookError:
        return True  # unreadable: the import itself says why


def import_file(gradebook: Gradebook, path: Path) -> ImportResult:
    """Merge a score file (JSON or CSV) or a whole-gradebook JSON export into `gradebook` (backed up first)."""
    path = Path(path)
    gradebook.backup()
    if file_format(path) == "json":
        data = _read_json(path)
        if data.get("kind") != SCORES_KIND:
            return import_scores(gradebook, path)  # a whole-gradebook export (`export --all`)
        rows = data.get("scores")
        if not isinstance(rows, list):
            raise GradebookError(str(path), 'not a score file (no "scores" list)')
    else:
        rows = _read_csv(path)
    entries = [_entry(gradebook, path, index, row) for index, row in enumerate(rows)]
    _, added, skipped = gradebook.merge([], entries)
    return ImportResult(added=added, skipped=skipped)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GradebookError(str(path), f"cannot read the export: {exc}") from exc
    if not isinstance(data, dict):
        raise GradebookError(str(path), "not a gradebook export (not a JSON object)")
    return data


def _read_csv(path: Path) -> list[dict[str, Any]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in REQUIRED if column not in (reader.fieldnames or [])]
            if missing:
                raise GradebookError(str(path), f"not a score file: no column(s) {', '.join(missing)}")
            return [dict(row) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise GradebookError(str(path), f"cannot read the export: {exc}") from exc


def _entry(gradebook: Gradebook, path: Path, index: int, row: Any) -> ScoreEntry:
    where = f"row {index + 1}"
    if not isinstance(row, Mapping):
        raise GradebookError(str(path), f"{where}: expected an object")
    values = {key: _text(path, where, row, key) for key in REQUIRED}
    try:
        created = utc_iso(values["created_at"])
    except ValueError as exc:
        raise GradebookError(str(path), f"{where}: created_at is not an ISO 8601 time") from exc
    sub = _submission(gradebook, values["takehome"], values["submission"], str(row.get("digest") or ""))
    if sub is None:
        raise GradebookError(
            str(path),
            f"{where}: no {values['takehome']} submission {values['submission']!r} in {gradebook.path}"
            " (import into a gradebook that has the cohort)",
        )
    kit_value = row.get("kit_value")
    return ScoreEntry(
        uid=values["uid"],
        takehome=sub.takehome,
        submission=sub.name,
        line_id=values["line_id"],
        reviewer=values["reviewer"],
        value=values["value"],
        comment=str(row.get("comment") or ""),
        created_at=created,
        kit_value=str(kit_value) if kit_value not in (None, "") else None,
    )


def _submission(gradebook: Gradebook, takehome: str, shown: str, digest: str) -> SubmissionRow | None:
    """The digest decides when it names one submission (blind numbers differ between gradebooks)."""
    candidates = [s for s in gradebook.submissions(takehome) if digest and s.digest == digest]
    if len(candidates) == 1:
        return candidates[0]
    return lookup(gradebook, takehome, shown)


def _text(path: Path, where: str, row: Mapping[str, Any], key: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise GradebookError(str(path), f"{where}: {key!r} must be non-empty text")
    return value
