"""Deprecated: import `BaseGrading` (and `line`, to bind each check to its rubric line) from `gradelib.takehome`.
The grading base itself is `takehomes/basegrading.py`; this module stays for one release, for a team's
take-home written against it, and the kit never imports it.
"""

from __future__ import annotations

import warnings

from gradelib.takehomes.basegrading import BaseGrading

__all__ = ["BaseGrading"]

warnings.warn(
    "gradelib.takehomes.base is deprecated: import BaseGrading (and line) from gradelib.takehome",
    DeprecationWarning,
    stacklevel=2,
)
