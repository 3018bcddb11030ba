"""Rubric clarifications as a reviewer reads them beside the rubric: the team's, from its gradebook, and a rubric
copy's own file.

A resolution the meeting wants every later reviewer to know ("a key persisted only after
the request is acceptable, not strong") is promoted to a clarification: the line, the
tier (or points) it exemplifies, the note, and the submission it came from. The team's
gradebook keeps them (`gradebook/clarified.py`), exported and pooled with the scores; the
scoring panel shows them next to their line, and `gradelib rubric` lists them. A team's own
rubric copy (`--rubric FILE`) may carry a `clarifications.toml` beside it, from an earlier
kit or written by hand: it is read, never written. Nothing is written beside the packaged
rubric, inside the installed kit.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path

from gradelib.errors import RubricError
from gradelib.gradebook import Gradebook
from gradelib.gradebook.clarified import Clarification
from gradelib.takehomes.rubric import Rubric

__all__ = ["CLARIFICATIONS_FILE", "Clarification", "clarifications_path", "load_clarifications"]

CLARIFICATIONS_FILE = "clarifications.toml"
_FILE_FIELDS = tuple(f.name for f in fields(Clarification) if f.name != "submission")


def clarifications_path(rubric: Rubric) -> Path:
    """A rubric file's own clarifications file (read only): beside it."""
    return Path(rubric.source).parent / CLARIFICATIONS_FILE


def load_clarifications(rubric: Rubric, book: Gradebook | None = None) -> dict[str, tuple[Clarification, ...]]:
    """line_id -> its clarifications, oldest first: the rubric file's own, then the gradebook's (`book`).

    RubricError when the rubric's own file is unreadable; none from it when it is missing.
    """
    every = [*_from_file(rubric), *(book.clarifications(rubric.takehome) if book is not None else ())]
    found: dict[str, list[Clarification]] = {}
    seen: set[str] = set()
    for item in sorted(every, key=lambda c: c.at):
        if item.uid not in seen and item.line_id in rubric.line_ids:
            seen.add(item.uid)
            found.setdefault(item.line_id, []).append(item)
    return {line_id: tuple(items) for line_id, items in found.items()}


def _from_file(rubric: Rubric) -> list[Clarification]:
    path = clarifications_path(rubric)
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RubricError(str(path), f"cannot read the clarifications: {exc}") from exc
    found = []
    for index, item in enumerate(document.get("clarifications") or []):
        if not isinstance(item, dict) or any(not isinstance(item.get(name), str) for name in _FILE_FIELDS):
            raise RubricError(str(path), f"clarification #{index + 1} needs text for {', '.join(_FILE_FIELDS)}")
        if item["takehome"] == rubric.takehome:
            found.append(Clarification(**{name: item[name] for name in _FILE_FIELDS}))
    return found
