"""The sample cohort (`submissions/`) graded once per test session by the real batch, shared by e2e tests.

Graded with `--reveal` so reports, results and notebooks carry the candidates' names (blind
labels are the tiny take-home's batch tests' business). Tests read it; none writes into it:
a test that needs to change a gradebook or a report copies what it needs first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib import batch
from gradelib.notebook import report_from_dict
from gradelib.result import Report

JOBS = 4  # the kit's default on two cores: gradings wait more than they compute


@dataclass(frozen=True)
class GradedCohort:
    """Every sample's batch outcome, by (take-home, candidate), and where its reports are."""

    reports: Path
    outcomes: dict[tuple[str, str], batch.GradeOutcome]

    def names(self, takehome: str) -> list[str]:
        """The candidates of one take-home, sorted."""
        return sorted(name for kind, name in self.outcomes if kind == takehome)

    def outcome(self, takehome: str, name: str) -> batch.GradeOutcome:
        """One sample's outcome; it must have been graded."""
        found = self.outcomes[(takehome, name)]
        assert found.status == "graded", (name, found.error)
        return found

    def notebook(self, takehome: str, name: str) -> Path:
        """The executed notebook."""
        return Path(self.outcome(takehome, name).notebook or "")

    def result(self, takehome: str, name: str) -> dict[str, Any]:
        """The JSON result the notebook saved."""
        data: dict[str, Any] = json.loads(self.notebook(takehome, name).with_suffix(".json").read_text())
        return data

    def report(self, takehome: str, name: str) -> Report:
        """The result as a Report, as `check` returns it."""
        return report_from_dict(self.result(takehome, name))


def grade_samples(samples: Path, reports: Path) -> GradedCohort:
    """Grade every sample under `samples` into `reports`, revealed, with the kit's batch."""
    outcomes = batch.grade([samples], reports=reports, jobs=JOBS, reveal=True)
    by_key = {(outcome.takehome or "unknown", outcome.submission): outcome for outcome in outcomes}
    return GradedCohort(reports, by_key)
