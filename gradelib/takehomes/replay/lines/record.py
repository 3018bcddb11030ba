"""Line 4, `record` is capped and re-runnable: the records against the kit's stubs, and fixture honesty."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gradelib.takehome import LineResult, RunResult, UnsafeFile, read_file
from gradelib.takehomes.replay import fixtures
from gradelib.takehomes.replay.runs import (
    ANSWERS,
    MAX_ANSWERS_BYTES,
    MAX_CALLS,
    RecordRuns,
    ReplayRuns,
    how_it_ended,
    labels_in,
    why_no_answers,
)


def judge(grading: ReplayRuns) -> LineResult:
    """Record against the kit's stub: capped, re-runnable, feeds replay; fixtures honest."""
    if early := grading._unrunnable("record"):
        return early
    runs = grading.record_runs
    wrong = runs.wrong_labels()
    checks = runs.checks(wrong)
    honesty = fixture_honesty(grading)
    evidence = runs.evidence(checks, wrong, honesty)
    failures = _record_failures(runs, checks, wrong)
    if failures:
        return grading._line("record", "fail", "; ".join(failures), evidence)
    findings = honesty["findings"]
    if findings:
        return grading._line(
            "record", "needs_review", f"capped and re-runnable, but fixtures look edited: {findings[0]}", evidence
        )
    message = (
        f"{runs.healthy.call_count} calls per record, re-runnable, replay reproduced the stub's labels; "
        f"against a failing stub it gave up after {runs.failing.call_count} calls ({runs.failing_run.status()})"
    )
    return grading._line("record", "pass", message, evidence)


def _record_failures(runs: RecordRuns, checks: Mapping[str, bool], wrong: Mapping[str, object]) -> list[str]:
    """Why each failed check of the record line failed; an error already shown is not repeated."""
    first, second, after, failing, failing_run = runs.first, runs.second, runs.after, runs.failing, runs.failing_run
    failures = []
    shown: set[str] = set()

    def ended(run: RunResult) -> str:
        """`how_it_ended(run)`, shortened when the same error was already shown in this message."""
        text = how_it_ended(run)
        if text in shown and ": " in text:
            return text.split(": ", 1)[0] + " (the same error)"
        shown.add(text)
        return text

    if not checks["a_healthy"]:
        if runs.healthy.call_count > MAX_CALLS:
            failures.append(f"(a) went past {MAX_CALLS} model calls against the healthy stub")
        elif not first.ok:
            failures.append(f"(a) record against the healthy stub {ended(first)}")
        elif not after.run.ok or after.answers is None:
            failures.append(f"(a) replay after record {why_no_answers(after)}")
        else:
            failures.append(f"(a) replay after record disagrees with the stub on {len(wrong) or 'all'} ticket(s)")
    if not checks["b_failing"]:
        if failing.call_count == 0:
            failures.append(f"(b) against a failing stub, record never called the stub ({ended(failing_run)})")
        else:
            what = ended(failing_run)
            if failing_run.stopped:
                what = f"still calling, so the kit stopped it after {failing_run.duration:.0f} s"
            failures.append(f"(b) against a failing stub: {failing.call_count} calls (cap {MAX_CALLS}), {what}")
    if not checks["c_twice"]:
        if not second.ok:
            failures.append(f"(c) second record in a row {ended(second)}")
        elif not first.ok:
            failures.append(f"(c) the first of two records in a row {ended(first)}")
        else:
            failures.append(f"(c) the second record in a row went past {MAX_CALLS} model calls")
    if not checks["e_over_committed"]:
        failures.append(_over_committed_failure(runs, ended))
    return failures


def _over_committed_failure(runs: RecordRuns, ended: Callable[[RunResult], str]) -> str:
    """Why (e) failed: the re-record over the submission's committed fixtures, then a replay."""
    if runs.over.call_count > MAX_CALLS:
        return f"(e) recording over the committed fixtures went past {MAX_CALLS} model calls"
    if not runs.over_run.ok:
        return f"(e) record over the committed fixtures {ended(runs.over_run)}"
    if not runs.over_after.run.ok or runs.over_after.answers is None:
        return f"(e) replay after recording over the committed fixtures {why_no_answers(runs.over_after)}"
    stale = runs.stale_labels()
    if not stale:
        return "(e) the kit's stub knows none of the submission's tickets: nothing to re-record"
    ticket, labels = next(iter(stale.items()))
    asked = "" if runs.over.call_count else " (record asked the model nothing: it kept the committed fixtures)"
    return (
        f"(e) after recording over the committed fixtures, replay gave an answer other than the new recording's on "
        f"{len(stale)} ticket(s) (e.g. {ticket}: {labels['replay']}, recorded now: {labels['stub']}){asked}: "
        "a fixture that survives a re-record lies"
    )


def fixture_honesty(grading: ReplayRuns) -> dict[str, Any]:
    """Fixture honesty: committed labels vs a fresh replay, cassettes that stand out, git history."""
    findings: list[str] = []
    try:
        committed = read_file(grading.submission, ANSWERS, MAX_ANSWERS_BYTES)
    except UnsafeFile as exc:
        committed = None
        findings.append(f"committed {ANSWERS} {exc.reason}")
    fresh = labels_in(grading.replays[0].answers)
    stored = labels_in(committed)
    disagree = {
        tid: {"committed": label, "replay": fresh.get(tid)}
        for tid, label in stored.items()
        if fresh and fresh.get(tid) != label
    }
    if disagree:
        findings.append(
            f"the submitted {ANSWERS} disagrees with this run's replay of the committed cassettes "
            f"on {len(disagree)} ticket(s)"
        )
    odd = fixtures.standouts(grading.submission, grading.cassettes)
    findings += [f"{s.path} {s.reasons[0]}" for s in odd]
    late = fixtures.late_edits(grading.git_log, grading.cassettes)
    findings += [f"{e.path} edited in a later commit ({e.commit} {e.subject!r}) than its siblings" for e in late]
    live = grading.live_rerecord(stored)
    if live.get("finding"):
        findings.append(live["finding"])
    if not stored:
        compared = f"not compared: the submission has no usable {ANSWERS}"
    elif not fresh:
        compared = f"not compared: replay run A wrote no usable {ANSWERS}"
    else:
        compared = f"the submitted {ANSWERS} (the one file read as shipped) against replay run A's"
    return {
        "live_rerecord": live,
        "findings": findings,
        "committed_answers": compared,
        "committed_vs_replay": disagree,
        "standouts": [{"path": s.path, "reasons": list(s.reasons)} for s in odd],
        "late_edits": [vars(e) for e in late],
        "cassettes": len(grading.cassettes),
    }
