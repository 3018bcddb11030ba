"""The pure parts of the `payments` checks: backoff, key scope, hints, draft diff, safe note HTML."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any
from xml.etree import ElementTree

import pytest
from conftest import write_tree

from gradelib import safetext
from gradelib.display import render
from gradelib.result import LineResult, Report
from gradelib.review.rubricview import tier_rows
from gradelib.takehome import parse_result
from gradelib.takehomes import payments
from gradelib.takehomes.payments import PaymentsGrading, charts
from gradelib.takehomes.payments.clientruns import find_tests, seed_for, tap_summary
from gradelib.takehomes.payments.fakegateway import GatewayRequest
from gradelib.takehomes.payments.keyscope import (
    classify_key_scope,
    draft_diff,
    draft_lines_kept,
    gaps,
    has_backoff,
    key_labels,
    least_gaps,
    same_key_after_restart,
)
from gradelib.takehomes.payments.notehints import find_hints
from gradelib.takehomes.rubric import default_rubric

DRAFT = Path(payments.__file__).parent / "draft" / "checkout.mjs"


def request(index: int, key: str | None, time: float = 0.0, status: int | None = 200) -> GatewayRequest:
    return GatewayRequest(
        index=index, time=time, method="POST", path="/charge", key=key,
        key_source="body" if key else "none", amount=4200, headers=MappingProxyType({}),
        status=status, charged=status == 200, deduped=False, attempt=1,
    )  # fmt: skip


# -- backoff -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("between", "expected"),
    [
        ([0.05, 0.10], True),
        ([0.10, 0.20, 0.40], True),
        ([0.10, 0.10], True),  # constant backoff still waits
        ([0.10, 0.09], True),  # jitter: shrinking a little is fine
        ([0.20, 0.05], False),  # shrinking a lot is not backoff
        ([0.009, 0.004, 0.008, 0.002], False),  # immediate retries (a rewrite without backoff)
        ([0.015, 0.030], False),  # too short to be a wait
        ([0.10], False),  # one gap proves nothing
        ([], False),  # one attempt, no retry
    ],
    ids=["draft", "doubling", "constant", "jitter", "shrinking", "immediate", "tiny", "one-gap", "no-retry"],
)
def test_backoff_detection_from_gaps(between: list[float], expected: bool) -> None:
    assert has_backoff(between) is expected


# The driver's Math.random draws from [0.5, 1) (driver.mjs): what jittered clients wait there.
JITTER = {
    "full": lambda r, n, _: r * min(2.0, 0.1 * 2**n),
    "equal": lambda r, n, _: min(2.0, 0.1 * 2**n) / 2 + r * min(2.0, 0.1 * 2**n) / 2,
    "decorrelated": lambda r, _, last: min(2.0, 0.1 + r * (last * 3 - 0.1)),
}


@pytest.mark.parametrize("kind", sorted(JITTER))
def test_jittered_exponential_backoff_is_backoff_for_any_draw_of_the_drivers_random(kind: str) -> None:
    import random

    draws = random.Random(12)
    for _ in range(2000):
        waits, last = [], 0.1
        for n in range(3):
            last = JITTER[kind](0.5 + draws.random() / 2, n, last)
            waits.append(last + 0.002)  # plus the request's own time
        assert has_backoff(waits), (kind, waits)


@pytest.mark.parametrize(
    "waits",
    [[0.001, 0.002, 0.001], [0.005, 0.005, 0.005], [0.012, 0.011, 0.013]],
    ids=["immediate", "constant-5ms", "constant-12ms"],
)
def test_immediate_or_few_millisecond_retries_are_not_backoff(waits: list[float]) -> None:
    assert not has_backoff(waits)


def test_the_drivers_seed_is_stable_and_different_for_every_run() -> None:
    seeds = {seed_for(scenario, n) for scenario in ("transient", "restart", "outage", "slow", "orders") for n in (0, 1)}
    assert len(seeds) == 10
    assert seed_for("outage", 0) == seed_for("outage", 0)  # the outage repeats draw the same waits


def test_least_gaps_filters_load_from_repeated_runs() -> None:
    assert least_gaps([[0.237, 0.128], [0.090, 0.179], [0.131, 0.104]]) == [0.090, 0.104]
    assert least_gaps([[0.05, 0.10], [0.01]]) == [0.05, 0.10]  # a run with other attempts is left out
    assert least_gaps([[]]) == []
    assert least_gaps([]) == []


def test_gaps_are_differences_between_attempt_times() -> None:
    assert gaps([0.0, 0.05, 0.15]) == pytest.approx([0.05, 0.10])
    assert gaps([1.0]) == []


# -- key scope ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("requests", "distinct", "keyless", "restart_same", "expected"),
    [
        (2, 2, 0, False, "per_attempt"),
        (2, 2, 0, True, "per_attempt"),  # a key per attempt stays weak whatever restart shows
        (2, 0, 2, None, "per_attempt"),  # no key at all: every attempt is a new payment
        (2, 1, 0, False, "per_call"),
        (1, 1, 0, False, "per_call"),  # one attempt only (a swallowed 503)
        (2, 1, 0, None, "per_call"),  # restart inconclusive
        (2, 1, 0, True, "persisted"),
        (0, 0, 0, None, "unknown"),
    ],
    ids=["per-attempt", "per-attempt-restart", "keyless", "per-call", "single", "inconclusive", "persisted", "none"],
)
def test_key_scope_classification(
    requests: int, distinct: int, keyless: int, restart_same: bool | None, expected: str
) -> None:
    assert classify_key_scope(requests, distinct, keyless, restart_same) == expected


def test_same_key_after_restart_compares_the_first_key_of_each_run() -> None:
    same = [request(0, "k1", status=None), request(1, "k1")]
    fresh = [request(0, "k1", status=None), request(1, "k2")]
    assert same_key_after_restart(same, 1) is True
    assert same_key_after_restart(fresh, 1) is False
    assert same_key_after_restart([request(0, None), request(1, None)], 1) is False
    assert same_key_after_restart([request(0, "k1")], 1) is None  # nothing after the restart
    assert same_key_after_restart([], 0) is None


# -- hints -------------------------------------------------------------------------------
NOTE = """\
# Notes
Assistant: GitHub Copilot wrote most of it.
The key is now persisted, so a restart reuses it (idempotency).

