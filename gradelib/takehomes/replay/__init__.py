"""The `replay` take-home: an LLM triage service that must run twice offline with identical output."""

from __future__ import annotations

from pathlib import Path

from gradelib.takehome import KIT_NOTEBOOKS, TakeHome
from gradelib.takehomes.replay import modelstub
from gradelib.takehomes.replay.grading import FAILURE_MODES, GRADING, ReplayGrading, check
from gradelib.takehomes.replay.runs import (
    ANSWERS,
    CASSETTES,
    CHECK_SALT,
    HANDOUT_FILES,
    MAX_CALLS,
    RECORD_LIMITS,
    REPLAY_LIMITS,
    RERECORD_SALT,
    RUN_SECONDS,
    RUN_SH,
    STUB_KEY,
    TAKEHOME,
    TICKETS,
    variations,
)

SAMPLES = Path(__file__).resolve().parents[3] / "submissions" / TAKEHOME  # in a checkout of the kit

PLUGIN = TakeHome(
    id=TAKEHOME,
    title="The take-home that must run twice",
    package=__name__,
    grading=ReplayGrading,
    markers=(RUN_SH, CASSETTES),
    handout_files=HANDOUT_FILES,
    failure_modes=FAILURE_MODES,
    servers={"stub": modelstub.main},
    samples=SAMPLES if SAMPLES.is_dir() else None,
    notebook_path=KIT_NOTEBOOKS / f"{TAKEHOME}.ipynb",
    run_seconds=RUN_SECONDS,
    labels={
        "a_healthy": "(a) healthy stub",
        "b_failing": "(b) failing stub",
        "c_twice": "(c) record twice",
        "e_over_committed": "(e) re-record over the committed fixtures",
        "over_committed": "re-record over the committed fixtures",
        "committed_vs_replay": "committed answers vs a fresh replay",
        "live_rerecord": "live re-record",
    },
)

__all__ = [
    "ANSWERS",
    "CASSETTES",
    "CHECK_SALT",
    "GRADING",
    "HANDOUT_FILES",
    "MAX_CALLS",
    "PLUGIN",
    "RECORD_LIMITS",
    "REPLAY_LIMITS",
    "RERECORD_SALT",
    "RUN_SH",
    "STUB_KEY",
    "TAKEHOME",
    "TICKETS",
    "ReplayGrading",
    "check",
    "variations",
]
