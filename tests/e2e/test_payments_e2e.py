"""The `payments` sample cohort and hostile clients, graded through the real sandbox and gateway."""

from __future__ import annotations

import difflib
import json
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
from sample_cohort import GradedCohort

from gradelib import cli
from gradelib.result import Report
from gradelib.takehomes import payments
from gradelib.takehomes.payments import clientruns

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]

SAMPLES_DIR = ROOT / "submissions" / "payments"
SAMPLES = sorted(path.name for path in SAMPLES_DIR.iterdir() if path.is_dir())
EXPECTED: dict[str, dict[str, Any]] = tomllib.loads((Path(__file__).parent / "expected_payments.toml").read_text())
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
def graded(tmp_path_factory: pytest.TempPathFactory, graded_samples: GradedCohort) -> Mapping[str, Graded]:
    """Every hostile client graded once, side by side (the 30 s hang first); the samples as the session's batch did."""
    hostile_root = tmp_path_factory.mktemp("hostile")
    paths = {name: write_tree(hostile_root / name, files) for name, files in (HOSTILE | REALISTIC).items()}
    with ThreadPoolExecutor(POOL) as pool:
        futures = {name: pool.submit(_grade, path) for name, path in paths.items()}
        found = {name: future.result() for name, future in futures.items()}
    for name in SAMPLES:
        outcome = graded_samples.outcome("payments", name)
        found[name] = Graded(graded_samples.report("payments", name), outcome.seconds)
    return found


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
    assert set(transient[0]) == {"index", "time", "key", "attempt", "status", "charged", "idempotency"}
    restart = evidence["restart"]["requests"]
    assert [(row["run"], row["status"], row["charged"]) for row in restart] == [(1, "hung", True), (2, 200, True)]
    assert restart[0]["key"] != restart[1]["key"]


def _client_error(graded: Mapping[str, Graded], name: str) -> str:
    report = graded[name].report
    line = report.line("key_scope")
    assert (line.outcome, line.points) == ("fail", 0.0), line.message  # the candidate's failure, with a number
    assert report.facts["key_scope"] == "unknown"
    assert report.line("found_defect").outcome == "needs_review"  # no tests: nothing to run
    return line.message


def test_a_client_that_hangs_is_killed_in_bounded_time(graded: Mapping[str, Graded]) -> None:
    message = _client_error(graded, "hangs")
    assert "hung" in message and "killed" in message
    assert graded["hangs"].seconds < HANG_BOUND
    assert graded["hangs"].report.facts["outage_attempts"] is None  # later scenarios skipped: not measured


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
    assert "<strong>note</strong>" in html and "<h1" not in html
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


