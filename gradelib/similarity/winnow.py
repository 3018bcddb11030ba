"""Winnowing (Schleimer, Wilkerson, Aiken 2003): a few k-gram hashes per file, chosen so that every match of
at least `WINDOW + K - 1` tokens shares one of them, whatever surrounds it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from gradelib.similarity.tokens import Tok

K = 12  # tokens per k-gram: about a line and a half of code, once names are `N`
WINDOW = 8  # k-grams per window: a match of 19 tokens or more is always seen


@dataclass(frozen=True)
class Mark:
    """One chosen fingerprint: the hash of a k-gram and the lines it spans (1-based, inclusive)."""

    hash: int
    first: int
    last: int


def kgram_hash(texts: Sequence[str]) -> int:
    """A stable signed 64-bit hash of a k-gram's token texts (what SQLite stores as an integer)."""
    digest = hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def kgrams(tokens: Sequence[Tok], k: int = K) -> list[Mark]:
    """Every k-gram of `tokens`, hashed, with its lines."""
    texts = [token.text for token in tokens]
    return [
        Mark(kgram_hash(texts[start : start + k]), tokens[start].line, tokens[start + k - 1].line)
        for start in range(len(tokens) - k + 1)
    ]


def winnow(grams: Sequence[Mark], window: int = WINDOW) -> list[Mark]:
    """The k-grams winnowing keeps: each window's smallest hash (its rightmost, on a tie), each position once."""
    if len(grams) <= window:
        return [min(grams, key=lambda mark: mark.hash)] if grams else []
    chosen: list[Mark] = []
    last = -1
    for start in range(len(grams) - window + 1):
        best = start
        for position in range(start + 1, start + window):
            if grams[position].hash <= grams[best].hash:
                best = position
        if best != last:
            chosen.append(grams[best])
            last = best
    return chosen


def fingerprints(tokens: Sequence[Tok], k: int = K, window: int = WINDOW) -> list[Mark]:
    """A token stream's winnowed fingerprints, in file order."""
    return winnow(kgrams(tokens, k), window)
