"""Line 1, exactly once: duplicates, a slow consumer and a restart, judged from the ledger."""

from __future__ import annotations

from gradelib.takehome import LineResult

from gradelib_webhooks.runs import EXACTLY_ONCE, IN_ONE_PROCESS, WebhooksRuns


def judge(grading: WebhooksRuns) -> LineResult:
    """Duplicates, a redelivery while the first is pending, a restart: each event once."""
    runs = {name: grading.scenarios()[name] for name in EXACTLY_ONCE}
    evidence = {name: run.evidence() for name, run in runs.items()}
    if unworkable := grading._unworkable("exactly_once", EXACTLY_ONCE, evidence):
        return unworkable
    for name in IN_ONE_PROCESS:
        verdict = runs[name].verdict
        if not verdict.clean:
            message = f"{runs[name].scenario.title.lower()}, in one process: {verdict.describe()}"
            return grading._line("exactly_once", "fail", message, evidence, "weak")
    restart = runs["restart"].verdict
    if restart.clean:
        message = "each event applied exactly once through duplicates, a stalled redelivery and a restart"
        return grading._line("exactly_once", "pass", message, evidence, "strong")
    if grading.dedupe == "in_memory":
        message = (
            f"once while running, but after the restart a redelivered event was applied again"
            f" ({restart.describe()}): the dedupe record lives in memory"
        )
        return grading._line("exactly_once", "pass", message, evidence, "acceptable")
    message = f"after the restart: {restart.describe()}: the state does not survive a restart"
    return grading._line("exactly_once", "fail", message, evidence, "weak")
