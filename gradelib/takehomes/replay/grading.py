"""The `replay` take-home's grading: its five rubric lines in rubric order, each judged in its own module
(`lines/`) from the runs they share (`runs.py`), and the failure modes the summary counts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from gradelib.takehome import EntryView, FailureMode, Limits, LineResult, Report, Rubric, line, outcome_is
from gradelib.takehomes.replay.lines import identical, missing_fixture, offline, record, volatile
from gradelib.takehomes.replay.liverecord import LiveEndpoint
from gradelib.takehomes.replay.runs import RECORD_LIMITS, REPLAY_LIMITS, ReplayRuns


class ReplayGrading(ReplayRuns):
    """Grades one `replay` submission: each line runs (and caches) the sandbox runs it needs, then judges them."""

    @line("identical")
    def identical(self) -> LineResult:
        """Two replays in fresh copies, environment varied: byte-identical answers? (`lines/identical.py`)"""
        return identical.judge(self)

    @line("offline")
    def offline(self) -> LineResult:
        """Every replay-mode run was offline: any attempted connection fails the line (`lines/offline.py`)."""
        return offline.judge(self)

    @line("missing_fixture")
    def missing_fixture(self) -> LineResult:
        """One cassette deleted: replay must fail loudly, offline, without writing answers
        (`lines/missing_fixture.py`)."""
        return missing_fixture.judge(self)

    @line("record")
    def record(self) -> LineResult:
        """Record against the kit's stub: capped, re-runnable, feeds replay; fixtures honest (`lines/record.py`)."""
        return record.judge(self)

    @line("volatile")
    def volatile(self) -> LineResult:
        """Timestamps, random ids, durations, token counts, model ids in the graded file (`lines/volatile.py`)."""
        return volatile.judge(self)


GRADING = ReplayGrading


def check(
    submission: Path,
    *,
    name: str | None = None,
    rubric: Rubric | None = None,
    replay_limits: Limits = REPLAY_LIMITS,
    record_limits: Limits = RECORD_LIMITS,
    live: LiveEndpoint | None = None,
) -> Report:
    """Grade one replay submission folder."""
    grading = ReplayGrading(
        submission, name=name, rubric=rubric, replay_limits=replay_limits, record_limits=record_limits, live=live
    )
    with grading:
        return grading.report()


def _failure_cause(cause: str | None) -> Callable[[EntryView], bool]:
    """The identical line failed, and the kit named this likely cause (None: any cause it did not name)."""

    def seen(entry: EntryView) -> bool:
        line = entry.line_results.get("identical")
        found = line.evidence.get("cause") if line is not None and line.outcome == "fail" else None
        return found == cause if cause else found is not None and found not in CAUSES

    return seen


def _live_fallback(entry: EntryView) -> bool:
    line = entry.line_results.get("missing_fixture")
    run = line.evidence.get("run") if line is not None else None
    return bool(isinstance(run, Mapping) and run.get("connections"))


CAUSES = {"timestamp": "timestamp in the output", "random_id": "random id per row", "ordering": "unordered output"}
FAILURE_MODES: tuple[FailureMode, ...] = (
    *(FailureMode(label, _failure_cause(cause)) for cause, label in CAUSES.items()),
    FailureMode("replays differ (other cause)", _failure_cause(None)),
    FailureMode("live call on a missing fixture", _live_fallback),
    FailureMode("network attempt in replay", outcome_is("offline", "fail")),
    FailureMode("fixtures look edited", outcome_is("record", "needs_review")),
    FailureMode("record not capped or not re-runnable", outcome_is("record", "fail")),
    FailureMode("volatile data in answers.json", outcome_is("volatile", "fail")),
)
