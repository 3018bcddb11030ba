"""Line 3, signatures: a tampered copy before the genuine event; forged events applied or refused."""

from __future__ import annotations

from gradelib.takehome import LineResult

from gradelib_webhooks.notes import constant_time_compare
from gradelib_webhooks.runs import WebhooksRuns, balances_text


def judge(grading: WebhooksRuns) -> LineResult:
    """Forgeries (tampered, wrong secret, unsigned) rejected with 4xx and never applied."""
    run = grading.bad_signature
    source = grading.source
    timing = constant_time_compare(source) if source is not None else None
    evidence = {"bad_signature": run.evidence(), "constant_time_compare": timing}
    if unworkable := grading._unworkable("signature", ("bad_signature",), evidence):
        return unworkable
    compare = (
        "; the source calls a constant-time comparison"
        if timing
        else "; no constant-time comparison found in the source (reviewer checks)"
    )
    verdict = run.verdict
    forged = grading.forged()
    if verdict.forged_applied:
        kinds = sorted({d.kind for d in forged if d.event in verdict.forged_applied})
        message = f"forged delivery applied ({', '.join(kinds)}): {', '.join(verdict.forged_applied)}"
        if not verdict.balances_ok:
            found, expected = balances_text(verdict.balances_found), balances_text(verdict.balances_expected)
            message += f"; balances {found}, expected {expected}"
        return grading._line("signature", "fail", message + compare, evidence, "weak")
    if grading.genuine_lost_to_forgery:
        message = (
            "a tampered copy was rejected, but the genuine event after it was never applied:"
            " the forgery was recorded as seen before its signature was checked"
        )
        return grading._line("signature", "fail", message + compare, evidence, "weak")
    if not verdict.clean:
        return grading._line("signature", "fail", f"bad signatures: {verdict.describe()}" + compare, evidence, "weak")
    answers = ", ".join(f"{d.kind} {d.status if d.status is not None else 'no answer'}" for d in forged)
    if all(d.rejected_4xx for d in forged):
        message = f"every forgery rejected ({answers}) and nothing of them recorded"
        return grading._line("signature", "pass", message + compare, evidence, "strong")
    message = f"no forgery applied, but not every one answered 4xx ({answers})"
    return grading._line("signature", "pass", message + compare, evidence, "acceptable")
