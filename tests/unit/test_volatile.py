"""Unit tests for gradelib.takehomes.replay.volatile: key names, values, and whole-document scans."""

from __future__ import annotations

import pytest

from gradelib.takehomes.replay.volatile import (
    VolatileFinding,
    classify_key,
    classify_value,
    find_in_text,
    join_path,
    scan,
    split_path,
)

CLEAN_ANSWERS = [
    {
        "id": "T-001",
        "label": "billing",
        "justification": "Customer asks about a double charge on the invoice.",
    },
    {"id": "T-002", "label": "bug", "justification": "The export button crashes the app."},
    {"id": "TCK-17", "label": "account", "justification": "Wants to change the account email."},
    {"id": "T-004", "label": "feature_request", "justification": "Asks for dark mode, twice."},
    {"id": "T-005", "label": "other", "justification": "Says thanks; no action needed."},
]


# --- keys -----------------------------------------------------------------------------------

KEY_CASES = [
    ("timestamp", "timestamp"),
    ("ts", "timestamp"),
    ("time", "timestamp"),
    ("created", "timestamp"),
    ("created_at", "timestamp"),
    ("updated_at", "timestamp"),
    ("generated_at", "timestamp"),
    ("finished_at", "timestamp"),
    ("start_time", "timestamp"),
    ("createdAt", "timestamp"),
    ("CreatedAt", "timestamp"),
    ("UPDATED_AT", "timestamp"),
    ("timestamp_ms", "timestamp"),
    ("createdAtMs", "timestamp"),
    ("date", "date"),
    ("due_date", "date"),
    ("latency", "duration"),
    ("latency_ms", "duration"),
    ("latencyMs", "duration"),
    ("elapsed", "duration"),
    ("elapsed_time", "duration"),
    ("duration", "duration"),
    ("took_ms", "duration"),
    ("time_ms", "duration"),
    ("tokens", "token_count"),
    ("prompt_tokens", "token_count"),
    ("completion_tokens", "token_count"),
    ("total_tokens", "token_count"),
    ("totalTokens", "token_count"),
    ("usage", "token_count"),
    ("token_count", "token_count"),
    ("model", "model_id"),
    ("model_id", "model_id"),
    ("model_name", "model_id"),
    ("modelName", "model_id"),
    ("uuid", "random_id"),
    ("run_id", "random_id"),
    ("request_id", "random_id"),
    ("requestId", "random_id"),
    ("trace_id", "random_id"),
    ("TraceID", "random_id"),
    ("nonce", "random_id"),
    ("session_id", "random_id"),
]


@pytest.mark.parametrize(("key", "kind"), KEY_CASES, ids=[key for key, _ in KEY_CASES])
def test_classify_key_names_volatile_keys(key: str, kind: str) -> None:
    assert classify_key(key) == kind


PLAIN_KEYS = [
    "id",
    "label",
    "justification",
    "ticket_id",
    "body",
    "text",
    "status",
    "category",
    "confidence",
    "reason",
    "response",
    "summary",
    "priority",
    "at",
    "timezone",
    "",
]


@pytest.mark.parametrize("key", PLAIN_KEYS, ids=[key or "empty" for key in PLAIN_KEYS])
def test_classify_key_leaves_plain_keys_alone(key: str) -> None:
    assert classify_key(key) is None


# --- values ---------------------------------------------------------------------------------

