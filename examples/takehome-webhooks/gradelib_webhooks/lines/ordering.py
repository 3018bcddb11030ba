"""Line 2, out of order: a refund before its charge, and a restart before the charge arrives."""

from __future__ import annotations

from gradelib.takehome import LineResult

from gradelib_webhooks.judge import first_answer
from gradelib_webhooks.runs import WebhooksRuns


def judge(grading: WebhooksRuns) -> LineResult:
    """A refund before its charge, with a restart before the charge comes."""
    run = grading.out_of_order
    evidence = {"out_of_order": run.evidence()}
    if unworkable := grading._unworkable("ordering", ("out_of_order",), evidence):
        return unworkable
    refund, charge = next(iter(run.scenario.refunds().items()))
    first = first_answer(run.deliveries, refund)
    answered = f"answered {first.status if first and first.status is not None else 'nothing'}"
    reordering = grading.reordering
    if reordering == "applied_early":
        message = f"the refund {refund} was applied before its charge {charge} ({answered} on arrival)"
        return grading._line("ordering", "fail", message, evidence, "weak")
    if reordering == "lost":
        if first is not None and first.accepted:
            message = (
                f"the refund {refund} was acknowledged ({answered}) before its charge, then lost across the"
                " restart: it was parked in memory"
            )
        else:
            message = f"the refund {refund} was refused on every redelivery and never applied ({answered} first)"
        return grading._line("ordering", "fail", message, evidence, "weak")
    verdict = run.verdict
    if not verdict.clean:
        return grading._line("ordering", "fail", f"out of order: {verdict.describe()}", evidence, "weak")
    if reordering == "parked":
        message = f"the early refund was parked ({answered}), kept across the restart and applied after {charge}"
        return grading._line("ordering", "pass", message, evidence, "strong")
    redelivered = sum(1 for d in run.deliveries if d.event == refund and d.round > 0)
    message = (
        f"the early refund was refused ({answered}) until its charge arrived; the provider's"
        f" redelivery ({redelivered} more) applied it after {charge}"
    )
    return grading._line("ordering", "pass", message, evidence, "acceptable")
