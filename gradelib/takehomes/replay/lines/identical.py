"""Line 1, two replays are byte-identical: the two replays' answers, compared byte for byte."""

from __future__ import annotations

from typing import Any

from gradelib.takehome import LineResult
from gradelib.takehomes.replay import diff
from gradelib.takehomes.replay.runs import ReplayRuns, answers_problems, variations, why_no_answers


def judge(grading: ReplayRuns) -> LineResult:
    """Two replays in fresh copies, environment varied: byte-identical answers?"""
    if early := grading._unrunnable("identical"):
        return early
    a, b = grading.replays
    evidence: dict[str, Any] = {
        "variations": list(variations(grading.environment)[1].described),
        "runs": [a.run.evidence(), b.run.evidence()],
    }
    for replay in (a, b):
        if replay.run.timed_out or replay.run.output_limit_hit or replay.run.disk_limit_hit:
            return grading._line("identical", "error", f"replay {replay.run.status()}", evidence)
    for replay, label in ((a, "run A"), (b, "run B")):
        if not replay.run.ok or replay.answers is None:
            return grading._line("identical", "fail", f"replay {label} {why_no_answers(replay)}", evidence)
    comparison = diff.compare(a.answers or b"", b.answers or b"")
    evidence |= {
        "identical": comparison.identical,
        "unified_diff": comparison.unified,
        "cause": comparison.cause,
        "cause_detail": comparison.cause_detail,
        "json_changes": [vars(c) for c in comparison.changes[:50]],
        "answers_problems": answers_problems(a.answers),
    }
    if comparison.identical:
        size = len(a.answers or b"")
        return grading._line("identical", "pass", f"both replays wrote the same {size} bytes", evidence)
    message = f"the two replays differ; likely cause: {comparison.cause} ({comparison.cause_detail})"
    return grading._line("identical", "fail", message, evidence)
