"""Deprecated: a take-home's notebook imports `panel_for` from `gradelib.takehome`. The scoring panel is
`review/scoringpanel.py`; this module stays for one release, for a team's notebook written against it,
and the kit never imports it.
"""

from __future__ import annotations

import warnings

from gradelib.review.scoringpanel import panel_for, scoring_panel

__all__ = ["panel_for", "scoring_panel"]

warnings.warn(
    "gradelib.review.panel is deprecated: import panel_for from gradelib.takehome",
    DeprecationWarning,
    stacklevel=2,
)
