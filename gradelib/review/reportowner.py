"""Which gradebook a reports folder belongs to, and which run each report in it shows.

A report is a view of one gradebook's run. Each executed notebook records, in its metadata, the
gradebook's id (stored in the gradebook, so a moved or renamed gradebook is still itself), the run
and the digest of what was graded; the folder records its gradebook and every report's run in
`.gradelib-reports.json`. A batch given another gradebook than the folder's refuses (a mistyped
`--gradebook` must not renumber a cohort's reports), unless told to move the folder on purpose;
"up to date" means the report on disk shows this gradebook's current run; `gradelib tables` and
`summary` touch only reports that do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gradelib.atomicfile import write_text

FOLDER_RECORD = ".gradelib-reports.json"
METADATA_KEY = "gradelib"  # the notebook metadata key a report's record sits under
MOVE_FLAG = "--move-reports"  # what `grade` takes to move a folder to another gradebook on purpose
REPORT_SUFFIXES = (".ipynb", ".html", ".json", ".views.json")


@dataclass(frozen=True)
class ReportRecord:
    """What one report shows: whose gradebook, which run, which content, under which label."""

    gradebook: str  # the gradebook's id
    run: int
    digest: str
    takehome: str
    label: str


@dataclass(frozen=True)
class FolderOwner:
    """The gradebook a reports folder belongs to: its id, and the path it was last graded with (a hint)."""

    gradebook: str
    path: str


def stamp(notebook: bytes, record: ReportRecord) -> bytes:
    """The executed notebook's bytes with its record in the metadata (nbformat's own layout kept)."""
    document = json.loads(notebook)
    document.setdefault("metadata", {})[METADATA_KEY] = asdict(record)
    return (json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def report_record(notebook: Path) -> ReportRecord | None:
    """The record a report notebook carries; None when it has none (an earlier kit's) or cannot be read."""
    try:
        found = json.loads(Path(notebook).read_bytes()).get("metadata", {}).get(METADATA_KEY)
        return ReportRecord(
            str(found["gradebook"]),
            int(found["run"]),
            str(found["digest"]),
            str(found["takehome"]),
            str(found["label"]),
        )
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def shows(notebook: Path, gradebook: str, run: int) -> bool:
    """Whether the report at `notebook` is there and shows exactly this gradebook's run."""
    record = report_record(notebook)
    return record is not None and record.gradebook == gradebook and record.run == run


def folder_owner(reports: Path) -> FolderOwner | None:
    """The gradebook the reports folder belongs to; None when no batch has recorded one."""
    try:
        found = json.loads((Path(reports) / FOLDER_RECORD).read_text(encoding="utf-8"))
        return FolderOwner(str(found["gradebook"]), str(found.get("gradebook_path", "")))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _read_reports(reports: Path) -> dict[str, Any]:
    try:
        found = json.loads((Path(reports) / FOLDER_RECORD).read_text(encoding="utf-8")).get("reports")
    except (OSError, ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}


def record_folder(
    reports: Path, gradebook: str, gradebook_path: Path, written: Iterable[tuple[str, ReportRecord]] = ()
) -> None:
    """Record the folder as this gradebook's, with the reports just written (`stem` relative to the folder)."""
    owner = folder_owner(reports)
    known = _read_reports(reports) if owner is not None and owner.gradebook == gradebook else {}
    for stem, record in written:
        known[stem] = {"run": record.run, "digest": record.digest, "label": record.label}
    document = {
        "gradebook": gradebook,
        "gradebook_path": str(Path(gradebook_path).resolve()),
        "reports": dict(sorted(known.items())),
    }
    write_text(Path(reports) / FOLDER_RECORD, json.dumps(document, indent=1) + "\n")


def foreign_reports(reports: Path, gradebook: str) -> list[Path]:
    """Every report notebook under the folder that records another gradebook than `gradebook`."""
    found = []
    for notebook in sorted(Path(reports).glob("*/*.ipynb")):
        record = report_record(notebook)
        if record is not None and record.gradebook != gradebook:
            found.append(notebook)
    return found


def remove_report(notebook: Path) -> None:
    """A report's files (notebook, HTML, JSON result, views) removed."""
    stem = notebook.name.removesuffix(".ipynb")
    for suffix in REPORT_SUFFIXES:
        (notebook.parent / f"{stem}{suffix}").unlink(missing_ok=True)
