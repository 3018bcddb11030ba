"""What a reviewer sees, as golden files: a change in a report (JSON, text) or an executed notebook shows as a diff.

Taken from the sample cohort the session's batch graded for real (sandbox, installers, servers);
what legitimately varies between machines and runs (durations, timings, runtime versions) is
masked before comparing.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import ROOT
from golden_util import assert_golden
from notebook_golden import notebook_text
from sample_cohort import GradedCohort

from gradelib.display.render import report_text

pytestmark = pytest.mark.e2e

VARIES = {"duration_s", "install_seconds", "seconds", "time", "python", "node", "wall_seconds", "cache"}
TIMINGS = {"gaps_ms", "gaps_ms_per_run", "outage_gaps_ms"}
DURATION_TEXT = re.compile(r"\b\d+(\.\d+)? ?(s|ms)\b")
CACHE_TEXT = re.compile(r"\((cache hit|installed in <t>)\)")  # whether this machine had it cached already


def normalise(value: Any, key: str = "") -> Any:
    """The report with what varies between runs replaced by a marker."""
    if key in VARIES and value is not None:
        return "<varies>"
    if key in TIMINGS and value is not None:
        return "<timings>"
    if isinstance(value, dict):
        return {k: normalise(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str):
        return DURATION_TEXT.sub("<t>", value)
    return value


@pytest.mark.parametrize(
    ("takehome", "sample"),
    [("replay", "amara-okafor"), ("replay", "farah-nasser"), ("replay", "ines-ferreira"), ("payments", "jonas-berg")],
)
def test_report_json_and_text_match_their_golden_files(
    graded_samples: GradedCohort, takehome: str, sample: str
) -> None:
    report = graded_samples.report(takehome, sample)
    document = normalise(report.to_dict())
    assert_golden(f"report-{takehome}-{sample}.json", json.dumps(document, indent=1, sort_keys=True) + "\n")
    text = CACHE_TEXT.sub("(<cache>)", DURATION_TEXT.sub("<t>", report_text(report)))
    assert_golden(f"report-{takehome}-{sample}.txt", text + "\n")


@pytest.mark.parametrize(("takehome", "sample"), [("replay", "farah-nasser"), ("payments", "jonas-berg")])
def test_executed_notebook_matches_its_golden_file(graded_samples: GradedCohort, takehome: str, sample: str) -> None:
    """What a reviewer reads in the executed report: every cell and output, what varies masked."""
    notebook = graded_samples.notebook(takehome, sample)
    text = notebook_text(notebook, {str(graded_samples.reports.resolve()): "<reports>", str(ROOT): "<kit>"})
    assert "--- error" not in text, "the executed notebook ran every cell"
    assert_golden(f"notebook-{takehome}-{sample}.txt", text)
