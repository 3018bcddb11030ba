"""The tiny take-home's one check: `cat answer.txt` in the sandbox must print the expected answer.

Test-only fault harness: an answer `kit-fault: sigkill` (or `sigstop`, `sleep N`) makes the kit's
own side fail in the notebook's kernel, as the OOM killer or a kit bug would, after the sandboxed
run: what a batch must survive.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from gradelib.takehome import BaseGrading, LineResult, RunResult, cached, line

TAKEHOME = "tiny"
ANSWER_FILE = "answer.txt"
EXPECTED = "42"
FAULT = "kit-fault:"


class TinyGrading(BaseGrading):
    """Grades one tiny submission with a single sandboxed run."""

    TAKEHOME = TAKEHOME

    @cached
    def run(self) -> RunResult:
        """The one sandboxed command: print the submission's answer file."""
        return self.box.run(["cat", ANSWER_FILE], self.box.copy("answer"))

    @line("answer")
    def answer(self) -> LineResult:
        """Pass when the sandboxed run printed exactly the expected answer."""
        run = self.run
        evidence = {"run": run.evidence(), "expected": EXPECTED}
        _fault(run.stdout.strip())
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


def _fault(answer: str) -> None:
    """In the kernel: kill it, stop it, or hold it, as a test's answer asks."""
    if not answer.startswith(FAULT):
        return
    what = answer.removeprefix(FAULT).split()
    if what == ["sigkill"]:
        os.kill(os.getpid(), signal.SIGKILL)
    elif what == ["sigstop"]:
        os.kill(os.getpid(), signal.SIGSTOP)
    elif what[:1] == ["sleep"]:
        time.sleep(float(what[1]))
