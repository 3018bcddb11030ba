"""Plan a batch: find submissions, unpack each once into a staging folder, name it (blind or not)."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradelibError, NothingToGrade, SubmissionError
from gradelib.intake import ingest

STAGING = ".staging"


@dataclass(frozen=True)
class Staged:
    """One submission, ready to grade (or the reason it cannot be)."""

    origin: Path
    name: str  # the candidate's folder name
    takehome: str | None
    digest: str
    path: Path | None  # the unpacked copy the notebook reads; None when unreadable
    error: str | None = None


def _file_digest(path: Path) -> str:
    sha = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                sha.update(block)
    except OSError:
        sha.update(str(path).encode())
    return sha.hexdigest()


def stage(origin: Path, reports: Path, takehome: str | None = None) -> Staged:
    """Unpack and digest one submission into `reports/.staging/<takehome>/<digest>/<name>`."""
    name = ingest.submission_name(origin)
    try:
        with ingest.open_submission(origin) as sub:
            chosen = takehome or takehomes.detect(sub.path)
            if chosen is None:
                raise GradelibError(f"cannot tell which take-home this answers (no {takehomes.markers_text()})")
            # absolute: the kernel that reads it may start in any folder (JupyterLab, another cwd)
            target = staging_root(reports) / chosen / sub.digest[:16] / "submission"
            if not target.exists():
                partial = target.with_name("partial")
                shutil.rmtree(partial, ignore_errors=True)
                shutil.copytree(sub.path, partial, symlinks=True)
                partial.rename(target)  # an interrupted copy is never mistaken for a whole one
            return Staged(origin, sub.name, chosen, sub.digest, target)
    except (SubmissionError, GradelibError, OSError) as exc:
        return Staged(origin, name, takehome, _file_digest(origin), None, str(exc))
    except (RecursionError, ValueError, UnicodeError) as exc:  # a pathological tree must not stop the batch
        return Staged(origin, name, takehome, _file_digest(origin), None, f"cannot be read: {type(exc).__name__}")


def discover(paths: list[Path]) -> list[Path]:
    """Every submission under the given paths (folders of submissions are searched); NothingToGrade for a path
    that is not there or holds no submission, before anything is staged or recorded."""
    found: list[Path] = []
    for path in paths:
        if not Path(path).exists() and not Path(path).is_symlink():
            raise NothingToGrade(str(path), "no such file or folder")
        submissions = ingest.find_submissions(Path(path), recognises=takehomes.recognises)
        if not submissions:
            raise NothingToGrade(
                str(path), f"no submission in this folder (a submission holds {takehomes.markers_text()})"
            )
        found += submissions
    return found


def staging_root(reports: Path) -> Path:
    """Where a batch stages its submissions: gone once the batch has packed them (`remove_staged`)."""
    return Path(reports).resolve() / STAGING


def remove_staged(reports: Path) -> None:
    """The staged copies of the candidates' code removed: each grading got its own packed copy, and a
    report that runs the checks again reads the submission where it was given."""
    shutil.rmtree(staging_root(reports), ignore_errors=True)
