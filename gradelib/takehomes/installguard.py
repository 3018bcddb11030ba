"""Lines are `error` when a submission's environment (its declared packages, its project) could not be set up."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from gradelib.environment import Environment
from gradelib.result import LineResult

INSTALL_FAILED = "the submission's environment could not be set up: {error}"


class _Grading(Protocol):
    environment: Environment

    def _line(self, line_id: str, outcome: Any, message: str, evidence: Any) -> LineResult: ...


G = TypeVar("G", bound=_Grading)


def install_failed(environment: Environment) -> str | None:
    """The message every line carries when the install failed, or None."""
    return INSTALL_FAILED.format(error=environment.error) if environment.error else None


def needs_install(method: Callable[[G], LineResult]) -> Callable[[G], LineResult]:
    """A line check that is `error`, without running anything, when the install failed.

    The candidate's code is not judged on an install that never happened.
    """

    @functools.wraps(method)
    def check(self: G) -> LineResult:
        message = install_failed(self.environment)
        if message:
            return self._line(method.__name__, "error", message, {"environment_error": self.environment.error})
        return method(self)

    return check
