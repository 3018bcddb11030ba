"""The sample cohort and a few hostile consumers, graded through the real sandbox and deliverer."""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SAMPLES
from gradelib import cli
from gradelib.result import Report

from gradelib_webhooks import PLUGIN
from gradelib_webhooks.runs import draft_path

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

EXPECTED: dict[str, dict[str, Any]] = tomllib.loads((ROOT / "tests" / "expected.toml").read_text())
LINE_IDS = ["exactly_once", "ordering", "signature", "explanation"]
FACT_KEYS = ("dedupe", "out_of_order", "forged_applied", "genuine_lost_to_forgery")
FACT_DEFAULTS = {"forged_applied": False, "genuine_lost_to_forgery": False}


@pytest.fixture(scope="module")
def graded() -> dict[str, Report]:
    """Every sample graded once (one at a time: the machine is shared)."""
    return {path.name: PLUGIN.check(path) for path in sorted(SAMPLES.iterdir()) if path.is_dir()}


def test_every_sample_has_expectations(graded: dict[str, Report]) -> None:
    assert sorted(graded) == sorted(EXPECTED)


@pytest.mark.parametrize("sample", sorted(EXPECTED))
def test_sample_verdicts(graded: dict[str, Report], sample: str) -> None:
    report, expected = graded[sample], EXPECTED[sample]
    assert [line.id for line in report.lines] == LINE_IDS
    for line_id in ("exactly_once", "ordering", "signature"):
        line = report.line(line_id)
        assert [line.outcome, line.tier] == expected[line_id], f"{line_id}: {line.message}"
    assert report.line("explanation").outcome == "needs_review"
    for key in FACT_KEYS:
        assert report.facts[key] == expected.get(key, FACT_DEFAULTS.get(key)), key
    assert report.facts["consumer_problem"] is None
    assert report.facts["crashes"] == 0


def test_the_draft_sample_is_the_packaged_draft(graded: dict[str, Report]) -> None:
    assert (SAMPLES / "bruno-draft" / "consumer.mjs").read_bytes() == draft_path().read_bytes()
    assert graded["bruno-draft"].facts["dedupe"] == "in_memory"  # the seeded defect, and only it
    assert graded["bruno-draft"].facts["scenarios_clean"] == {
        "duplicates": True,
        "slow": True,
        "restart": False,
        "out_of_order": True,
        "bad_signature": True,
    }


def test_check_json_prints_the_stable_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check", "webhooks", str(SAMPLES / "bruno-draft"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document) == ["takehome", "submission", "lines", "facts", "environment", "total", "max_total"]
    assert document["takehome"] == "webhooks" and document["submission"] == "bruno-draft"
    for line in document["lines"]:
        assert set(line) == {"id", "outcome", "points", "max_points", "tier", "message", "evidence"}
    assert document["max_total"] == 8 and document["total"] is None  # the note awaits a reviewer


def test_a_consumer_that_never_listens_fails_fast(make_submission: Callable[..., Path]) -> None:
    path = make_submission("exits", {"consumer.mjs": "process.exit(3);\n", "NOTE.md": "# Note\n"})
    report = PLUGIN.check(path)
    line = report.line("exactly_once")
    assert line.outcome == "fail" and "exited with code 3 before listening" in line.message
    assert report.line("signature").outcome == "fail"  # skipped: the duplicates run already showed it


def test_no_consumer_is_an_error(make_submission: Callable[..., Path]) -> None:
    report = PLUGIN.check(make_submission("empty", {"NOTE.md": "# Note\n"}))
    assert report.line("exactly_once").outcome == "error"
    assert "no consumer.mjs or consumer.py" in report.line("exactly_once").message


def test_a_shipped_ledger_and_a_forged_result_line_count_for_nothing(make_submission: Callable[..., Path]) -> None:
    answers = {
        "applied": ["evt_dup_001", "evt_dup_002", "evt_dup_003"],
        "balances": {"acct_ana": 2200, "acct_bo": 2500},
    }
    fake = json.dumps({"deliveries": [], "starts": [{"why": "start", "ready": True}], "problem": None})
    consumer = f"""
        import {{ createServer }} from "node:http";
        console.log('GRADELIB_RESULT 0000 {fake}');
        process.stdout.write('GRADELIB_RESULT  {fake}\\n');
        createServer((req, res) => {{ req.resume(); req.on("end", () => res.writeHead(200).end()); }})
          .listen(Number(process.env.PORT), "127.0.0.1");
    """
    path = make_submission(
        "pretends", {"consumer.mjs": consumer, "state/ledger.json": json.dumps(answers), "NOTE.md": "# Note\n"}
    )
    report = PLUGIN.check(path)
    line = report.line("exactly_once")
    assert line.outcome == "fail" and "no state/ledger.json" in line.message
    assert report.line("signature").outcome == "fail"
    assert len(line.evidence["duplicates"]["deliveries"]) == 6  # the kit's own log, not the forged one
