"""Each take-home's base for the similarity check: its handout's files, as candidates receive them."""

from __future__ import annotations

import functools

from gradelib.errors import GradelibError
from gradelib.similarity import Base, base_of
from gradelib.takehomes import handout


@functools.cache
def handout_base(takehome: str) -> Base:
    """The fingerprints and digests of `takehome`'s handout files (nothing for a take-home not installed)."""
    try:
        return base_of(handout.handout_files(takehome))
    except (GradelibError, LookupError, OSError, UnicodeDecodeError):
        return Base()
