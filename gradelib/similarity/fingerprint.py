"""A submission's fingerprints: its own files, tokenised and winnowed, the handout's fingerprints taken out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gradelib.similarity.sources import OwnFile, Skipped, digest, own_files
from gradelib.similarity.tokens import language, tokenize
from gradelib.similarity.winnow import WINDOW, K, Mark, fingerprints

TOKENS_VERSION = "2"  # bump when `tokens.tokenize` normalises differently (2: semicolons dropped)
SCHEME = f"t{TOKENS_VERSION}-k{K}-w{WINDOW}"  # stored with every source: others are made again from their text


@dataclass(frozen=True)
class CodeFile:
    """One file compared: its path, its text (for the fragments shown) and its fingerprints."""

    path: str
    text: str
    marks: tuple[Mark, ...]


@dataclass(frozen=True)
class Base:
    """What the handout gives every candidate: its files' digests and fingerprints, which never count."""

    digests: frozenset[str] = frozenset()
    hashes: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Prints:
    """A submission as the comparison sees it: its own files with their fingerprints, and what was left out."""

    files: tuple[CodeFile, ...]
    skipped: tuple[Skipped, ...]

    @property
    def hashes(self) -> frozenset[int]:
        """Every distinct fingerprint of the submission."""
        return frozenset(mark.hash for file in self.files for mark in file.marks)


def marks_of(path: str, text: str) -> list[Mark]:
    """The winnowed fingerprints of one file's text."""
    return fingerprints(tokenize(text, language(path, text)))


def base_of(files: Iterable[tuple[str, bytes]]) -> Base:
    """The base made of handout files given as (path, bytes)."""
    digests: set[str] = set()
    hashes: set[int] = set()
    for path, data in files:
        digests.add(digest(data))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        hashes.update(mark.hash for mark in marks_of(path, text))
    return Base(frozenset(digests), frozenset(hashes))


def fingerprint(folder: Path, base: Base = Base()) -> Prints:
    """The fingerprints of the submission in `folder`, read without following links; the base's left out."""
    own, skipped = own_files(folder, base.digests)
    return Prints(tuple(_code_file(file, base) for file in own), tuple(skipped))


def _code_file(file: OwnFile, base: Base) -> CodeFile:
    return CodeFile(file.path, file.text, own_marks(file.path, file.text, base))


def own_marks(path: str, text: str, base: Base) -> tuple[Mark, ...]:
    """A file's fingerprints without the base's."""
    return tuple(mark for mark in marks_of(path, text) if mark.hash not in base.hashes)
