"""Line 5, blast radius: where the note names what else is unsafe, beside the slow scenario's measure."""

from __future__ import annotations

from gradelib.takehome import LineResult
from gradelib.takehomes.payments.fakegateway import GatewayCounts
from gradelib.takehomes.payments.notehints import hint_lines
from gradelib.takehomes.payments.runs import BLAST_RADIUS_HINTS, PaymentsRuns, line_numbers


def judge(grading: PaymentsRuns) -> LineResult:
    """Does the note name what else is unsafe? The slow scenario beside it. Reviewer judgment."""
    slow = grading.slow
    evidence = {**grading._note_evidence(BLAST_RADIUS_HINTS), "slow": slow.evidence()}
    found = [
        f"{label} on line(s) {line_numbers(hint_lines(grading.hints, kind))}"
        for kind, label in (("timeout", "timeouts"), ("partial_write", "partial / atomic writes"),
                            ("idempotency", "duplicates"))
        if hint_lines(grading.hints, kind)
    ]  # fmt: skip
    note = "the note mentions " + "; ".join(found) if found else "the note names no other risk"
    if grading.note[0] is None:
        note = f"no note to read: {grading.note[1]}"
    if slow.skipped:
        measured = f"slow scenario not run: {slow.skipped}" if not grading.unrunnable else "slow scenario not run"
    elif why := slow.unmeasured:
        measured = why
    else:
        measured = f"slow scenario: {_slow_verdict(slow.counts, slow.conflicts()['key_in_use'])}"
    return grading._line("blast_radius", "needs_review", f"{note}; {measured} (reviewer judges)", evidence)


def _slow_verdict(counts: GatewayCounts, key_in_use: int = 0) -> str:
    """What the slow scenario's counts say about a retry after a client-side timeout."""
    seen = f"{counts.requests} request(s), {counts.distinct_keys} distinct key(s)"
    if counts.requests <= 1:
        return f"{seen}: no retry, the client waited for the slow answer"
    busy = f", {key_in_use} answered 409 while the first was still in flight" if key_in_use else ""
    if counts.distinct_keys == 1:
        return f"{seen}{busy}: the retry after the timeout kept the key"
    return f"{seen}: the retry after the timeout carried another key (a second payment to the gateway)"