# -- issue 12: realistic clients outside submissions/ -------------------------------------
GATEWAY_CONST = 'const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";\n'
POST = """
    async function post(amount, idempotencyKey, signal) {
      return fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal,
      });
    }
"""
# A tiny gateway inside a node:test file: answers from a script, logs the keys it saw.
TEST_GATEWAY = """
    import { test, before, after, beforeEach } from "node:test";
    import assert from "node:assert/strict";
    import { createServer } from "node:http";

    let server;
    let seen;
    let script;
    let chargeWithRetry;
    before(async () => {
      server = createServer((req, res) => {
        let raw = "";
        req.on("data", (c) => (raw += c));
        req.on("end", () => {
          seen.push(JSON.parse(raw).idempotencyKey);
          const status = script[Math.min(seen.length - 1, script.length - 1)];
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(status === 200 ? { ok: true, id: "ch_1" } : { ok: false }));
        });
      });
      await new Promise((r) => server.listen(0, "127.0.0.1", r));
      process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
      ({ chargeWithRetry } = await import("../checkout.mjs"));
    });
    after(() => server.close());
    beforeEach(() => { seen = []; script = [200]; });
"""
REALISTIC: dict[str, dict[str, str]] = {
    # Full-jitter exponential backoff, one key per call, a timeout per attempt.
    "full-jitter": {
        "checkout.mjs": GATEWAY_CONST
        + POST
        + """
            const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
            export async function chargeWithRetry(amount) {
              const key = crypto.randomUUID();
              for (let n = 0; n < 4; n++) {
                if (n > 0) await sleep(Math.random() * Math.min(2000, 100 * 2 ** n));
                try {
                  const res = await post(amount, key, AbortSignal.timeout(1000));
                  if (res.ok) return res.json();
                  const retryable = res.status >= 500 || res.status === 409 || res.status === 429;
                  if (!retryable) throw new Error(`refused ${res.status}`);
                } catch (error) {
                  if (String(error.message).startsWith("refused")) throw error;
                }
              }
              throw new Error("charge failed after 4 attempts");
            }
        """,
    },
    # Its API resolves {ok: false} where the draft throws: its test of that is red on the
    # draft and on the kit's fixes alike, so it proves nothing about the key.
    "resolves-ok-false": {
        "checkout.mjs": GATEWAY_CONST
        + """
            export async function chargeWithRetry(amount, attempts = 3) {
              const idempotencyKey = crypto.randomUUID();
              for (let i = 0; i < attempts; i++) {
                const res = await fetch(`${GATEWAY}/charge`, {
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: JSON.stringify({ amount, idempotencyKey }),
                });
                if (res.ok) return res.json();
                await new Promise((r) => setTimeout(r, 50 * (i + 1)));
              }
              return { ok: false, error: "charge failed after " + attempts + " attempts" };
            }
        """,
        "test/checkout.test.mjs": TEST_GATEWAY
        + """
            test("charges once on the happy path", async () => {
              assert.deepEqual(await chargeWithRetry(100), { ok: true, id: "ch_1" });
            });
            test("gives up with ok: false when the gateway stays down", async () => {
              script = [503];
              assert.equal((await chargeWithRetry(100)).ok, false);
            });
        """,
    },
    # The draft's loop and backoff kept as they are; only the key's persistence and helpers added.
    "persistence-only": {
        "checkout.mjs": """
            // checkout.mjs: charge a payment through the gateway, retrying transient failures.
            import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
            const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
            const KEYS = ".keys";

            // The key outlives the process: a restart between attempts sends the same one.
            function keyPath(amount) {
              return `${KEYS}/order-${amount}.key`;
            }
            function loadKey(amount) {
              try {
                return readFileSync(keyPath(amount), "utf8");
              } catch {
                return null;
              }
            }
            function saveKey(amount, key) {
              mkdirSync(KEYS, { recursive: true });
              writeFileSync(`${keyPath(amount)}.tmp`, key);
              renameSync(`${keyPath(amount)}.tmp`, keyPath(amount));
            }
            function forgetKey(amount) {
              rmSync(keyPath(amount), { force: true });
            }

            export async function chargeWithRetry(amount, attempts = 3) {
              let idempotencyKey = loadKey(amount);
              if (!idempotencyKey) {
                idempotencyKey = crypto.randomUUID();
                saveKey(amount, idempotencyKey);
              }
              for (let i = 0; i < attempts; i++) {
                const res = await fetch(`${GATEWAY}/charge`, {
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: JSON.stringify({
                    amount,
                    idempotencyKey,
                  }),
                });
                if (res.ok) {
                  forgetKey(amount);
                  return res.json();
                }
                await new Promise((r) => setTimeout(r, 50 * (i + 1)));
              }
              throw new Error("charge failed after " + attempts + " attempts");
            }
        """,
    },
    # A full rewrite that also removes the backoff: a class, a queue of attempts, no waiting.
    "rewrite-no-backoff": {
        "checkout.mjs": """
            class PaymentClient {
              constructor(baseUrl = process.env.GATEWAY_URL ?? "http://localhost:8099", maxAttempts = 4) {
                this.baseUrl = baseUrl;
                this.maxAttempts = maxAttempts;
              }
              async charge(amount) {
                const idempotencyKey = crypto.randomUUID();
                let attempt = 0;
                let last;
                while (attempt++ < this.maxAttempts) {
                  last = await fetch(new URL("/charge", this.baseUrl), {
                    method: "POST",
                    headers: { "content-type": "application/json" },
                    body: JSON.stringify({ amount, idempotencyKey }),
                  }).catch((cause) => ({ ok: false, status: 0, cause }));
                  if (last.ok) return last.json();
                }
                throw new Error(`payment failed (${last.status}) after ${this.maxAttempts} attempts`);
              }
            }
            const client = new PaymentClient();
            export const chargeWithRetry = (amount) => client.charge(amount);
        """,
    },
    # Cannot be imported: a syntax error. Its test file cannot load either: the runner never ran.
    "syntax-error": {
        "checkout.mjs": """
            export async function chargeWithRetry(amount {
              return { ok: true };
            }
        """,
        "test/checkout.test.mjs": TEST_GATEWAY
        + """
            test("charges", async () => {
              assert.equal((await chargeWithRetry(1)).ok, true);
            });
        """,
    },
    # Dies without a result: the process exits in the middle of the call.
    "exits": {
        "checkout.mjs": """
            export async function chargeWithRetry(amount) {
              console.error(new Error("GATEWAY_SECRET is not configured"));
              process.exit(1);
            }
        """,
    },
    # One key for every order of the process: the second order (another amount) is refused.
    "one-key-two-amounts": {
        "checkout.mjs": GATEWAY_CONST
        + POST
        + """
            const ORDER_KEY = crypto.randomUUID(); // created once, when the module loads
            export async function chargeWithRetry(amount) {
              for (let i = 0; i < 4; i++) {
                const res = await post(amount, ORDER_KEY);
                if (res.ok) return res.json();
                if (res.status !== 503) throw new Error(`gateway answered ${res.status}`);
                await new Promise((r) => setTimeout(r, 100 * 2 ** i));
              }
              throw new Error("charge failed");
            }
        """,
    },
    # The article's fix and a node:test suite with one test that catches the key.
    "test-catches-key": {
        "checkout.mjs": GATEWAY_CONST
        + """
            export async function chargeWithRetry(amount, attempts = 3) {
              const idempotencyKey = crypto.randomUUID(); // one key for every attempt of this charge
              for (let i = 0; i < attempts; i++) {
                const res = await fetch(`${GATEWAY}/charge`, {
                  method: "POST",
                  headers: { "content-type": "application/json" },
                  body: JSON.stringify({ amount, idempotencyKey }),
                });
                if (res.ok) return res.json();
                await new Promise((r) => setTimeout(r, 50 * (i + 1)));
              }
              throw new Error("charge failed after " + attempts + " attempts");
            }
        """,
        "test/checkout.test.mjs": TEST_GATEWAY
        + """
            test("charges the amount", async () => {
              assert.deepEqual(await chargeWithRetry(100), { ok: true, id: "ch_1" });
            });
            test("a retry after a 503 carries the same key", async () => {
              script = [503, 200];
              await chargeWithRetry(100);
              assert.equal(seen.length, 2);
              assert.equal(new Set(seen).size, 1);
            });
        """,
    },
}


