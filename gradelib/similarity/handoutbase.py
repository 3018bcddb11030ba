"""Each take-home's base for the similarity check: what every candidate was given and never counts. Its
handout's files, as candidates receive them, and the starter code a team hands out on top of it: files or
folders named per take-home by `GRADELIB_STARTER_<TAKEHOME>` (paths separated by `:`), or by `similarity
scan --template`."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from gradelib.errors import GradelibError
from gradelib.settings import ENV_STARTER, Settings, current_settings
from gradelib.similarity.fingerprint import Base, base_of
from gradelib.takehomes import handout

STARTER_ENV = ENV_STARTER.replace("<TAKEHOME>", "{takehome}")
MAX_STARTER_FILES = 2000
MAX_STARTER_BYTES = 2 * 1024 * 1024  # one starter file; a bigger one is not code a team hands out


class StarterUnreadable(GradelibError):
    """Starter code named for the similarity check that is neither a readable file nor a folder."""


def starter_paths(takehome: str, settings: Settings | None = None) -> list[Path]:
    """The starter code a team set for `takehome` (`GRADELIB_STARTER_REPLAY=starter/:snippet.py`)."""
    return list((settings or current_settings()).starter_paths(takehome))


def starter_files(paths: Sequence[Path], *, named_by: str = "starter code") -> list[tuple[str, bytes]]:
    """Every file of starter code (files, or folders of them) as (path, bytes); StarterUnreadable names a path
    that is neither."""
    found: list[tuple[str, bytes]] = []
    for path in paths:
        path = Path(path)
        if path.is_file():
            found.append((path.name, path.read_bytes()[:MAX_STARTER_BYTES]))
        elif path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()):
                if len(found) >= MAX_STARTER_FILES:
                    break
                if ".git" not in file.relative_to(path).parts and file.stat().st_size <= MAX_STARTER_BYTES:
                    found.append((str(file.relative_to(path)), file.read_bytes()))
        else:
            raise StarterUnreadable(f"{named_by} {path}: no such file or folder")
    return found


def check_starter(takehome: str) -> None:
    """StarterUnreadable when the take-home's starter code setting names a path that is not there."""
    starter_files(starter_paths(takehome), named_by=STARTER_ENV.format(takehome=takehome.upper()))


@functools.cache
def handout_base(takehome: str) -> Base:
    """The fingerprints and digests of `takehome`'s handout files and its starter code (the handout's: nothing
    for a take-home not installed)."""
    return base_with(takehome, [])


def base_with(takehome: str, extra: Sequence[tuple[str, bytes]]) -> Base:
    """The take-home's base (handout, starter code) with `extra` files (`--template`) on top."""
    try:
        files = handout.handout_files(takehome)
    except (GradelibError, LookupError, OSError, UnicodeDecodeError):
        files = []
    named = STARTER_ENV.format(takehome=takehome.upper())
    return base_of([*files, *starter_files(starter_paths(takehome), named_by=named), *extra])
