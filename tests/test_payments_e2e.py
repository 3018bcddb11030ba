"""The `payments` sample cohort and hostile clients, graded through the real sandbox and gateway."""

from __future__ import annotations

import re
import shutil
import time
import tomllib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, write_tree

from gradelib import clientruns
from gradelib.result import Report
from gradelib.takehomes import payments

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

SAMPLES_DIR = ROOT / "submissions" / "payments"
SAMPLES = sorted(path.name for path in SAMPLES_DIR.iterdir() if path.is_dir())
EXPECTED: dict[str, dict[str, Any]] = tomllib.loads((ROOT / "tests" / "expected_payments.toml").read_text())
LINE_IDS = ["found_defect", "key_scope", "evidence", "explanation", "blast_radius"]
CONTRACT_FACTS = [
    "key_scope", "tests_green_on_own", "tests_red_on_draft", "dropped_payment_on_outage",
    "outage_attempts", "backoff", "slow_distinct_keys",
]  # fmt: skip
HANG_BOUND = clientruns.SCENARIO_LIMITS.wall_seconds + 15  # the transient run's limit, then the rest is skipped
QUICK_BOUND = 20.0
POOL = 4  # the grading machine may have 2 CPUs: more at once only adds noise to timings

HOSTILE_NOTE = """\
# Note

<script>alert(document.cookie)</script>
<img src=x onerror="alert(1)">
<a href="javascript:alert(3)" onclick="alert(4)">raw link</a>

[totally safe](javascript:alert(2))
"""
HOSTILE: dict[str, dict[str, str]] = {
    "hangs": {
        "checkout.mjs": """
            export async function chargeWithRetry(amount) {
              await new Promise(() => setInterval(() => {}, 1000)); // never settles, keeps node alive
            }
        """,
    },
    "throws-on-import": {
        "checkout.mjs": """
            throw new Error("boom while importing");
            export async function chargeWithRetry() {}
        """,
    },
    "no-export": {
        "checkout.mjs": "export async function charge(amount) { return { ok: true }; }\n",
        "NOTE.md": HOSTILE_NOTE,
    },
    "not-a-module": {
        "checkout.mjs": "module.exports = { chargeWithRetry: async () => ({ ok: true }) };\n",
    },
    "floods": {
        "checkout.mjs": """
            const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
            export async function chargeWithRetry(amount) {
              for (;;) {
                try {
                  await fetch(`${GATEWAY}/charge`, {
                    method: "POST",
                    headers: { "content-type": "application/json" },
                    body: JSON.stringify({ amount, idempotencyKey: crypto.randomUUID() }),
                  });
                } catch {}
              }
            }
        """,
    },
}


@dataclass(frozen=True)
class Graded:
    report: Report
    seconds: float


def _grade(path: Path) -> Graded:
    started = time.monotonic()
    report = payments.check(path)
    return Graded(report, time.monotonic() - started)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Mapping[str, Graded]:
    """Every sample and every hostile client, graded once, side by side (the 30 s hang first)."""
    hostile_root = tmp_path_factory.mktemp("hostile")
    paths = {name: write_tree(hostile_root / name, files) for name, files in HOSTILE.items()}
    paths |= {name: SAMPLES_DIR / name for name in SAMPLES}
    with ThreadPoolExecutor(POOL) as pool:
        futures = {name: pool.submit(_grade, path) for name, path in paths.items()}
        return {name: future.result() for name, future in futures.items()}


def test_every_sample_has_expected_facts() -> None:
    assert sorted(EXPECTED) == SAMPLES


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_facts_and_tiers(graded: Mapping[str, Graded], sample: str) -> None:
    report, expected = graded[sample].report, EXPECTED[sample]
    facts = report.facts
    assert [line.id for line in report.lines] == LINE_IDS
    assert list(facts)[: len(CONTRACT_FACTS)] == CONTRACT_FACTS
    measured = {key: facts[key] for key in CONTRACT_FACTS}
    wanted = {key: expected.get(key) for key in CONTRACT_FACTS}
    assert measured == wanted, report.to_json(indent=1)[:4000]
    assert facts["runtime_dependencies"] == expected.get("runtime_dependencies", [])
    flags = report.environment["flags"]
    assert len(flags) == len(facts["runtime_dependencies"]) and all("no new dependencies" in f for f in flags)
    assert report.line("key_scope").tier == expected["key_scope_tier"]
    assert report.line("found_defect").tier == expected.get("found_defect_tier")
    for line_id in ("evidence", "explanation", "blast_radius"):
        assert report.line(line_id).outcome == "needs_review"
        assert report.line(line_id).tier is None
    assert not (SAMPLES_DIR / sample / ".pending-charges").exists(), "the original was written"
    assert not (SAMPLES_DIR / sample / ".checkout").exists(), "the original was written"
    assert not (SAMPLES_DIR / sample / "node_modules").exists(), "the installed packages went into the original"


