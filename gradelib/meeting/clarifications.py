"""Rubric clarifications: what a calibration meeting agreed, kept beside the rubric file as examples of a tier.

A resolution the meeting wants every later reviewer to know ("a key persisted only after
the request is acceptable, not strong") is promoted to a clarification: the line, the
tier (or points) it exemplifies, the note, and the submission it came from. They live in
`clarifications.toml` beside the rubric file they clarify, so they travel with the rubric
into the next cohort; the scoring panel shows them next to their line, and `gradelib
rubric` lists them. The file is only ever appended to (rewritten whole, atomically).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from gradelib.atomicfile import write_text
from gradelib.errors import RecordRefused, RubricError
from gradelib.takehomes.rubric import Rubric

CLARIFICATIONS_FILE = "clarifications.toml"
HEADER = (
    "# Rubric clarifications from calibration meetings (`gradelib clarify`): examples of a tier, shown\n"
    "# in the scoring panel next to their line. Append-only: add with the command, do not edit by hand.\n"
)


@dataclass(frozen=True)
class Clarification:
    """One example of a tier on one line, agreed by a calibration meeting."""

    uid: str  # the resolution it was promoted from (promoting it again adds nothing)
    takehome: str
    line_id: str
    value: str  # the tier (or points) the example shows
    note: str
    example: str  # the anchor submission, by its blind label
    report: str  # where that submission's report was, "" when unknown
    by: str
    at: str


def clarifications_path(rubric: Rubric) -> Path:
    """The clarifications file of a rubric: beside its file."""
    return Path(rubric.source).parent / CLARIFICATIONS_FILE


def load_clarifications(rubric: Rubric) -> dict[str, tuple[Clarification, ...]]:
    """line_id -> its clarifications, oldest first; none when the file is missing. RubricError when unreadable."""
    path = clarifications_path(rubric)
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RubricError(str(path), f"cannot read the clarifications: {exc}") from exc
    names = [f.name for f in fields(Clarification)]
    found: dict[str, list[Clarification]] = {}
    for index, item in enumerate(document.get("clarifications") or []):
        if not isinstance(item, dict) or any(not isinstance(item.get(name), str) for name in names):
            raise RubricError(str(path), f"clarification #{index + 1} needs text for {', '.join(names)}")
        if item["takehome"] == rubric.takehome:
            found.setdefault(item["line_id"], []).append(Clarification(**{name: item[name] for name in names}))
    return {line_id: tuple(items) for line_id, items in found.items()}


def add_clarification(rubric: Rubric, clarification: Clarification) -> bool:
    """Append a clarification to the rubric's file; False when this resolution is there already."""
    if clarification.line_id not in rubric.line_ids:
        raise RecordRefused(f"{rubric.takehome} has no line {clarification.line_id!r} to clarify")
    current = load_clarifications(rubric)
    every = [item for items in current.values() for item in items]
    if any(item.uid == clarification.uid for item in every):
        return False
    path = clarifications_path(rubric)
    text = HEADER + "".join(_entry(item) for item in sorted([*every, clarification], key=lambda c: c.at))
    try:
        write_text(path, text)
    except OSError as exc:
        raise RecordRefused(
            f"cannot write {path}: {exc.strerror or exc}; keep the rubric somewhere writable and pass --rubric"
        ) from exc
    return True


def _entry(clarification: Clarification) -> str:
    values: Mapping[str, str] = asdict(clarification)
    return "\n[[clarifications]]\n" + "".join(f"{key} = {_toml_string(value)}\n" for key, value in values.items())


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, and DEL must be escaped too."""
    return json.dumps(text).replace("\x7f", "\\u007f")
