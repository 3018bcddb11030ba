"""Similar pairs for the terminal and for scripts (`gradelib similarity [--json]`): the stable JSON shape of
TAKEHOMES.md, blind labels unless revealed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gradelib.safetext import terminal_text
from gradelib.similarity.cohort import SimilarPair


def pair_record(pair: SimilarPair, *, reveal: bool = False) -> dict[str, Any]:
    """One pair in the stable JSON shape: take-home, both labels (names only with `reveal`), shares, longest."""
    record: dict[str, Any] = {
        "takehome": pair.takehome,
        "a": pair.a.label,
        "b": pair.b.label,
        "a_share": round(pair.match.a_share, 3),
        "b_share": round(pair.match.b_share, 3),
        "longest_lines": pair.match.longest,
        "b_earlier": pair.b.earlier,
    }
    if reveal:
        record["a_name"], record["b_name"] = pair.a.name, pair.b.name
    return record


def pairs_json(pairs: Sequence[SimilarPair], threshold: float, *, reveal: bool = False) -> str:
    """`{"threshold": T, "pairs": [...]}`, largest share first."""
    return json.dumps({"threshold": threshold, "pairs": [pair_record(pair, reveal=reveal) for pair in pairs]}, indent=1)


def pairs_text(pairs: Sequence[SimilarPair], threshold: float) -> str:
    """One line per pair, for the terminal."""
    if not pairs:
        return f"no pair of submissions shares {threshold:.0%} or more of either side's code"
    lines = [f"{len(pairs)} pair(s) sharing {threshold:.0%} or more of either side's code:"]
    for pair in pairs:
        earlier = " (earlier cohort)" if pair.b.earlier else ""
        lines.append(
            terminal_text(
                f"  {pair.takehome}: {pair.a.label} ({pair.match.a_share:.0%}) ~ {pair.b.label}{earlier} "
                f"({pair.match.b_share:.0%}), longest match {pair.match.longest} lines"
            )
        )
    return "\n".join(lines)