def test_the_strong_sample_scores_and_the_rest_await_a_reviewer(graded: Mapping[str, Graded]) -> None:
    strong = graded["kemi-adeyemi"].report
    assert (strong.line("found_defect").outcome, strong.line("found_defect").points) == ("pass", 2.0)
    assert (strong.line("key_scope").outcome, strong.line("key_scope").points) == ("pass", 2.0)
    weak = graded["iris-moreau"].report.line("key_scope")
    assert (weak.outcome, weak.points) == ("fail", 0.0)
    assert "green on the draft too" in graded["iris-moreau"].report.line("found_defect").message
    assert "silently dropped payment" in graded["leo-fontaine"].report.line("found_defect").message
    rewrite = graded["mia-castillo"].report
    assert rewrite.facts["draft_rewrite"] is True
    assert "rewrite of the draft" in rewrite.line("found_defect").message


def test_key_scope_evidence_has_the_raw_request_logs(graded: Mapping[str, Graded]) -> None:
    evidence = graded["jonas-berg"].report.line("key_scope").evidence
    transient = evidence["transient"]["requests"]
    assert [row["status"] for row in transient] == [503, 200]
    assert set(transient[0]) == {"index", "time", "key", "attempt", "status", "charged"}
    restart = evidence["restart"]["requests"]
    assert [(row["run"], row["status"], row["charged"]) for row in restart] == [(1, "hung", True), (2, 200, True)]
    assert restart[0]["key"] != restart[1]["key"]


def _client_error(graded: Mapping[str, Graded], name: str) -> str:
    report = graded[name].report
    line = report.line("key_scope")
    assert line.outcome == "error", line.message
    assert report.facts["key_scope"] == "unknown"
    assert report.line("found_defect").outcome == "needs_review"  # no tests: nothing to run
    return line.message


def test_a_client_that_hangs_is_killed_in_bounded_time(graded: Mapping[str, Graded]) -> None:
    message = _client_error(graded, "hangs")
    assert "hung" in message and "killed" in message
    assert graded["hangs"].seconds < HANG_BOUND
    assert graded["hangs"].report.facts["outage_attempts"] == 0  # later scenarios skipped


def test_a_client_that_throws_on_import_is_reported(graded: Mapping[str, Graded]) -> None:
    message = _client_error(graded, "throws-on-import")
    assert "cannot be imported" in message and "boom while importing" in message
    assert graded["throws-on-import"].seconds < QUICK_BOUND


def test_a_client_without_charge_with_retry_is_reported(graded: Mapping[str, Graded]) -> None:
    message = _client_error(graded, "no-export")
    assert "does not export a function chargeWithRetry" in message and "charge" in message
    assert graded["no-export"].seconds < QUICK_BOUND


def test_a_file_that_is_not_an_es_module_is_reported(graded: Mapping[str, Graded]) -> None:
    message = _client_error(graded, "not-a-module")
    assert "cannot be imported as an ES module" in message and "module is not defined" in message


def test_a_client_that_floods_the_gateway_is_stopped(graded: Mapping[str, Graded]) -> None:
    message = _client_error(graded, "floods")
    assert "flooded the gateway" in message
    facts = graded["floods"].report.facts
    assert clientruns.MAX_REQUESTS < facts["transient_requests"] < clientruns.MAX_REQUESTS * 4
    assert graded["floods"].seconds < QUICK_BOUND


def test_a_hostile_note_is_shown_without_script(graded: Mapping[str, Graded]) -> None:
    html = graded["no-export"].report.line("evidence").evidence["note_html"].lower()
    assert "<h1>note</h1>" in html
    assert "<script" not in html and "<img" not in html
    assert not re.search(r"<[^>]*\son\w+\s*=", html), html  # no event handler attribute
    assert not re.search(r"(href|src)\s*=\s*[\"']?\s*javascript:", html), html
    assert "totally safe</a>" in html and "raw link</a>" in html


def test_one_literal_key_for_every_order_is_not_rewarded(tmp_path: Path) -> None:
    """Persisting "the" key is not the same as one key per order: separate orders would merge."""
    sub = tmp_path / "constant-key"
    sub.mkdir()
    (sub / "checkout.mjs").write_text(
        "const GATEWAY = process.env.GATEWAY_URL ?? 'http://localhost:8099';\n"
        "export async function chargeWithRetry(amount) {\n"
        "  for (let i = 0; i < 4; i++) {\n"
        "    const res = await fetch(`${GATEWAY}/charge`, { method: 'POST',\n"
        "      headers: {'content-type': 'application/json'},\n"
        "      body: JSON.stringify({ amount, idempotencyKey: 'order-key' }) });\n"
        "    if (res.ok) return res.json();\n"
        "    await new Promise((r) => setTimeout(r, 100 * 2 ** i));\n"
        "  }\n"
        "  throw new Error('gave up');\n"
        "}\n"
    )
    report = payments.check(sub)
    key_scope = report.line("key_scope")
    assert key_scope.outcome == "fail" and key_scope.tier == "weak"
    assert "the same key for different orders" in key_scope.message
    assert report.facts["same_key_for_different_orders"] is True
