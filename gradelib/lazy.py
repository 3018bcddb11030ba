"""Deprecated: import `cached` and `computed` from `gradelib.takehome`. They live in `cached.py`; this
module stays for one release, for a team's take-home written against it, and the kit never imports it.
"""

from __future__ import annotations

import warnings

from gradelib.cached import cached, computed

__all__ = ["cached", "computed"]

warnings.warn(
    "gradelib.lazy is deprecated: import cached and computed from gradelib.takehome",
    DeprecationWarning,
    stacklevel=2,
)
