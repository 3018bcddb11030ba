"""Deprecated: import `install_failed` from `gradelib.takehome`; `@needs_install` is no longer needed.

Every line bound with `@line("id")` (`gradelib.takehome.line`) is `error` without running anything when the
submission's environment could not be set up, as every line of every take-home is (`BaseGrading._judged`).
This module stays for one release, for a team's take-home written against it; the kit never imports it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from gradelib.environment import Environment
from gradelib.result import LineResult
from gradelib.takehomes.basegrading import INSTALL_FAILED, install_failed

__all__ = ["INSTALL_FAILED", "install_failed", "needs_install"]

warnings.warn(
    "gradelib.takehomes.installguard is deprecated: import install_failed from gradelib.takehome, and bind each"
    " check with @line (a failed setup makes every line error without @needs_install)",
    DeprecationWarning,
    stacklevel=2,
)


class _Grading(Protocol):
    environment: Environment

    def _line(self, line_id: str, outcome: Any, message: str, evidence: Any) -> LineResult: ...


G = TypeVar("G", bound=_Grading)


def needs_install(method: Callable[[G], LineResult]) -> Callable[[G], LineResult]:
    """Deprecated: a line check that is `error`, without running anything, when the install failed."""

    @functools.wraps(method)
    def check(self: G) -> LineResult:
        message = install_failed(self.environment)
        if message:
            return self._line(method.__name__, "error", message, {"environment_error": self.environment.error})
        return method(self)

    return check
