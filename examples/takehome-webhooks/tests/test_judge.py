"""The pure parts: scenarios as data, the ledger's shape, the verdicts, the result line, the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLES
from gradelib import takehomes
from gradelib.takehome import parse_result
from gradelib.takehomes.rubric import default_rubric

from gradelib_webhooks import PLUGIN, deliverer
from gradelib_webhooks.judge import Ledger, judge, parse_ledger
from gradelib_webhooks.scenarios import SCENARIO_NAMES, load


def ledger(applied: list[str], balances: dict[str, int]) -> Ledger:
    return parse_ledger(json.dumps({"applied": applied, "balances": balances}).encode())


def test_every_scenario_is_packaged_and_expects_something() -> None:
    scenarios = load()
    assert tuple(scenarios) == SCENARIO_NAMES
    for scenario in scenarios.values():
        assert scenario.genuine and scenario.expected_balances()
    assert load()["out_of_order"].refunds() == {"evt_ooo_003": "evt_ooo_002"}
    assert load()["bad_signature"].forged_amounts() == {"evt_sig_002": 250000}


def test_the_plugin_is_found_through_its_entry_point() -> None:
    assert "webhooks" in takehomes.names()
    assert takehomes.load("webhooks") is PLUGIN
    assert default_rubric("webhooks").line_ids == ("exactly_once", "ordering", "signature", "explanation")
    assert PLUGIN.notebook().is_file()
    for sample in sorted(SAMPLES.iterdir()):
        assert takehomes.detect(sample) == "webhooks", sample.name


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (None, "no state/ledger.json"),
        (b"{not json", "not JSON"),
        (b"[]", "not a JSON object"),
        (b'{"applied": {}, "balances": {}}', '"applied"'),
        (b'{"applied": [1], "balances": {}}', "event ids"),
        (b'{"applied": [], "balances": {"a": 1.5}}', "whole numbers"),
    ],
    ids=["missing", "not-json", "array", "applied-not-list", "ids-not-strings", "fractional-cents"],
)
def test_a_ledger_not_in_the_handouts_shape_says_why(document: bytes | None, problem: str) -> None:
    found = parse_ledger(document)
    assert found.problem is not None and problem in found.problem


def test_clean_ledger() -> None:
    scenario = load()["duplicates"]
    verdict = judge(
        scenario, ledger(["evt_dup_001", "evt_dup_002", "evt_dup_003"], {"acct_ana": 2200, "acct_bo": 2500})
    )
    assert verdict.clean, verdict.describe()


def test_doubled_and_lost_events() -> None:
    scenario = load()["restart"]
    verdict = judge(scenario, ledger(["evt_rst_001", "evt_rst_001", "evt_rst_002"], {"acct_ana": 3200}))
    assert verdict.doubled == ("evt_rst_001",)
    assert verdict.lost == ("evt_rst_003",)
    assert not verdict.balances_ok and not verdict.clean


def test_refund_before_its_charge() -> None:
    scenario = load()["out_of_order"]
    early = judge(scenario, ledger(["evt_ooo_001", "evt_ooo_003", "evt_ooo_002"], {"acct_ana": 1200}))
    assert early.early == ("evt_ooo_003",) and early.balances_ok
    late = judge(scenario, ledger(["evt_ooo_001", "evt_ooo_002", "evt_ooo_003"], {"acct_ana": 1200}))
    assert late.clean


def test_forgeries_applied_are_seen_by_id_or_by_amount() -> None:
    scenario = load()["bad_signature"]
    unsigned = judge(
        scenario, ledger(["evt_sig_001", "evt_sig_004", "evt_sig_002"], {"acct_ana": 1250, "acct_bo": 7000})
    )
    assert unsigned.forged_applied == ("evt_sig_004",)
    tampered = judge(scenario, ledger(["evt_sig_001", "evt_sig_002"], {"acct_ana": 251000}))
    assert tampered.forged_applied == ("evt_sig_002",)
    poisoned = judge(scenario, ledger(["evt_sig_001"], {"acct_ana": 1000}))
    assert poisoned.lost == ("evt_sig_002",) and not poisoned.forged_applied


def test_only_the_line_with_this_runs_key_counts() -> None:
    forged = 'GRADELIB_RESULT guess {"deliveries": []}'
    real = 'GRADELIB_RESULT k3y {"deliveries": [{"n": 1}]}'
    assert parse_result(f"{real}\n{forged}\n", "k3y") == {"deliveries": [{"n": 1}]}
    assert parse_result(forged, "k3y") is None
    assert parse_result(real, "") is None


def test_bodies_are_the_same_bytes_on_every_grading() -> None:
    event = {"id": "evt_1", "type": "charge.succeeded", "charge": "ch_1", "account": "acct_a", "amount": 5}
    assert deliverer.body_of(event, 0) == deliverer.body_of(event, 0)
    assert json.loads(deliverer.body_of(event, 0, amount=9))["data"]["amount"] == 9
    assert deliverer.sign("s", b"x") == deliverer.sign("s", b"x") != deliverer.sign("t", b"x")


def test_the_deliverer_imports_only_the_standard_library() -> None:
    source = Path(deliverer.__file__).read_text()
    assert "gradelib" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))
