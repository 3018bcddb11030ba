"""Line 5, volatile data lives outside the graded file: run A's answers scanned, and what changed between runs.

A value is volatile when it differs between the two replays (the clock, seeds, order and paths varied),
or when its content makes it a time, a duration, a token count or a model id. A value that only looks
random (a hex digest, a UUID, a provider's response id) is volatile when it changes between the two
replays or after a re-record (the record line's recording against the kit's stub, then replay); one
that is the same on every run and every re-record, such as a hash of the request, is shown to the
reviewer, never failed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gradelib.takehome import LineResult
from gradelib.takehomes.replay import volatile
from gradelib.takehomes.replay.runs import ANSWERS, ReplayRuns, changed_between, why_no_answers


def judge(grading: ReplayRuns) -> LineResult:
    """Timestamps, random ids, durations, token counts, model ids in the graded file."""
    if early := grading._unrunnable("volatile"):
        return early
    a, b = grading.replays
    source, data = "run A's output", a.answers
    if a.run.timed_out or a.run.output_limit_hit:
        return grading._line("volatile", "error", f"replay run A {a.run.status()}", {"source": None})
    if data is None:
        # The submitted copy was removed before the run; what the candidate shipped is not scanned.
        message = f"nothing of this run's to scan: replay run A {why_no_answers(a)}"
        return grading._line("volatile", "fail", message, {"source": None, "run": a.run.evidence()})
    try:
        doc = json.loads(data)
    except ValueError as exc:
        return grading._line("volatile", "fail", f"{ANSWERS} is not valid JSON: {exc}", {"source": source})
    known = [t["body"] for t in grading.tickets]
    changed = changed_between(a, b)
    found, stable = split_lookalikes(
        [vars(f) for f in volatile.scan(doc, known_text=known)], changed, _rerecorded(grading)
    )
    paths = sorted({f["path"] for f in found} | {c["path"] for c in changed})
    evidence = {"source": source, "findings": found, "changed_between_runs": changed[:50]}
    if stable:
        evidence["stable_lookalikes"] = stable[:50]
    if found or changed:
        first = found[0] if found else None
        what = (
            f"{first['kind']} at {first['path']} ({first['value'][:60]})"
            if first
            else f"{changed[0]['path']} changes between runs"
        )
        return grading._line("volatile", "fail", f"{len(paths)} volatile value(s) in {ANSWERS}, e.g. {what}", evidence)
    message = f"no timestamps, ids, durations, token counts or model ids in {source}"
    if stable:
        first = stable[0]
        message += (
            f"; {len(stable)} value(s) look random but are the same in both runs, e.g. {first['path']}"
            f" ({first['value'][:40]}): for the reviewer"
        )
    return grading._line("volatile", "pass", message, evidence)


def split_lookalikes(
    found: Sequence[Mapping[str, Any]], changed: Sequence[Mapping[str, Any]], rerecorded: object = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the findings that are volatile, the random-looking ones that neither changed between the runs nor
    after the re-record: `rerecorded` is the answers a replay wrote after it, None when there are none)."""
    moved = {str(change["path"]) for change in changed}
    volatile_found: list[dict[str, Any]] = []
    stable: list[dict[str, Any]] = []
    for finding in found:
        path = str(finding["path"])
        same = path not in moved and (rerecorded is None or _still_there(rerecorded, path, str(finding["value"])))
        (stable if finding["kind"] in volatile.LOOKS_RANDOM and same else volatile_found).append(dict(finding))
    return volatile_found, stable


def _still_there(doc: object, path: str, value: str) -> bool:
    found = volatile.value_at(doc, path)
    text = found if isinstance(found, str) else json.dumps(found)
    return value.removesuffix(volatile.ELLIPSIS) in text


def _rerecorded(grading: ReplayRuns) -> object:
    """The answers of the replay after the record line's re-record, as JSON (None when there are none)."""
    data = grading.record_runs.after.answers
    try:
        return json.loads(data) if data is not None else None
    except ValueError:
        return None
