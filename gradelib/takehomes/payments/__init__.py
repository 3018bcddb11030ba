"""The `payments` take-home: a payment client whose model-written draft double-charges on retry."""

from __future__ import annotations

from pathlib import Path

from gradelib.takehome import KIT_NOTEBOOKS, TakeHome
from gradelib.takehomes.payments import fakegateway
from gradelib.takehomes.payments.clientruns import CHECKOUT, RUN_SECONDS
from gradelib.takehomes.payments.grading import ATTEMPTS_VIEW, FAILURE_MODES, GRADING, PaymentsGrading, check
from gradelib.takehomes.payments.runs import DRAFT, HANDOUT_FILES, LABELS, REWRITE_RATIO, TAKEHOME

SAMPLES = Path(__file__).resolve().parents[3] / "submissions" / TAKEHOME  # in a checkout of the kit

PLUGIN = TakeHome(
    id=TAKEHOME,
    title="The take-home where the model is wrong on purpose",
    package=__name__,
    grading=PaymentsGrading,
    markers=(CHECKOUT,),
    handout_files=HANDOUT_FILES,
    failure_modes=FAILURE_MODES,
    servers={"gateway": fakegateway.main},
    samples=SAMPLES if SAMPLES.is_dir() else None,
    notebook_path=KIT_NOTEBOOKS / f"{TAKEHOME}.ipynb",
    run_seconds=RUN_SECONDS,
    note_lines=("evidence", "explanation", "blast_radius"),
    labels=LABELS,
)

__all__ = [
    "ATTEMPTS_VIEW",
    "DRAFT",
    "GRADING",
    "HANDOUT_FILES",
    "PLUGIN",
    "REWRITE_RATIO",
    "TAKEHOME",
    "PaymentsGrading",
    "check",
]
