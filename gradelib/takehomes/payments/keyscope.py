"""What the gateway's request log says about keys, retries and backoff."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Literal

from gradelib.takehome import CodeFile, marks_of, match
from gradelib.takehomes.payments.fakegateway import GatewayRequest

KeyScope = Literal["per_attempt", "per_call", "persisted", "unknown"]
BACKOFF_MIN_GAP = 0.02  # seconds: shorter gaps are immediate retries, not backoff
BACKOFF_SHRINK = 0.8  # a gap may be this fraction of the previous one (jitter) and still count
MIN_MASKED_KEY_CHARS = 16  # shorter keys are not random ones, and masking them would garble text
# What a generated key looks like (a UUID, a token): masked, since it differs on every grading. Anything
# else (`order-4200`, or markup a hostile client sends as its key) is shown, escaped, as evidence.
GENERATED_KEY = re.compile(r"[\w\-:.]+")
# A draft line worth looking for in a candidate's client: this long, with a letter in it
# (`amount,` and `});` are in every client).
SIGNIFICANT_LINE_CHARS = 10
# The file names at the head of a draft diff: the handout's draft, then the candidate's client.
DIFF_FROM = "draft/checkout.mjs"
DIFF_TO = "checkout.mjs"


def gaps(times: Sequence[float]) -> list[float]:
    """Seconds between consecutive attempts."""
    return [later - earlier for earlier, later in pairwise(times)]


def has_backoff(between: Sequence[float]) -> bool:
    """True when the client waits between attempts and the waits do not shrink much.

    At least two gaps, each at least BACKOFF_MIN_GAP, each at least BACKOFF_SHRINK of the
    one before. One attempt (no gaps) or immediate retries mean no backoff.
    """
    if len(between) < 2 or any(gap < BACKOFF_MIN_GAP for gap in between):
        return False
    return all(later >= earlier * BACKOFF_SHRINK for earlier, later in pairwise(between))


def least_gaps(runs: Sequence[Sequence[float]]) -> list[float]:
    """Each gap the least seen over runs that made as many attempts as the first (load only adds)."""
    if not runs:
        return []
    alike = [run for run in runs if len(run) == len(runs[0])]
    return [min(column) for column in zip(*alike, strict=True)]


def classify_key_scope(requests: int, distinct_keys: int, keyless: int, restart_same_key: bool | None) -> KeyScope:
    """Key scope from the transient scenario's counts and the restart scenario's keys.

    No request: unknown. A request without a key, or more than one key: a key per attempt
    (every attempt is a new payment to the gateway). One key: per call, or persisted when
    the process after a restart sent the same key as the one that was killed.
    """
    if requests == 0:
        return "unknown"
    if keyless or distinct_keys >= 2:
        return "per_attempt"
    return "persisted" if restart_same_key else "per_call"


def same_key_after_restart(requests: Sequence[GatewayRequest], first_run_requests: int) -> bool | None:
    """Whether the first request after the restart carried the killed run's first key."""
    if not requests or first_run_requests < 1 or len(requests) <= first_run_requests:
        return None
    before, after = requests[0].key, requests[first_run_requests].key
    return before is not None and before == after


def draft_diff(candidate: str, draft: str) -> tuple[str, float]:
    """Unified diff from the model draft to the candidate's checkout.mjs, and their similarity: the share of
    the candidate's client in fragments that match the draft, measured as similar submissions are (tokens
    with names and literals made alike, winnowed fingerprints; `gradelib.similarity`)."""
    old, new = draft.splitlines(keepends=True), candidate.splitlines(keepends=True)
    unified = "".join(difflib.unified_diff(old, new, DIFF_FROM, DIFF_TO))
    theirs = CodeFile(DIFF_FROM, draft, tuple(marks_of(DIFF_TO, draft)))
    mine = CodeFile(DIFF_TO, candidate, tuple(marks_of(DIFF_TO, candidate)))
    return unified, round(match([mine], [theirs]).a_share, 3)


def _significant(source: str) -> list[str]:
    lines = (line.strip() for line in source.splitlines())
    return [
        line
        for line in lines
        if len(line) >= SIGNIFICANT_LINE_CHARS and not line.startswith("//") and any(c.isalpha() for c in line)
    ]


def draft_lines_kept(candidate: str, draft: str) -> float:
    """The share of the draft's significant lines (whitespace aside) still in the candidate's client.

    Unlike a similarity ratio it does not fall when the candidate only adds code (persistence,
    helpers) around the draft's loop: it measures what of the draft is left, not how much is new.
    """
    wanted = _significant(draft)
    if not wanted:
        return 1.0
    present = set(_significant(candidate))
    return round(sum(1 for line in wanted if line in present) / len(wanted), 3)


def key_labels(runs: Iterable[Sequence[GatewayRequest]]) -> dict[str, str]:
    """`<key-N>` for each generated idempotency key, numbered in the order the runs first sent them."""
    labels: dict[str, str] = {}
    for requests in runs:
        for request in requests:
            key = request.key
            generated = key is not None and len(key) >= MIN_MASKED_KEY_CHARS and GENERATED_KEY.fullmatch(key)
            if key is not None and generated and key not in labels:
                labels[key] = f"<key-{len(labels) + 1}>"
    return labels
