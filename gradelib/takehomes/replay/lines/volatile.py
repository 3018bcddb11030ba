"""Line 5, volatile data lives outside the graded file: run A's answers scanned, and what changed between runs."""

from __future__ import annotations

import json

from gradelib.result import LineResult
from gradelib.takehomes.replay import volatile
from gradelib.takehomes.replay.runs import ANSWERS, ReplayRuns, changed_between, why_no_answers


def judge(grading: ReplayRuns) -> LineResult:
    """Timestamps, random ids, durations, token counts, model ids in the graded file."""
    if early := grading._unrunnable("volatile") or grading._kit_fault("volatile", grading._replay_runs()):
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
    found = [vars(f) for f in volatile.scan(doc, known_text=known)]
    paths = sorted({f["path"] for f in found} | {c["path"] for c in changed_between(a, b)})
    changed = changed_between(a, b)
    evidence = {"source": source, "findings": found, "changed_between_runs": changed[:50]}
    if found or changed:
        first = found[0] if found else None
        what = (
            f"{first['kind']} at {first['path']} ({first['value'][:60]})"
            if first
            else f"{changed[0]['path']} changes between runs"
        )
        return grading._line("volatile", "fail", f"{len(paths)} volatile value(s) in {ANSWERS}, e.g. {what}", evidence)
    return grading._line(
        "volatile", "pass", f"no timestamps, ids, durations, token counts or model ids in {source}", evidence
    )
