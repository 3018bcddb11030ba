"""The `webhooks` take-home, a gradelib plugin: a webhook consumer that must apply each event exactly once.

The kit finds `PLUGIN` through the `gradelib.takehomes` entry point in this package's
pyproject.toml; nothing in gradelib itself knows this take-home.
"""

from __future__ import annotations

from pathlib import Path

from gradelib.takehome import TakeHome

from gradelib_webhooks.grading import FAILURE_MODES, WebhooksGrading
from gradelib_webhooks.runs import CONSUMER_FILES, HANDOUT_FILES, LABELS, TAKEHOME

SAMPLES = Path(__file__).resolve().parents[1] / "submissions"  # in a checkout of this example

PLUGIN = TakeHome(
    id=TAKEHOME,
    title="The webhook consumer that must apply each event exactly once",
    package=__name__,
    grading=WebhooksGrading,
    markers=CONSUMER_FILES,
    handout_files=HANDOUT_FILES,
    failure_modes=FAILURE_MODES,
    samples=SAMPLES if SAMPLES.is_dir() else None,
    note_lines=("explanation",),  # shown as the candidate's note, rendered safely
    labels=LABELS,
)

__all__ = ["PLUGIN", "TAKEHOME", "WebhooksGrading"]
