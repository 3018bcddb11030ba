"""Line 2, key scope: the keys the gateway saw in each scenario, and what they say of the key's scope."""

from __future__ import annotations

import json

from gradelib.takehome import LineResult
from gradelib.takehomes.payments.clientruns import NODE_MISSING
from gradelib.takehomes.payments.runs import KEY_SCOPE_TIERS, ORDER_SCENARIOS, PaymentsRuns


def judge(grading: PaymentsRuns) -> LineResult:
    """Transient + restart scenarios: a key per attempt, per call, or persisted."""
    transient, restart, orders = grading.transient, grading.restart, grading.orders
    evidence = {"transient": transient.evidence(), "restart": restart.evidence(), "orders": orders.evidence()}
    if grading.node is None:
        return grading._line("key_scope", "unverified", NODE_MISSING, evidence)
    if problem := grading.unrunnable or transient.problem:
        return grading._line("key_scope", "fail", f"the client does not work: {problem}", evidence)
    scope = grading.key_scope_fact
    counts = transient.counts
    seen = f"transient: {counts.requests} request(s), {counts.distinct_keys} distinct key(s)"
    if scope == "unknown":
        run = transient.runs[0]
        said = f": {run.error}" if run.error else ""
        message = f"the client never reached the gateway ({seen}); chargeWithRetry {run.outcome}{said}"
        return grading._line("key_scope", "fail", message, evidence)
    tier = KEY_SCOPE_TIERS[scope]
    if grading.same_key_for_different_orders:
        mismatches = orders.conflicts()["amount_mismatch"]
        refused = f"the gateway refused the second order ({mismatches} answer(s) 400: key known, other amount)"
        if grading.same_key_across_copies:
            message = (
                f"the same key for different orders ({', '.join(ORDER_SCENARIOS)} are separate orders): to the"
                " gateway they are one payment, so later orders would never be charged"
            )
            message += f"; in one process, {refused}" if grading.key_reused_for_other_amount else ""
        else:
            message = f"one key for two orders of different amounts: {refused}, so later orders are never charged"
        return grading._line("key_scope", "fail", message, evidence, "weak")
    if scope == "per_attempt":
        keyless = any(request.key is None for request in transient.requests)
        why = "a request without any key" if keyless else "a new key on every attempt"
        message = f"{why} ({seen}): to the gateway a retry is a second payment"
        return grading._line("key_scope", "fail", message, evidence, tier)
    restart_counts = json.dumps(restart.counts.to_dict())
    if scope == "persisted":
        message = (
            "one key per call, persisted before the request: after the kill the new process"
            f" sent the same key (restart: {restart_counts})"
        )
    else:
        if grading.restart_same_key is None:
            why = restart.problem or restart.skipped or "no request after the restart"
            after = f"the restart run was inconclusive ({why})"
        else:
            after = "after the kill the new process sent a new key: the key lives only in memory"
        single = " (only one attempt was made: no retry happened)" if counts.requests == 1 else ""
        message = f"one key per call{single} ({seen}); {after}"
    return grading._line("key_scope", "pass", message, evidence, tier)
