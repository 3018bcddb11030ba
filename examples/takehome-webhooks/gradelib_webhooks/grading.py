"""The `webhooks` take-home's grading: its four rubric lines in rubric order, each judged in its own module
(`lines/`) from the runs they share (`runs.py`), the views its notebook shows (`views.py`), and the
failure modes the summary counts."""

from __future__ import annotations

from typing import Any

from gradelib.takehome import FailureMode, LineResult, fact_is, line

from gradelib_webhooks import views
from gradelib_webhooks.lines import exactly_once, explanation, ordering, signature
from gradelib_webhooks.runs import WebhooksRuns


class WebhooksGrading(WebhooksRuns):
    """Grades one `webhooks` submission: each line runs (and caches) the scenarios it needs, then judges them."""

    @line("exactly_once")
    def exactly_once(self) -> LineResult:
        """Each event applied once: duplicates, a slow consumer, a restart (`lines/exactly_once.py`)."""
        return exactly_once.judge(self)

    @line("ordering")
    def ordering(self) -> LineResult:
        """A refund before its charge, a restart in between (`lines/ordering.py`)."""
        return ordering.judge(self)

    @line("signature")
    def signature(self) -> LineResult:
        """Forged events refused, the genuine one still applied (`lines/signature.py`)."""
        return signature.judge(self)

    @line("explanation")
    def explanation(self) -> LineResult:
        """What the note says, for the reviewer (`lines/explanation.py`)."""
        return explanation.judge(self)

    def views(self) -> dict[str, Any]:
        """The deliveries of every scenario (the notebook's tables), stored with the results by the batch."""
        return {views.DELIVERIES: views.deliveries_view(self.scenarios())}


FAILURE_MODES: tuple[FailureMode, ...] = (
    FailureMode("redelivered event applied twice", fact_is("dedupe", "none")),
    FailureMode("dedupe lost on restart (in memory)", fact_is("dedupe", "in_memory")),
    FailureMode("refund applied before its charge", fact_is("out_of_order", "applied_early")),
    FailureMode("early event lost (parked in memory)", fact_is("out_of_order", "lost")),
    FailureMode("forged event applied", fact_is("forged_applied", True)),
    FailureMode("forgery suppressed the genuine event", fact_is("genuine_lost_to_forgery", True)),
)
