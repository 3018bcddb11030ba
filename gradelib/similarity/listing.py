"""Similar pairs for the terminal and for scripts (`gradelib similarity [--json]`): the stable JSON shape of
TAKEHOMES.md, blind labels unless revealed."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
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


def scan_json(
    pairs: Sequence[SimilarPair],
    threshold: float,
    submissions: Mapping[str, int],
    *,
    every: bool,
    reveal: bool,
    gradebook: str | None = None,
) -> str:
    """`gradelib similarity scan --json`: the pairs in the stable shape, how many submissions were read, and the
    gradebook whose labels they show (null: the scan's own labels, "Scan A"...)."""
    body = {
        "threshold": threshold,
        "all": every,
        "gradebook": gradebook,
        "submissions": dict(submissions),
        "pairs": [pair_record(pair, reveal=reveal) | {"share": round(pair.match.share, 3)} for pair in pairs],
    }
    return json.dumps(body, indent=1)


def scan_labels_text(gradebook: str | None, own: int) -> str:
    """Whose labels a scan shows: the gradebook's, the scan's own ("Scan A"...) for what no gradebook holds."""
    if gradebook is None:
        return (
            "labels: the scan's own (Scan A, Scan B, ...), not a gradebook's \"Submission #N\":"
            " --gradebook PATH shows the labels of the gradebook that holds them"
        )
    if not own:
        return f"labels: the gradebook's ({gradebook})"
    return (
        f"labels: the gradebook's ({gradebook}); {own} submission(s) it does not hold by the scan's own (Scan A, ...)"
    )


def scan_text(
    pairs: Sequence[SimilarPair],
    threshold: float,
    submissions: Mapping[str, int],
    *,
    every: bool,
    labels: str = "",
) -> str:
    """`gradelib similarity scan`: what was read and whose labels it shows, then the pairs (every pair's score with
    `every`)."""
    read = ", ".join(f"{count} {takehome}" for takehome, count in submissions.items()) or "no submission"
    said = f"\n{terminal_text(labels)}" if labels else ""
    if not every:
        return f"read {read}{said}\n" + pairs_text(pairs, threshold)
    lines = [f"read {read}{said}", f"every pair, highest share first (flagged at {threshold:.0%}):"]
    for pair in pairs:
        flag = "  <-" if pair.match.share >= threshold else ""
        lines.append(
            terminal_text(
                f"  {pair.match.share:6.1%}  {pair.takehome}: {pair.a.label} ~ {pair.b.label}"
                f" (longest match {pair.match.longest} lines){flag}"
            )
        )
    return "\n".join(lines)
