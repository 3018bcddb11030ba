"""Deprecated: import `TakeHome`, `Grading`, `FailureMode`, `EntryView`, `fact_is`, `outcome_is` and `KIT_NOTEBOOKS`
from `gradelib.takehome`. The contract itself is `takehomes/contract.py`; this module stays for one
release, for a team's take-home written against it, and the kit never imports it.
"""

from __future__ import annotations

import warnings

from gradelib.takehomes.contract import (
    DEFAULT_RUN_SECONDS,
    KIT_NOTEBOOKS,
    NOTEBOOK_FILE,
    RUBRIC_FILE,
    EntryView,
    FailureMode,
    Grading,
    TakeHome,
    fact_is,
    outcome_is,
)

__all__ = [
    "DEFAULT_RUN_SECONDS",
    "KIT_NOTEBOOKS",
    "NOTEBOOK_FILE",
    "RUBRIC_FILE",
    "EntryView",
    "FailureMode",
    "Grading",
    "TakeHome",
    "fact_is",
    "outcome_is",
]

warnings.warn(
    "gradelib.takehomes.plugin is deprecated: import TakeHome and its kin from gradelib.takehome",
    DeprecationWarning,
    stacklevel=2,
)
