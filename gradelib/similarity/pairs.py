"""Pairs of submissions that share code: found through an inverted index of fingerprints (not every pair
compared), then measured: the share of each side covered by matched fragments, and the longest one."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from gradelib.similarity.fingerprint import CodeFile

THRESHOLD = 0.5  # covered share of either side at which a pair is shown (benchmarks/similarity.py)
MIN_SHARED = 4  # fingerprints two submissions must share before they are measured
MIN_SHARED_RATIO = 0.15  # ...and this share of the smaller one's (no pair at THRESHOLD was under 0.29)
COMMON_SOURCES = 10  # a fingerprint in more submissions than this (or 2 % of them) is an idiom of the task
COMMON_SHARE = 0.02
GAP = 3  # fingerprints skipped (an edited line) within one fragment, on either side

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class Span:
    """Lines of one file (1-based, inclusive)."""

    path: str
    first: int
    last: int

    @property
    def lines(self) -> int:
        """How many lines it spans."""
        return self.last - self.first + 1


@dataclass(frozen=True)
class Fragment:
    """Code that matches: where it is on each side."""

    a: Span
    b: Span

    @property
    def lines(self) -> int:
        """The match's length in lines (the shorter side)."""
        return min(self.a.lines, self.b.lines)


@dataclass(frozen=True)
class Match:
    """How much two submissions share: each side's covered share, the longest fragment, the fragments."""

    a_share: float
    b_share: float
    longest: int
    fragments: tuple[Fragment, ...]

    @property
    def share(self) -> float:
        """The larger of the two shares: a copy padded with new code is still a copy."""
        return max(self.a_share, self.b_share)


def _lines(files: Sequence[CodeFile], keep: frozenset[int] | None, ignore: frozenset[int]) -> set[tuple[int, int]]:
    return {
        (number, line)
        for number, file in enumerate(files)
        for mark in file.marks
        if mark.hash not in ignore and (keep is None or mark.hash in keep)
        for line in range(mark.first, mark.last + 1)
    }


def match(a: Sequence[CodeFile], b: Sequence[CodeFile], ignore: frozenset[int] = frozenset()) -> Match:
    """What `a` and `b` share, fingerprints in `ignore` (the task's idioms) aside."""
    shared = frozenset(mark.hash for file in a for mark in file.marks) & frozenset(
        mark.hash for file in b for mark in file.marks
    )
    shared -= ignore
    a_all, b_all = _lines(a, None, ignore), _lines(b, None, ignore)
    a_hit, b_hit = _lines(a, shared, ignore), _lines(b, shared, ignore)
    fragments = _fragments(a, b, shared)
    return Match(
        len(a_hit) / len(a_all) if a_all else 0.0,
        len(b_hit) / len(b_all) if b_all else 0.0,
        max((fragment.lines for fragment in fragments), default=0),
        tuple(sorted(fragments, key=lambda fragment: -fragment.lines)),
    )


def _fragments(a: Sequence[CodeFile], b: Sequence[CodeFile], shared: frozenset[int]) -> list[Fragment]:
    """Runs of shared fingerprints in the same order on both sides, each run one fragment."""
    where: dict[int, list[tuple[int, int]]] = defaultdict(list)  # hash -> (file, position) in b
    for number, file in enumerate(b):
        for position, mark in enumerate(file.marks):
            if mark.hash in shared:
                where[mark.hash].append((number, position))
    found: list[Fragment] = []
    for file in a:
        run: list[tuple[int, int, int]] = []  # (position in a, b's file, position in b)
        for position, mark in enumerate(file.marks):
            if mark.hash not in shared:
                continue
            after = None
            if run:
                last_a, b_file, last_b = run[-1]
                after = next(
                    (
                        (n, p)
                        for n, p in where[mark.hash]
                        if n == b_file and 0 < p - last_b <= GAP + 1 and position - last_a <= GAP + 1
                    ),
                    None,
                )
            if after is None:
                if run:
                    found.append(_fragment(file, b, run))
                n, p = where[mark.hash][0]
                run = [(position, n, p)]
            else:
                run.append((position, *after))
        if run:
            found.append(_fragment(file, b, run))
    return found


def _fragment(file: CodeFile, b: Sequence[CodeFile], run: Sequence[tuple[int, int, int]]) -> Fragment:
    a_marks = [file.marks[position] for position, _, _ in run]
    other = b[run[0][1]]
    b_marks = [other.marks[position] for _, _, position in run]
    return Fragment(
        Span(file.path, min(m.first for m in a_marks), max(m.last for m in a_marks)),
        Span(other.path, min(m.first for m in b_marks), max(m.last for m in b_marks)),
    )


def common(hashes: Mapping[Key, frozenset[int]]) -> frozenset[int]:
    """Fingerprints too many submissions have to tell anything (the task's own idioms)."""
    limit = max(COMMON_SOURCES, int(COMMON_SHARE * len(hashes)))
    counts = Counter(value for values in hashes.values() for value in values)
    return frozenset(value for value, count in counts.items() if count > limit)


def neighbours(
    hashes: Mapping[Key, frozenset[int]], ignore: frozenset[int], keys: Sequence[Key] | None = None
) -> dict[tuple[Key, Key], int]:
    """Pairs (one of `keys`, then any other) sharing at least MIN_SHARED fingerprints, through an inverted index.

    Each pair once: when both sides are among `keys`, it is (the earlier of them in `keys`, the later)."""
    index: dict[int, list[Key]] = defaultdict(list)
    for key, values in hashes.items():
        for value in values - ignore:
            index[value].append(key)
    sizes = {key: len(values - ignore) for key, values in hashes.items()}
    chosen = list(hashes if keys is None else keys)
    order = {key: position for position, key in enumerate(chosen)}
    found: dict[tuple[Key, Key], int] = {}
    for key in chosen:
        counts = Counter(other for value in hashes[key] - ignore for other in index[value] if other != key)
        for other, count in counts.items():
            enough = count >= max(MIN_SHARED, MIN_SHARED_RATIO * min(sizes[key], sizes[other]))
            if enough and order.get(other, len(chosen)) > order[key]:
                found[(key, other)] = count
    return found
