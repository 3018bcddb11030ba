"""Earlier cohorts in the gradebook: submissions (folders, archives) or another gradebook's kept code, added
so that every later cohort is compared with them (`gradelib similarity add PATH...`)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradebookError, GradelibError, SubmissionError
from gradelib.gradebook import Gradebook
from gradelib.gradebook.health import CODE_TABLES, open_checked
from gradelib.intake import ingest
from gradelib.similarity.cohort import keep
from gradelib.similarity.handoutbase import handout_base

GRADEBOOK_SUFFIXES = (".sqlite", ".sqlite3", ".db")


@dataclass
class Added:
    """What `add_earlier` did: submissions kept, those kept already, and those it could not read."""

    added: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _from_gradebook(book: Gradebook, path: Path, takehome: str | None, done: Added) -> None:
    try:
        with open_checked(path, tables=CODE_TABLES) as other:
            sources = [source for source in other.code_sources(takehome) if not source.earlier]
            files = other.code_files([source.id for source in sources])
    except (GradebookError, sqlite3.Error) as exc:
        done.errors.append(f"{path}: {exc}")
        return
    for source in sources:
        earlier = dataclasses.replace(source, id=0, earlier=True, cohort=str(path))
        label = f"{source.takehome}/{source.name}"
        (done.added if book.add_code(earlier, files[source.id]) else done.known).append(label)


def _from_submission(book: Gradebook, path: Path, takehome: str | None, cohort: str, done: Added) -> None:
    try:
        with ingest.open_submission(path) as sub:
            chosen = takehome or takehomes.detect(sub.path)
            if chosen is None:
                raise GradelibError(f"cannot tell which take-home this answers (no {takehomes.markers_text()})")
            label = f"{chosen}/{sub.name}"
            kept = keep(book, chosen, sub.digest, sub.name, sub.path, handout_base(chosen), cohort=cohort)
            (done.added if kept else done.known).append(label)
    except (SubmissionError, GradelibError, OSError, ValueError, RecursionError) as exc:
        done.errors.append(f"{path}: {exc}")


def add_earlier(
    book: Gradebook, paths: Sequence[Path], *, takehome: str | None = None, cohort: str | None = None
) -> Added:
    """Keep the code of earlier cohorts' submissions under `paths` (folders of submissions, archives, or
    gradebooks of earlier cohorts) as earlier sources; `cohort` names them (default: each path given)."""
    done = Added()
    for path in paths:
        path = Path(path)
        if path.is_file() and path.suffix.lower() in GRADEBOOK_SUFFIXES:
            _from_gradebook(book, path, takehome, done)
            continue
        found = ingest.find_submissions(path, recognises=takehomes.recognises) if path.exists() else []
        if not found:
            done.errors.append(f"{path}: no submission found there")
        for submission in found:
            _from_submission(book, submission, takehome, cohort or str(path), done)
    return done
