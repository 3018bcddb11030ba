"""Verdicts from what changed between runs, on submissions written for it (tests/e2e/rerecord/README.md):
a fixture that survives a re-record over the committed ones fails the record line; a request hash that
looks random but never changes does not fail the volatile line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gradelib import cli

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent / "rerecord"


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert cli.main(["check", "replay", str(path), "--json"]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def _lines(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {line["id"]: line for line in document["lines"]}


def test_a_fixture_that_survives_a_re_record_over_the_committed_ones_fails_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = shutil.copytree(HERE / "stale-label-folders", tmp_path / "stale-label-folders")
    lines = _lines(_check(copy, capsys))
    record = lines["record"]
    assert record["outcome"] == "fail", record["message"]
    assert "(e) after recording over the committed fixtures" in record["message"]
    assert "a fixture that survives a re-record lies" in record["message"]
    checks = record["evidence"]["checks"]
    assert checks == {"a_healthy": True, "b_failing": True, "c_twice": True, "e_over_committed": False}
    stale = record["evidence"]["over_committed"]["stale"]
    assert stale and all(entry["replay"] != entry["stub"] for entry in stale.values())
    assert {lines[name]["outcome"] for name in ("identical", "offline", "missing_fixture", "volatile")} == {"pass"}
    assert sorted(p.name for p in (copy / "cassettes").rglob("*.json")) == sorted(
        p.name for p in (HERE / "stale-label-folders" / "cassettes").rglob("*.json")
    ), "the submission's own folder is never written"


def test_a_request_hash_that_never_changes_is_evidence_not_volatile_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = shutil.copytree(HERE / "stable-request-hash", tmp_path / "stable-request-hash")
    lines = _lines(_check(copy, capsys))
    assert {line_id: line["outcome"] for line_id, line in lines.items()} == dict.fromkeys(lines, "pass"), [
        line["message"] for line in lines.values()
    ]
    volatile = lines["volatile"]
    stable = volatile["evidence"]["stable_lookalikes"]
    assert {entry["path"].rsplit(".", 1)[-1] for entry in stable} == {"fixture"} and len(stable) == 20
    assert "look random but are the same in both runs" in volatile["message"]
    assert lines["record"]["evidence"]["checks"]["e_over_committed"] is True
