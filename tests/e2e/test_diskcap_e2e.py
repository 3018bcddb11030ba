"""Bounded disk per grading, end to end: a sample that fills its disk in a real batch beside a clean one."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import SAMPLES

from gradelib import batch
from gradelib.gradebook import Gradebook
from gradelib.sandbox import diskcap

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a capped tmpfs needs root")

FILLER_RUN_SH = """#!/usr/bin/env bash
# writes 8 MiB files (under the per-file cap) until something stops it
i=0
while :; do head -c 8388608 /dev/zero > "fill-$i.bin" 2>/dev/null || true; i=$((i+1)); done
"""


@needs_root
def test_a_submission_that_fills_its_disk_is_stopped_and_nobody_else_notices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(diskcap.ENV_DISK_MIB, "64")
    cohort = tmp_path / "cohort"
    shutil.copytree(SAMPLES / "replay" / "amara-okafor", cohort / "amara-okafor")
    filler = shutil.copytree(SAMPLES / "replay" / "amara-okafor", cohort / "disk-filler")
    (filler / "run.sh").write_text(FILLER_RUN_SH)
    reports = tmp_path / "reports"
    scratch = tmp_path / "t"  # the batch's temporary folders, the gradings' capped workspaces among them
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", None)  # this process reads TMPDIR again
    outcomes = {o.submission: o for o in batch.grade([cohort], reports=reports, jobs=2, reveal=True)}
    assert outcomes["amara-okafor"].status == "graded" and outcomes["amara-okafor"].total == 100.0
    assert outcomes["disk-filler"].status == "graded", outcomes["disk-filler"].error
    result = json.loads((reports / "replay" / "disk-filler.json").read_text())
    identical = next(line for line in result["lines"] if line["id"] == "identical")
    assert identical["outcome"] == "error"
    assert "disk limit reached" in identical["message"] and "64 MiB" in identical["message"]
    assert "disk limit reached" in (reports / "replay" / "disk-filler.html").read_text()
    with Gradebook(reports / "gradebook.sqlite") as book:
        assert {run.status for run in book.runs("replay")} == {"graded"}
    # What the grading itself held: its capped workspace, gone with it; nothing of the filler's is anywhere else.
    left = [path for path in tmp_path.rglob("fill-*.bin")]
    assert not left, left
    kept = sum(path.stat().st_size for path in scratch.rglob("*") if path.is_file() and not path.is_symlink())
    assert kept < 2**20, f"{kept} bytes left in the batch's temporary folders"
    assert _reports_bytes(reports) < 16 * 2**20, "the reports hold evidence, not what the run wrote"


def _reports_bytes(reports: Path) -> int:
    return sum(path.stat().st_size for path in reports.rglob("*") if path.is_file() and not path.is_symlink())