def test_full_jitter_backoff_counts_as_backoff(graded: Mapping[str, Graded]) -> None:
    facts = graded["full-jitter"].report.facts
    assert (facts["backoff"], facts["key_scope"], facts["outage_attempts"]) == (True, "per_call", 4)
    assert facts["slow_key_in_use_answers"] >= 1  # its 1 s timeout fires while the first is in flight
    assert facts["slow_distinct_keys"] == 1


def test_gradings_in_a_row_give_the_same_facts(graded: Mapping[str, Graded], tmp_path: Path) -> None:
    """Jittered waits come from the driver's seeded Math.random: the same on every grading (the module's
    grading of it, side by side with others, and one more here, alone, in another folder)."""
    sub = write_tree(tmp_path / "again" / "full-jitter", REALISTIC["full-jitter"])
    kept = [*CONTRACT_FACTS, "same_key_for_different_orders", "transient_requests", "restart_same_key"]
    first = {key: graded["full-jitter"].report.facts[key] for key in kept}
    again = {key: payments.check(sub).facts[key] for key in kept}
    assert first["backoff"] is True
    assert again == first


def test_a_suite_red_on_the_draft_for_its_own_api_is_not_strong(graded: Mapping[str, Graded]) -> None:
    report = graded["resolves-ok-false"].report
    line = report.line("found_defect")
    assert (line.outcome, line.tier) == ("needs_review", None)
    assert (report.facts["tests_green_on_own"], report.facts["tests_red_on_draft"]) == (True, False)
    assert "red on the kit's minimal fixes too" in line.message
    red_on = line.evidence["tests"]["red_on"]
    wanted = ["gives up with ok: false when the gateway stays down"]
    assert red_on["own"] == [] and red_on["draft"] == red_on["per_call_fix"] == red_on["persisted_fix"] == wanted


