"""The `replay` take-home: an LLM triage service that must run twice offline with identical output."""

from __future__ import annotations

from gradelib.takehomes.replay.grading import (
    ANSWERS,
    CASSETTES,
    CHECK_SALT,
    GRADING,
    HANDOUT_FILES,
    MAX_CALLS,
    RECORD_LIMITS,
    REPLAY_LIMITS,
    RUN_SH,
    STUB_KEY,
    TAKEHOME,
    TICKETS,
    ReplayGrading,
    check,
    variations,
)

__all__ = [
    "ANSWERS",
    "CASSETTES",
    "CHECK_SALT",
    "GRADING",
    "HANDOUT_FILES",
    "MAX_CALLS",
    "RECORD_LIMITS",
    "REPLAY_LIMITS",
    "RUN_SH",
    "STUB_KEY",
    "TAKEHOME",
    "TICKETS",
    "ReplayGrading",
    "check",
    "variations",
]
