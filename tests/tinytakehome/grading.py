"""The tiny take-home's one check: `cat answer.txt` in the sandbox must print the expected answer."""

from __future__ import annotations

from typing import Any

from gradelib.lazy import cached
from gradelib.result import LineResult
from gradelib.sandbox import RunResult
from gradelib.takehomes.base import BaseGrading

TAKEHOME = "tiny"
ANSWER_FILE = "answer.txt"
EXPECTED = "42"


class TinyGrading(BaseGrading):
    """Grades one tiny submission with a single sandboxed run."""

    TAKEHOME = TAKEHOME

    @cached
    def run(self) -> RunResult:
        """The one sandboxed command: print the submission's answer file."""
        return self.box.run(["cat", ANSWER_FILE], self.box.copy("answer"))

    def answer(self) -> LineResult:
        """Pass when the sandboxed run printed exactly the expected answer."""
        run = self.run
        evidence = {"run": run.evidence(), "expected": EXPECTED}
        if not run.ok:
            return self._line("answer", "error", f"cat {ANSWER_FILE}: {run.status()}", evidence)
        printed = run.stdout.strip()
        if printed == EXPECTED:
            return self._line("answer", "pass", f"printed {EXPECTED}", evidence)
        return self._line("answer", "fail", f"printed {printed[:40]!r}, not {EXPECTED}", evidence)

    def facts(self) -> dict[str, Any]:
        """The run's isolation and what it printed."""
        run = self.run
        return {
            "isolation": run.isolation.mode,
            "isolation_reason": run.isolation.reason,
            "printed": run.stdout.strip()[:40],
        }
