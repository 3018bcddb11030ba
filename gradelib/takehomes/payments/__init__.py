"""The `payments` take-home: a payment client whose model-written draft double-charges on retry."""

from __future__ import annotations

from pathlib import Path

from gradelib.takehomes.payments import gateway
from gradelib.takehomes.payments.clientruns import CHECKOUT, RUN_SECONDS
from gradelib.takehomes.payments.grading import FAILURE_MODES, GRADING, PaymentsGrading, check, tier_rows
from gradelib.takehomes.payments.runs import DRAFT, HANDOUT_FILES, REWRITE_RATIO, TAKEHOME
from gradelib.takehomes.plugin import TakeHome

SAMPLES = Path(__file__).resolve().parents[3] / "submissions" / TAKEHOME  # in a checkout of the kit

PLUGIN = TakeHome(
    id=TAKEHOME,
    title="The take-home where the model is wrong on purpose",
    package=__name__,
    grading=PaymentsGrading,
    markers=(CHECKOUT,),
    handout_files=HANDOUT_FILES,
    failure_modes=FAILURE_MODES,
    servers={"gateway": gateway.main},
    samples=SAMPLES if SAMPLES.is_dir() else None,
    run_seconds=RUN_SECONDS,
)

__all__ = [
    "DRAFT",
    "GRADING",
    "HANDOUT_FILES",
    "PLUGIN",
    "REWRITE_RATIO",
    "TAKEHOME",
    "PaymentsGrading",
    "check",
    "tier_rows",
]
