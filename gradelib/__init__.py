"""gradelib: re-run hiring take-homes in a sandbox and show the evidence."""

from __future__ import annotations

from gradelib.errors import GradelibError, RubricError, SandboxUnavailable, SubmissionError, UnknownTakehome
from gradelib.result import LineResult, Report
from gradelib.sandbox import Limits, RunResult, Sandbox, Service

__version__ = "0.2.0"
__all__ = [
    "GradelibError",
    "Limits",
    "LineResult",
    "Report",
    "RubricError",
    "RunResult",
    "Sandbox",
    "SandboxUnavailable",
    "Service",
    "SubmissionError",
    "UnknownTakehome",
    "__version__",
]
