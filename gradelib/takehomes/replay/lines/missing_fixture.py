"""Line 3, a missing fixture fails loudly: the replay with one cassette deleted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gradelib.takehome import LineResult, last_word
from gradelib.takehomes.replay.runs import ANSWERS, CASSETTES, LOUD_WORDS, ReplayRuns, error_said, how_it_ended


def judge(grading: ReplayRuns) -> LineResult:
    """One cassette deleted: replay must fail loudly, offline, without writing answers.

    Loudly means because of the missing fixture: the same replay with every fixture present
    completes, and the message the program ends with (a crash's own error line, not the
    frames and handled errors of its traceback) names the fixture, a cassette or record.
    """
    if early := grading._unrunnable("missing_fixture"):
        return early
    control = grading.replays
    evidence: dict[str, Any] = {"with_every_fixture": [r.run.status() for r in control]}
    if all(r.run.timed_out or r.run.output_limit_hit for r in control):
        message = f"replay with every fixture present: {control[0].run.status()}"
        return grading._line("missing_fixture", "error", message, evidence)
    removed, replay = grading.removed_cassette, grading.missing_replay
    if not any(r.run.ok for r in control):
        without = f"without {removed}" if removed else "without a fixture"
        message = (
            f"replay does not run at all, even with every fixture present (run A {how_it_ended(control[0].run)}), "
            f"so how it fails {without} says nothing about a missing fixture"
        )
        return grading._line("missing_fixture", "fail", message, evidence)
    if removed is None or replay is None:
        # Observed, not unobservable: a replay that runs with no recorded responses reads none.
        message = f"no cassettes in {CASSETTES}/, so replay reads no recorded responses and none can go missing"
        return grading._line("missing_fixture", "fail", message, evidence)
    run = replay.run
    said_last = last_word(run.stdout + "\n" + run.stderr)
    words = [*LOUD_WORDS, Path(removed).name.lower(), Path(removed).stem.lower()]
    named = [w for w in words if w and w in said_last.lower()]
    evidence |= {
        "removed": removed,
        "run": run.evidence(),
        "named": named,
        "said": error_said(run),
        "answers_written": replay.wrote,
    }
    if run.timed_out or run.output_limit_hit or run.disk_limit_hit:
        return grading._line("missing_fixture", "error", f"replay without {removed}: {run.status()}", evidence)
    problems = []
    if run.exit_code == 0:
        problems.append("exited 0")
    elif not named:
        what = f" (it ended with: {error_said(run)})" if error_said(run) else " (it printed nothing)"
        problems.append(f"exited {run.exit_code}, but its message names no fixture, cassette or record{what}")
    if run.network_attempts:
        problems.append(f"attempted {len(run.network_attempts)} network connection(s)")
    if replay.wrote:
        problems.append(f"wrote {ANSWERS} anyway (a silently degraded answer)")
    if problems:
        return grading._line("missing_fixture", "fail", f"without {removed}, replay " + "; ".join(problems), evidence)
    message = f"without {removed}, replay exited {run.exit_code} naming {named[0]!r}"
    return grading._line("missing_fixture", "pass", message, evidence)
