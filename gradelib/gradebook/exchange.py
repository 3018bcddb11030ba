"""Gradebook export (JSON or CSV) and import of another reviewer's JSON export, so reviewers can pool scores."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, Literal

from gradelib import __version__, atomicfile
from gradelib.errors import GradebookError
from gradelib.gradebook import Gradebook, ScoreEntry, line_record, utc_iso, utc_now
from gradelib.gradebook.clarified import Clarification
from gradelib.gradebook.meetingrecords import Decision, Resolution

EXPORT_SCHEMA = 1
Format = Literal["json", "csv"]
FORMATS: tuple[Format, ...] = ("json", "csv")
CSV_DEFAULT_STEM = "gradebook"  # file stem when a CSV export is pointed at a folder
CSV_TABLES = ("submissions", "runs", "lines", "scores", "resolutions", "decisions", "clarifications")
SUBMISSION_COLUMNS = ("id", "takehome", "name", "blind_number", "blind_label", "digest", "origin", "first_seen")
RUN_COLUMNS = (
    "id",
    "submission_id",
    "takehome",
    "submission",
    "kit_version",
    "digest",
    "status",
    "started_at",
    "finished_at",
    "seconds",
    "error",
    "notebook",
    "html",
    "facts",
)
LINE_COLUMNS = (
    "run_id",
    "takehome",
    "submission",
    "position",
    "line_id",
    "outcome",
    "points",
    "max_points",
    "tier",
    "message",
    "evidence",
)
SCORE_COLUMNS = (
    "uid",
    "takehome",
    "submission",
    "line_id",
    "reviewer",
    "value",
    "comment",
    "created_at",
    "kit_value",
)
RESOLUTION_COLUMNS = ("uid", "takehome", "submission", "line_id", "value", "reason", "resolved_by", "created_at")
DECISION_COLUMNS = ("uid", "takehome", "submission", "decision", "reason", "decided_by", "created_at")
CLARIFICATION_COLUMNS = ("uid", "takehome", "submission", "example", "line_id", "value", "note", "report", "by", "at")
_COLUMNS = {
    "submissions": SUBMISSION_COLUMNS,
    "runs": RUN_COLUMNS,
    "lines": LINE_COLUMNS,
    "scores": SCORE_COLUMNS,
    "resolutions": RESOLUTION_COLUMNS,
    "decisions": DECISION_COLUMNS,
    "clarifications": CLARIFICATION_COLUMNS,
}
_REQUIRED_SCORE_TEXT = ("uid", "takehome", "submission", "line_id", "reviewer", "value", "created_at")
_RECORDS: dict[str, type[Resolution] | type[Decision]] = {"resolutions": Resolution, "decisions": Decision}


@dataclass(frozen=True)
class ImportResult:
    """What an import changed: score entries added and already present, submissions added."""

    added: int
    skipped: int
    submissions_added: int = 0


def export_data(gradebook: Gradebook) -> dict[str, Any]:
    """The whole gradebook as one JSON-ready dict (the shape of a JSON export)."""
    with gradebook.snapshot():
        submissions, runs, lines, scores, resolutions, decisions, clarifications = (
            gradebook.submissions(),
            gradebook.runs(),
            gradebook.all_lines(),
            gradebook.scores(),
            gradebook.resolutions(),
            gradebook.decisions(),
            gradebook.clarifications(),
        )
    names = {sub.id: (sub.takehome, sub.name) for sub in submissions}
    run_names = {run.id: names[run.submission_id] for run in runs}
    return {
        "schema": EXPORT_SCHEMA,
        "kit": __version__,
        "exported_at": utc_now(),
        "gradebook": gradebook.id,  # whose labels and runs these are
        "submissions": [{column: getattr(sub, column) for column in SUBMISSION_COLUMNS} for sub in submissions],
        "runs": [
            {
                **asdict(run),
                "takehome": names[run.submission_id][0],
                "submission": names[run.submission_id][1],
            }
            for run in runs
        ],
        "lines": [
            {**row, "takehome": run_names[row["run_id"]][0], "submission": run_names[row["run_id"]][1]}
            for row in map(line_record, lines)
        ],
        "scores": [asdict(entry) for entry in scores],
        "resolutions": [asdict(record) for record in resolutions],
        "decisions": [asdict(record) for record in decisions],
        "clarifications": [asdict(record) for record in clarifications],
    }


def export(gradebook: Gradebook, path: Path, fmt: Format | None = None) -> Path:
    """Write the gradebook as JSON (returns the file) or CSV (returns the folder of the CSV files).

    fmt defaults to the suffix of path. A CSV export writes `<stem>-submissions.csv`, `<stem>-runs.csv`,
    `<stem>-lines.csv`, `<stem>-scores.csv`, `<stem>-resolutions.csv`, `<stem>-decisions.csv` and
    `<stem>-clarifications.csv` beside path (`out/pool.csv` -> `out/pool-scores.csv`, ...);
    when path is a folder or has no suffix, the files go inside it with the stem `gradebook`.
    Nested values (evidence, facts) are JSON text in CSV cells. Only JSON exports can be imported.
    """
    path = Path(path)
    chosen = fmt or _format_of(path)
    data = export_data(gradebook)
    if chosen == "json":
        with atomic_file(path) as out:
            json.dump(data, out, indent=2, default=str)
            out.write("\n")
        return path
    paths = csv_paths(path)
    for table, target in paths.items():
        _write_csv(target, _COLUMNS[table], data[table])
    return paths["scores"].parent


def csv_paths(path: Path) -> dict[str, Path]:
    """Where a CSV export to path puts each table (see `export`)."""
    path = Path(path)
    folder, stem = (path, CSV_DEFAULT_STEM) if path.is_dir() or not path.suffix else (path.parent, path.stem)
    return {table: folder / f"{stem}-{table}.csv" for table in CSV_TABLES}


def import_scores(gradebook: Gradebook, path: Path) -> ImportResult:
    """Merge a JSON export: missing submissions (numbered by this gradebook), score entries and the team's
    resolutions, decisions and clarifications with a new uid (a clarification's example is shown by this
    gradebook's label for it)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GradebookError(str(path), f"cannot read the export: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("scores"), list):
        raise GradebookError(str(path), 'not a gradebook JSON export (no "scores" list)')
    schema = data.get("schema")
    if not isinstance(schema, int) or schema > EXPORT_SCHEMA:
        raise GradebookError(str(path), f"export schema {schema!r} is not one this kit reads (<= {EXPORT_SCHEMA})")
    submissions = [_submission_seed(path, i, item) for i, item in enumerate(data.get("submissions") or [])]
    entries = [_score_entry(path, i, item) for i, item in enumerate(data["scores"])]
    records: list[Resolution | Decision | Clarification] = [
        _record(path, f"{table}[{i}]", kind, item)
        for table, kind in _RECORDS.items()
        for i, item in enumerate(data.get(table) or [])
    ]
    records += [_clarification(path, i, item) for i, item in enumerate(data.get("clarifications") or [])]
    new_submissions, added, skipped = gradebook.merge(submissions, entries, records)
    return ImportResult(added=added, skipped=skipped, submissions_added=new_submissions)


def _format_of(path: Path) -> Format:
    suffix = path.suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return "json" if suffix == "json" else "csv"
    if path.is_dir() or not suffix:
        return "csv"
    raise GradebookError(str(path), f"cannot tell the export format from {path.suffix!r}; use .json or .csv")


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell: nested values as JSON text, None as empty."""
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return "" if value is None else value


def _write_csv(path: Path, columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
    with atomic_file(path, newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({column: csv_cell(row.get(column)) for column in columns})


@contextmanager
def atomic_file(path: Path, newline: str | None = None) -> Iterator[IO[str]]:
    """A text file that appears at path only once fully written, so a reader never sees half an export."""
    with ExitStack() as stack:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            out = stack.enter_context(atomicfile.atomic_file(path, newline))
        except OSError as exc:
            raise GradebookError(str(path), f"cannot write the export: {exc}") from exc
        yield out


def _text(path: Path, where: str, item: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    value = item.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise GradebookError(str(path), f"{where}: {key!r} must be non-empty text")
    return value


def _checked(path: Path, where: str, item: Any) -> Mapping[str, Any]:
    if not isinstance(item, dict):
        raise GradebookError(str(path), f"{where}: expected an object")
    return item


def _submission_seed(path: Path, index: int, item: Any) -> tuple[str, str, str, str]:
    where = f"submissions[{index}]"
    item = _checked(path, where, item)
    return (
        _text(path, where, item, "takehome"),
        _text(path, where, item, "name"),
        _text(path, where, item, "digest", required=False),
        _text(path, where, item, "origin", required=False),
    )


def _score_entry(path: Path, index: int, item: Any) -> ScoreEntry:
    where = f"scores[{index}]"
    item = _checked(path, where, item)
    values = {key: _text(path, where, item, key) for key in _REQUIRED_SCORE_TEXT}
    try:
        values["created_at"] = utc_iso(values["created_at"])
    except ValueError as exc:
        raise GradebookError(str(path), f"{where}: created_at is not an ISO 8601 time") from exc
    kit_value = item.get("kit_value")
    if kit_value is not None and not isinstance(kit_value, str):
        raise GradebookError(str(path), f"{where}: 'kit_value' must be text or null")
    return ScoreEntry(comment=_text(path, where, item, "comment", required=False), kit_value=kit_value, **values)


def _record(path: Path, where: str, kind: type[Resolution] | type[Decision], item: Any) -> Resolution | Decision:
    """One resolution or decision of an export: every field non-empty text, the time ISO 8601."""
    item = _checked(path, where, item)
    names = RESOLUTION_COLUMNS if kind is Resolution else DECISION_COLUMNS
    values = {key: _text(path, where, item, key) for key in names}
    try:
        values["created_at"] = utc_iso(values["created_at"])
    except ValueError as exc:
        raise GradebookError(str(path), f"{where}: created_at is not an ISO 8601 time") from exc
    return kind(**values)


def _clarification(path: Path, index: int, item: Any) -> Clarification:
    """One clarification of an export: its example named by submission (the label is the importing gradebook's)."""
    where = f"clarifications[{index}]"
    item = _checked(path, where, item)
    required = ("uid", "takehome", "submission", "line_id", "value", "note", "by", "at")
    values = {key: _text(path, where, item, key) for key in required}
    try:
        values["at"] = utc_iso(values["at"])
    except ValueError as exc:
        raise GradebookError(str(path), f"{where}: at is not an ISO 8601 time") from exc
    return Clarification(example="", report=_text(path, where, item, "report", required=False), **values)