VALUE_CASES = [
    ("iso-z", "2024-05-01T12:03:04Z", "timestamp"),
    ("iso-fraction", "2024-05-01T12:03:04.123456Z", "timestamp"),
    ("iso-offset", "2024-05-01T12:03:04+02:00", "timestamp"),
    ("iso-space", "2024-05-01 12:03:04", "timestamp"),
    ("iso-minutes-only", "2024-05-01T12:03", "timestamp"),
    ("python-str-datetime", "2024-05-01 12:03:04.123456", "timestamp"),
    ("python-ctime", "Wed May  1 12:03:04 2024", "timestamp"),
    ("rfc2822", "Wed, 01 May 2024 12:03:04 GMT", "timestamp"),
    ("rfc2822-offset", "Wed, 1 May 2024 12:03:04 +0200", "timestamp"),
    ("compact-iso", "20240501T120304Z", "timestamp"),
    ("time-of-day", "12:03:04", "timestamp"),
    ("date", "2024-05-01", "date"),
    ("date-slashes", "2024/05/01", "date"),
    ("uuid4", "550e8400-e29b-41d4-a716-446655440000", "uuid"),
    ("uuid1-upper", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", "uuid"),
    ("uuid-no-hyphens", "550e8400e29b41d4a716446655440000", "uuid"),
    ("hex16", "3f2a9c1b7d4e8f60", "random_id"),
    ("hex40-sha", "da39a3ee5e6b4b0d3255bfef95601890afd80709", "random_id"),
    ("base64url-token", "Xk9aB2cD3eF4gH5iJ6kLmN", "random_id"),
    ("token-in-url", "see https://x.test/r?t=abc123def456ghi789jkl", "random_id"),
    ("chatcmpl-id", "chatcmpl-9Xk2LmNq8RtYvZ3a", "random_id"),
    ("anthropic-msg-id", "msg_01XyZ9abcdEF", "random_id"),
    ("ms", "123ms", "duration"),
    ("ms-spaced", "123 ms", "duration"),
    ("seconds-short", "1.5s", "duration"),
    ("took-seconds", "took 0.42 seconds", "duration"),
    ("elapsed-colon", "elapsed: 3 s", "duration"),
    ("gpt-4o", "gpt-4o", "model_id"),
    ("gpt-3.5-turbo", "gpt-3.5-turbo", "model_id"),
    ("claude", "claude-3-5-sonnet-20241022", "model_id"),
    ("llama", "llama-3.1-8b-instruct", "model_id"),
    ("llama-glued", "llama3", "model_id"),
    ("mistral-no-digit", "mistral-large-latest", "model_id"),
    ("gemini", "gemini-1.5-pro", "model_id"),
    ("stub", "gradelib-stub-1", "model_id"),
    ("model-in-text", "Labelled by GPT-4o.", "model_id"),
    ("epoch-seconds", 1717000000, "timestamp"),
    ("epoch-millis", 1717000000123, "timestamp"),
    ("epoch-float", 1717000000.123, "timestamp"),
    ("epoch-in-string", "1717000000", "timestamp"),
    ("timestamp-in-text", "Customer checked at 2024-05-01T12:03:04Z, still broken.", "timestamp"),
    ("date-in-text", "Refund issued on 2024-05-01 per policy.", "date"),
]


@pytest.mark.parametrize(("value", "kind"), [case[1:] for case in VALUE_CASES], ids=[case[0] for case in VALUE_CASES])
def test_classify_value_finds_volatile_values(value: object, kind: str) -> None:
    assert classify_value(value) == kind


PLAIN_VALUES = [
    ("ticket-id", "T-001"),
    ("ticket-id-long-prefix", "TCK-17"),
    ("label-billing", "billing"),
    ("label-bug", "bug"),
    ("label-account", "account"),
    ("label-feature", "feature_request"),
    ("label-other", "other"),
    ("sentence", "Customer asks about a double charge on the invoice."),
    ("sentence-numbers", "Charged $12.50 twice for 3 seats on plan 2."),
    ("decade", "Loves the music of the 90s."),
    ("whole-seconds-prose", "The page takes 5 seconds to load."),
    ("version", "Fails since version 1.2.3 of the app."),
    ("clock-without-seconds", "Call me at 12:30 tomorrow."),
    ("word-starting-like-family", "Reports a phishing email."),
    ("family-without-version", "Asks whether we use GPT or Claude."),
    ("gpt-based", "A gpt-based summary tool."),
    ("account-number", "Account ACC-2024-000123, invoice INV-20240501-0007."),
    ("snake-case-words", "see customer_account_settings_page_v2"),
    ("long-word", "internationalization"),
    ("empty", ""),
    ("small-int", 3),
    ("year-int", 2024),
    ("nine-digits", 999_999_999),
    ("bool", True),
    ("float", 0.87),
    ("null", None),
    ("list", ["2024-05-01"]),
]


@pytest.mark.parametrize("value", [case[1] for case in PLAIN_VALUES], ids=[case[0] for case in PLAIN_VALUES])
def test_classify_value_leaves_plain_values_alone(value: object) -> None:
    assert classify_value(value) is None


def test_find_in_text_prefers_the_longest_overlapping_match() -> None:
    matches = find_in_text("at 2024-05-01T12:03:04Z and 1.5s")
    assert [(m.kind, m.text) for m in matches] == [
        ("timestamp", "2024-05-01T12:03:04Z"),
        ("duration", "1.5s"),
    ]


# --- scan -----------------------------------------------------------------------------------


def test_scan_finds_nothing_in_clean_answers() -> None:
    assert scan(CLEAN_ANSWERS) == []


SCAN_CASES = [
    (
        "key-with-null-value",
        [{"id": "T-001", "created_at": None}],
        [("$[0].created_at", "created_at", "null", "timestamp")],
    ),
    (
        "camel-case-key-with-number",
        [{"id": "T-001", "latencyMs": 12}],
        [("$[0].latencyMs", "latencyMs", "12", "duration")],
    ),
    (
        "nested-uuid-under-neutral-key",
        [{"id": "T-001", "meta": {"run": "550e8400-e29b-41d4-a716-446655440000"}}],
        [("$[0].meta.run", "run", "550e8400-e29b-41d4-a716-446655440000", "uuid")],
    ),
    (
        "uuid-as-row-id",
        [{"id": "550e8400-e29b-41d4-a716-446655440000", "label": "bug"}],
        [("$[0].id", "id", "550e8400-e29b-41d4-a716-446655440000", "uuid")],
    ),
    (
        "usage-object-and-its-counts-sorted-by-path",
        [{"id": "T-001", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}],
        [
            ("$[0].usage", "usage", '{"prompt_tokens":10,"completion_tokens":2}', "token_count"),
            ("$[0].usage.completion_tokens", "completion_tokens", "2", "token_count"),
            ("$[0].usage.prompt_tokens", "prompt_tokens", "10", "token_count"),
        ],
    ),
    (
        "timestamp-inside-justification",
        [{"id": "T-001", "justification": "Checked at 2024-05-01T12:03:04Z; looks like billing."}],
        [("$[0].justification", "justification", "2024-05-01T12:03:04Z", "timestamp")],
    ),
    (
        "two-kinds-in-one-string",
        [{"id": "T-001", "justification": "gpt-4o answered in 812ms."}],
        [
            ("$[0].justification", "justification", "812ms", "duration"),
            ("$[0].justification", "justification", "gpt-4o", "model_id"),
        ],
    ),
    (
        "one-finding-per-path-and-kind",
        [{"id": "T-001", "justification": "From 2024-05-01T12:00:00Z to 2024-05-01T13:00:00Z."}],
        [("$[0].justification", "justification", "2024-05-01T12:00:00Z", "timestamp")],
    ),
    (
        "epoch-number-under-neutral-key",
        [{"id": "T-001", "seen": 1717000000}],
        [("$[0].seen", "seen", "1717000000", "timestamp")],
    ),
    (
        "key-needing-quotes",
        {"created at": "yesterday"},
        [('$["created at"]', "created at", "yesterday", "timestamp")],
    ),
    (
        "top-level-scalar",
        "2024-05-01",
        [("$", None, "2024-05-01", "date")],
    ),
    (
        "string-in-array-has-no-key",
        {"ids": ["3f2a9c1b7d4e8f60"]},
        [("$.ids[0]", None, "3f2a9c1b7d4e8f60", "random_id")],
    ),
]


@pytest.mark.parametrize(("doc", "expected"), [case[1:] for case in SCAN_CASES], ids=[case[0] for case in SCAN_CASES])
def test_scan_reports_path_key_value_and_kind(doc: object, expected: list[tuple[str, str | None, str, str]]) -> None:
    found = [(f.path, f.key, f.value, f.kind) for f in scan(doc)]
    assert found == expected


def test_scan_merges_key_and_value_reasons_for_the_same_kind() -> None:
    [finding] = scan([{"id": "T-001", "created_at": "2024-05-01T12:03:04Z"}])
    assert finding == VolatileFinding(
        path="$[0].created_at",
        key="created_at",
        value="2024-05-01T12:03:04Z",
        kind="timestamp",
        reason="key 'created_at' names a timestamp; value: ISO 8601 timestamp with time of day",
    )


def test_scan_gives_readable_reasons() -> None:
    doc = [{"id": "T-001", "latency_ms": 40, "note": "Xk9aB2cD3eF4gH5iJ6kLmN"}]
    reasons = {f.path: f.reason for f in scan(doc)}
    assert reasons == {
        "$[0].latency_ms": "key 'latency_ms' names a duration",
        "$[0].note": "random-looking token of 22 characters",
    }


KNOWN_TEXT_CASES = [
    ("quoted-date-ignored", "Customer says the charge on 2024-04-30 is wrong.", []),
    ("quoted-time-ignored", "Ticket says it failed at 09:15:00 exactly.", []),
    ("other-date-reported", "Charge on 2024-04-29 is wrong.", ["2024-04-29"]),
]


@pytest.mark.parametrize(
    ("justification", "reported"),
    [case[1:] for case in KNOWN_TEXT_CASES],
    ids=[case[0] for case in KNOWN_TEXT_CASES],
)
def test_scan_ignores_values_quoted_from_known_text(justification: str, reported: list[str]) -> None:
    tickets = ["I was charged twice on 2024-04-30 at 09:15:00. Please refund."]
    doc = [{"id": "T-001", "label": "billing", "justification": justification}]
    assert [f.value for f in scan(doc, known_text=tickets)] == reported


def test_scan_sorts_by_path_in_natural_order() -> None:
    doc = [{"id": f"T-{i:03}", "ts": i} for i in range(12)]
    paths = [f.path for f in scan(doc)]
    assert paths == [f"$[{i}].ts" for i in range(12)]


def test_scan_truncates_long_values() -> None:
    [finding] = scan({"usage": {"detail": "x" * 500}})
    assert len(finding.value) == 120
    assert finding.value.endswith("...")


PATH_CASES = [
    ("root", [], "$"),
    ("index", [3], "$[3]"),
    ("key", [3, "created_at"], "$[3].created_at"),
    ("nested", [0, "meta", "run"], "$[0].meta.run"),
    ("quoted-key", ["created at", 1], '$["created at"][1]'),
    ("key-with-quote", ['say "hi"'], '$["say \\"hi\\""]'),
]


@pytest.mark.parametrize(("steps", "path"), [case[1:] for case in PATH_CASES], ids=[case[0] for case in PATH_CASES])
def test_join_path_and_split_path_round_trip(steps: list[str | int], path: str) -> None:
    built = "$"
    for step in steps:
        built = join_path(built, step)
    assert built == path
    assert split_path(path) == steps
