"""What a reviewer sees, as golden files: a change in a report (JSON, text) or an executed notebook shows as a diff.

Taken from the sample cohort the session's batch graded for real (sandbox, installers, servers);
what legitimately varies between machines and runs (durations, timings, runtime versions) is
masked before comparing, and so is what the registry decides rather than the kit: the packages an
open requirement (`openai>=1.40,<4`) resolves to change whenever a new release is published, so an
environment installed without a lockfile records its declaration and its outcome, not its versions.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from golden_util import assert_golden
from notebook_golden import notebook_text
from sample_cohort import GradedCohort

from gradelib.display.render import report_text

pytestmark = pytest.mark.e2e

VARIES = {"duration_s", "install_seconds", "seconds", "time", "python", "node", "wall_seconds", "cache"}
RESOLVED = "<resolved by the registry>"
LOCKFILE_ECOSYSTEM = {
    "uv.lock": "python", "poetry.lock": "python", "Pipfile.lock": "python", "pdm.lock": "python",
    "package-lock.json": "node", "npm-shrinkwrap.json": "node", "yarn.lock": "node", "pnpm-lock.yaml": "node",
}  # fmt: skip
TIMINGS = {"gaps_ms", "gaps_ms_per_run", "outage_gaps_ms"}
DURATION_TEXT = re.compile(r"\b\d+(\.\d+)? ?(s|ms)\b")
CACHE_TEXT = re.compile(r"\((cache hit|installed in <t>)\)")  # whether this machine had it cached already


def unlocked_packages(environment: dict[str, Any]) -> dict[str, Any]:
    """The environment with each install that no honoured lockfile pinned listed as resolved, not by version
    (its cache key too, which names the interpreter it was made for, and what its setup fetched)."""
    locks = environment.get("lockfiles") or []
    locked = {LOCKFILE_ECOSYSTEM.get(Path(str(lock.get("file"))).name) for lock in locks if lock.get("honoured")}
    installed = [
        install if install.get("ecosystem") in locked else _resolved(install)
        for install in environment.get("installed") or []
    ]
    return {**environment, "installed": installed}


def _resolved(install: dict[str, Any]) -> dict[str, Any]:
    setup = install.get("setup")
    fetched = {**setup, "network": RESOLVED} if isinstance(setup, dict) and "network" in setup else setup
    return {**install, "key": RESOLVED, "packages": RESOLVED} | ({"setup": fetched} if setup else {})


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
    document = report.to_dict()
    document["environment"] = unlocked_packages(document["environment"])
    document = normalise(document)
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
