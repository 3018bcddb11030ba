"""The `payments` take-home: a payment client whose model-written draft double-charges on retry."""

from __future__ import annotations

from gradelib.takehomes.payments.grading import (
    DRAFT,
    GRADING,
    HANDOUT_FILES,
    REWRITE_RATIO,
    TAKEHOME,
    PaymentsGrading,
    check,
    tier_rows,
)

__all__ = ["DRAFT", "GRADING", "HANDOUT_FILES", "REWRITE_RATIO", "TAKEHOME", "PaymentsGrading", "check", "tier_rows"]