```
{"requests":2,"distinct_keys":1,"charges":1}
```

Each attempt has a timeout; the key file uses an atomic write (fsync, rename).
<script>alert(1)</script>\x1b[31m
"""


def test_hints_point_at_raw_output_code_blocks_and_topics() -> None:
    hints = find_hints(NOTE)
    by_kind: dict[str, list[int]] = {}
    for hint in hints:
        by_kind.setdefault(hint["kind"], []).append(hint["line"])
    assert by_kind["assistant"] == [2]
    assert by_kind["restart"] == [3]
    assert by_kind["idempotency"] == [3]
    assert by_kind["code_block"] == [5]  # the opening fence only
    assert by_kind["raw_output"] == [6]
    assert by_kind["timeout"] == [9]
    assert by_kind["partial_write"] == [9]
    assert all(set(h) == {"line", "kind", "label", "text"} for h in hints)


def test_hint_text_is_plain_and_every_view_escapes_it() -> None:
    hints = find_hints("a restart <img src=x onerror=alert(1)>\x1b[2J\u202e")
    assert hints[0]["text"] == "a restart <img src=x onerror=alert(1)>[2J"  # control and bidi chars gone
    shown = render.hints_html(hints)
    assert "<img" not in shown and "&lt;img" in shown


def test_a_note_without_topics_has_no_hints() -> None:
    assert find_hints("It passes.\n\nThanks!") == []


# -- safe Markdown -------------------------------------------------------------------------
HOSTILE_NOTE = """\
# Title

Some *emphasis*, **bold**, `code` and a [link](https://example.com/x).

- one
- two

| a | b |
|---|---|
| 1 | 2 |

<script>document.cookie</script>

<img src="x" onerror="alert(1)">

<p onclick="steal()" style="position:fixed" class="gl-badge">styled</p>

[click me](javascript:alert(1)) and <a href="javascript:alert(2)">raw link</a>
and [mixed case](JaVaScRiPt:alert(3)).

<iframe src="https://evil.example"></iframe>
"""


def test_markdown_html_strips_script_handlers_and_javascript_links() -> None:
    html = safetext.markdown_html(HOSTILE_NOTE)
    lowered = html.lower()
    assert "<script" not in lowered and "document.cookie" not in lowered
    assert "onerror" not in lowered and "onclick" not in lowered
    assert "javascript:" not in lowered
    assert "<iframe" not in lowered and "<img" not in lowered
    assert "click me</a>" in lowered and "raw link</a>" in lowered  # the links stay, their URLs go
    assert "style=" not in lowered and "class=" not in lowered


def test_markdown_html_keeps_normal_markdown() -> None:
    html = safetext.markdown_html(HOSTILE_NOTE)
    assert "<strong>Title</strong>" in html and "<h1" not in html  # headings never reach the outline
    assert "<em>emphasis</em>" in html and "<strong>bold</strong>" in html
    assert "<code>code</code>" in html
    assert '<a href="https://example.com/x"' in html and 'rel="noopener noreferrer nofollow"' in html
    assert "<li>one</li>" in html
    assert "<table>" in html and "<td>1</td>" in html
    assert ">styled</p>" in html


def test_fenced_code_stays_text() -> None:
    html = safetext.markdown_html("```\n<script>alert(1)</script>\n```\n")
    assert "<script" not in html and "&lt;script&gt;" in html


def test_escape_and_plain() -> None:
    assert safetext.html_text('<b a="1">&</b>') == "&lt;b a=&quot;1&quot;&gt;&amp;&lt;/b&gt;"
    assert safetext.clipped_text("x" * 400, 10) == "x" * 10 + "..."


def test_note_card_sanitizes_a_tampered_note_and_escapes_the_message() -> None:
    line = LineResult(
        "evidence", "needs_review", "<b>message</b>",
        {"note_html": '<p>ok</p><script>alert(1)</script><a href="javascript:x">l</a>', "hints": []},
    )  # fmt: skip
    html = render.note_card(line, "Evidence").body
    assert "<p>ok</p>" in html
    assert "<script" not in html and "javascript:" not in html
    assert "&lt;b&gt;message&lt;/b&gt;" in html


# -- draft diff, driver output, tests detection ------------------------------------------
def test_draft_diff_of_the_draft_itself_is_empty() -> None:
    draft = DRAFT.read_text()
    assert draft_diff(draft, draft) == ("", 1.0)


def test_draft_diff_flags_a_rewrite_by_similarity() -> None:
    draft = DRAFT.read_text()
    moved = draft.replace("        idempotencyKey: crypto.randomUUID(),\n", "        idempotencyKey,\n")
    unified, ratio = draft_diff(moved, draft)
    assert "-        idempotencyKey: crypto.randomUUID()," in unified and ratio > 0.9
    _, rewrite = draft_diff("export const chargeWithRetry = async () => fetch('x');\n", draft)
    assert rewrite < payments.REWRITE_RATIO


def test_draft_lines_kept_measures_what_is_left_of_the_draft_not_what_was_added() -> None:
    draft = DRAFT.read_text()
    helpers = "\n".join(f"function helper{n}() {{ return readFileSync('k{n}', 'utf8'); }}" for n in range(40))
    padded = helpers + "\n" + draft
    assert draft_diff(padded, draft)[1] < payments.REWRITE_RATIO  # the text ratio drops...
    assert draft_lines_kept(padded, draft) == 1.0  # ...while all of the draft is still there
    assert draft_lines_kept("export const chargeWithRetry = async () => fetch('x');\n", draft) == 0.0


def test_parse_result_takes_the_last_marker_line_with_this_runs_key() -> None:
    key = "k3y"
    stdout = (
        f'noise\nGRADELIB_RESULT {key} {{"outcome": "rejected"}}\n'
        f'GRADELIB_RESULT {key} {{"outcome": "resolved", "value": 1}}\n'
        'GRADELIB_RESULT forged {"outcome": "rejected"}\nGRADELIB_RESULT {"outcome": "rejected"}\n'
    )
    assert parse_result(stdout, key) == {"outcome": "resolved", "value": 1}
    assert parse_result(f"GRADELIB_RESULT {key} {{broken\n", key) is None
    assert parse_result(f"GRADELIB_RESULT {key} [1]\n", key) is None
    assert parse_result("nothing here", key) is None
    assert parse_result('GRADELIB_RESULT  {"outcome": "resolved"}\n', "") is None


def test_tap_summary_reads_node_test_counts() -> None:
    assert tap_summary("ok 1\n# tests 5\n# pass 2\n# fail 3\n") == {"tests": 5, "pass": 2, "fail": 3}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"package.json": '{"scripts": {"test": "node --test"}}'}, "npm"),
        ({"package.json": '{"scripts": {"test": "echo \\"Error: no test specified\\" && exit 1"}}'}, None),
        ({"package.json": '{"scripts": {"test": "x"}', "a.test.mjs": ""}, "node"),  # broken JSON
        ({"test/checkout.test.mjs": ""}, "node"),
        ({"checkout.test.js": ""}, "node"),
        ({"checkout.mjs": "", "NOTE.md": ""}, None),
        ({"node_modules/x/a.test.js": ""}, None),
    ],
    ids=["npm-script", "npm-placeholder", "broken-package-json", "test-folder", "test-file", "none", "node-modules"],
)
def test_find_tests(tmp_path: Path, files: dict[str, str], expected: str | None) -> None:
    found = find_tests(write_tree(tmp_path / "sub", files))
    assert (found[0] if found else None) == expected


# -- lines without node, tier table, chart -------------------------------------------------
def test_without_node_the_lines_that_need_it_are_unverified_and_say_how_to_install_it(tmp_path: Path) -> None:
    files = {
        "checkout.mjs": "export async function chargeWithRetry() {}\n",
        "package.json": '{"scripts": {"test": "node --test"}}',
        "NOTE.md": "hi",
    }
    sub = write_tree(tmp_path / "sub", files)
    with PaymentsGrading(sub) as grading:
        grading.__dict__["node"] = None  # as if node were not installed
        report = grading.report()
    assert [line.id for line in report.lines] == [
        "found_defect",
        "key_scope",
        "evidence",
        "explanation",
        "blast_radius",
    ]
    for line_id in ("found_defect", "key_scope"):
        assert report.line(line_id).outcome == "unverified"  # the kit could not observe it: not the candidate's fault
        assert "apt-get install nodejs" in report.line(line_id).message
    assert report.facts["key_scope"] == "unknown"
    assert {report.facts[key] for key in ("outage_attempts", "backoff", "slow_distinct_keys")} == {None}
    assert report.line("evidence").outcome == "needs_review"


def test_missing_checkout_is_an_error_not_an_exception(tmp_path: Path) -> None:
    sub = write_tree(tmp_path / "sub", {"README.md": "nothing here"})
    report = payments.check(sub)
    key_scope = report.line("key_scope")
    assert (key_scope.outcome, key_scope.points) == ("fail", 0.0)  # the candidate's failure, and still a number
    assert "no checkout.mjs" in key_scope.message
    assert report.line("evidence").message.startswith("no note to read")
    assert list(report.facts)[:7] == [
        "key_scope", "tests_green_on_own", "tests_red_on_draft", "dropped_payment_on_outage",
        "outage_attempts", "backoff", "slow_distinct_keys",
    ]  # fmt: skip
    assert [report.facts[key] for key in ("dropped_payment_on_outage", "outage_attempts", "backoff")] == [None] * 3


def test_tier_rows_show_suggestions_and_what_awaits_a_reviewer() -> None:
    rubric = default_rubric("payments")
    lines = (
        LineResult("found_defect", "needs_review", "no tests"),
        LineResult("key_scope", "pass", "per call", tier="acceptable"),
    )
    rows = tier_rows(Report("payments", "x", lines), rubric)
    assert [row["kit suggests"] for row in rows] == ["-", "acceptable"]
    assert [row["awaits reviewer"] for row in rows] == ["yes", "no"]
    assert rows[1]["strong"] == "Per call, persisted before the request"


def test_attempts_timeline_has_one_row_per_scenario() -> None:
    attempts: dict[str, list[dict[str, Any]]] = {
        "transient": [{"time": 0.0, "status": 503, "charged": False}, {"time": 0.1, "status": 200, "charged": True}],
        "restart": [{"time": 0.0, "status": "hung", "charged": True}],
        "outage": [],
    }
    chart = charts.attempts_timeline(attempts, title="<x>")
    root = ElementTree.fromstring(chart.body)  # noqa: S314 - the kit's own SVG: well-formed
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert texts.index("transient") < texts.index("restart") < texts.index("outage")  # first scenario on top
    assert "<x>" in texts and "<x>" not in chart.body  # the title is escaped
    assert "no requests" in texts
    circles = [c for c in root.iter(f"{ns}circle") if c.get("stroke") == charts.CHARGED_EDGE]
    assert len(circles) == 3  # two charged requests and the legend's "charged"
    assert chart._repr_svg_() == chart.body and "transient: 2 requests" in repr(chart)
    assert [charts.status_class(s) for s in (200, 503, None, "hung", 400)] == ["2xx", "503", "hung", "hung", "other"]
    assert "&lt;b&gt;" in charts.attempts_html({"<b>": []}).body


def test_key_labels_number_generated_keys_in_first_sent_order_and_leave_short_or_odd_keys() -> None:
    uuid = "9b2f6c1e-0d4a-4e7b-9a51-3f7c2b8e1d60"
    runs = [[request(0, uuid), request(1, uuid)], [request(0, "order-4200"), request(1, "<b>" * 6), request(2, None)]]
    assert key_labels(runs) == {uuid: "<key-1>"}  # short keys and markup are shown as sent, escaped
    later = "5d1e9c7a-22b4-4f0e-8c3d-7a6b5e4f3a21"
    assert key_labels([*runs, [request(0, later)]]) == {uuid: "<key-1>", later: "<key-2>"}


def test_outage_repeats_do_not_shift_the_other_scenarios_key_labels() -> None:
    """How many outage repeats run depends on the machine's load; the report's labels must not."""
    from types import SimpleNamespace

    grading = PaymentsGrading.__new__(PaymentsGrading)
    grading.box = SimpleNamespace(root=Path("."))  # type: ignore[assignment]
    names = ("transient", "restart", "outage", "slow", "orders")
    for number, name in enumerate(names):
        key = f"{number}" * 8 + "-key-of-" + name
        grading.__dict__[name] = SimpleNamespace(requests=[request(0, key)])
    repeats = [SimpleNamespace(requests=[request(0, f"repeat-number-{n:04d}")]) for n in range(5)]
    few, many = repeats[:2], repeats
    grading.__dict__["outage_repeats"] = few
    with_few = grading._masks()
    grading.__dict__["outage_repeats"] = many
    with_many = grading._masks()
    orders_key = "44444444-key-of-orders"
    assert with_few[orders_key] == with_many[orders_key] == "<key-5>"


def test_shrinking_real_waits_are_measured_again_immediate_retries_never() -> None:
    from types import SimpleNamespace

    from gradelib.takehomes.payments.clientruns import shrinking_waits

    def run(*gaps: float) -> Any:
        return SimpleNamespace(gaps=lambda: list(gaps), problem=None)

    assert shrinking_waits([run(0.165, 0.104)])  # 50 + 100 ms with a slow first retry: measure again
    assert not shrinking_waits([run(0.165, 0.104), run(0.061, 0.104)])  # a quieter run shows the growth
    assert not shrinking_waits([run(0.013, 0.003, 0.002)])  # immediate retries: no backoff, no repeats
    assert not shrinking_waits([run(0.1)])  # one gap: nothing to compare