def test_a_node_test_that_catches_the_key_is_strong(graded: Mapping[str, Graded]) -> None:
    report = graded["test-catches-key"].report
    line = report.line("found_defect")
    assert (line.outcome, line.tier, line.points) == ("pass", "strong", 2.0)
    assert report.facts["tests_red_on_draft"] is True
    assert line.evidence["tests"]["catches_the_key"] == [
        {"test": "a retry after a 503 carries the same key", "green_on": ["per_call_fix", "persisted_fix"]}
    ]
    assert line.evidence["tests"]["own"]["read_as"] == "tap"


def test_only_adding_persistence_to_the_draft_is_not_a_rewrite(graded: Mapping[str, Graded]) -> None:
    report = graded["persistence-only"].report
    assert report.facts["key_scope"] == "persisted"
    assert report.facts["draft_rewrite"] is False and report.facts["backoff"] is True
    assert "rewrite" not in report.line("found_defect").message


def test_a_full_rewrite_without_backoff_is_a_rewrite(graded: Mapping[str, Graded]) -> None:
    report = graded["rewrite-no-backoff"].report
    assert report.facts["draft_rewrite"] is True and report.facts["backoff"] is False
    assert "rewrite of the draft that also removed the backoff" in report.line("found_defect").message


@pytest.mark.parametrize(
    ("name", "said"),
    [("syntax-error", "SyntaxError: "), ("exits", "Error: GATEWAY_SECRET is not configured")],
    ids=["syntax-error", "exits"],
)
def test_a_broken_client_fails_with_its_error_line_and_null_facts(
    graded: Mapping[str, Graded], name: str, said: str
) -> None:
    report = graded[name].report
    line = report.line("key_scope")
    assert (line.outcome, line.points) == ("fail", 0.0)
    assert said in line.message and "Node.js v" not in line.message and "gradelib-" not in line.message
    facts = report.facts
    assert [facts[key] for key in CONTRACT_FACTS[3:]] == [None] * 4  # outage and slow never measured
    assert facts["key_scope"] == "unknown"


def test_a_test_file_that_cannot_load_is_neither_green_nor_red(graded: Mapping[str, Graded]) -> None:
    report = graded["syntax-error"].report
    assert (report.facts["tests_green_on_own"], report.facts["tests_red_on_draft"]) == (None, None)
    line = report.line("found_defect")
    assert line.outcome == "needs_review" and "never ran" in line.message and "SyntaxError" in line.message


def test_one_key_for_two_amounts_is_flagged(graded: Mapping[str, Graded]) -> None:
    report = graded["one-key-two-amounts"].report
    line = report.line("key_scope")
    assert (line.outcome, line.tier) == ("fail", "weak")
    assert "different amounts" in line.message
    assert report.facts["key_reused_for_other_amount"] is True
    rows = line.evidence["orders"]["requests"]
    assert [(row["status"], row["idempotency"]) for row in rows][:2] == [(200, None), (400, "amount_mismatch")]


def test_a_client_that_behaves_is_not_flagged_by_the_orders_run(graded: Mapping[str, Graded]) -> None:
    for name in ("test-catches-key", "kemi-adeyemi", "jonas-berg"):
        assert graded[name].report.facts["key_reused_for_other_amount"] is False, name


def _comparable(value: Any) -> Any:
    """The document without what may differ between two gradings: durations and request times."""
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in VARYING_FIELDS}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, str):
        return re.sub(r"duration_ms:? [\d.e-]+", "duration_ms: -", value)
    return value


VARYING_FIELDS = {"duration_s", "time", "gaps_ms", "gaps_ms_per_run", "outage_gaps_ms"}


def test_grading_twice_from_two_folders_prints_the_same_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = []
    for parent in ("first-parent", "second"):
        sub = write_tree(tmp_path / parent / "test-catches-key", REALISTIC["test-catches-key"])
        assert cli.main(["check", "payments", str(sub), "--json"]) == 0
        documents.append(json.loads(capsys.readouterr().out))
    assert documents[0]["submission"] == "test-catches-key"
    text = json.dumps(documents[0])
    assert "/tmp/gradelib-" not in text and str(tmp_path) not in text
    assert "<submission>/" in text
    first, second = (json.dumps(_comparable(d), indent=1).splitlines() for d in documents)
    assert first == second, "\n".join(difflib.unified_diff(first, second, lineterm=""))
