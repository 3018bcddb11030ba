"""Unit tests for gradelib.takehomes.replay.diff: text diff, JSON-path diff and likely cause."""

from __future__ import annotations

import json

import pytest
from golden_util import assert_golden

from gradelib.takehomes.replay.diff import (
    PathChange,
    compare,
    json_changes,
    likely_cause,
    unified_diff,
)

UUIDS_A = [
    "550e8400-e29b-41d4-a716-446655440000",
    "9b2f4c1e-0d6a-4f8e-b1c3-2a7d5e9f0b14",
    "c3d1e2f4-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
]
UUIDS_B = [
    "1f0e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
    "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d",
    "e4f5a6b7-c8d9-4eaf-b0c1-d2e3f4a5b6c7",
]


def rows(**extra: list[object]) -> list[dict[str, object]]:
    """Three clean answer rows, with per-row extra fields from lists."""
    base: list[dict[str, object]] = [
        {"id": "T-001", "label": "billing", "justification": "Asks about a double charge."},
        {"id": "T-002", "label": "bug", "justification": "Export crashes the app."},
        {"id": "T-003", "label": "account", "justification": "Wants a new login email."},
    ]
    for key, values in extra.items():
        for row, value in zip(base, values, strict=True):
            row[key] = value
    return base


def dump(doc: object) -> bytes:
    """The document as a program would write it: indented JSON and a final newline."""
    return (json.dumps(doc, indent=2) + "\n").encode()


# --- compare: the likely cause of whole-file differences ------------------------------------

SCENARIOS = [
    ("identical", dump(rows()), dump(rows()), "none", "byte-for-byte identical"),
    (
        "timestamp-per-row",
        dump(rows(created_at=["2024-05-01T12:03:04Z", "2024-05-01T12:03:05Z", "2024-05-01T12:03:06Z"])),
        dump(rows(created_at=["2024-05-01T12:07:14Z", "2024-05-01T12:07:15Z", "2024-05-01T12:07:16Z"])),
        "timestamp",
        "3 values differ in 'created_at', which holds timestamps",
    ),
    (
        "date-in-neutral-key",
        dump(rows(seen=["2024-05-01", "2024-05-01", "2024-05-01"])),
        dump(rows(seen=["2024-05-02", "2024-05-02", "2024-05-02"])),
        "timestamp",
        "differ in 'seen'",
    ),
    (
        "epoch-per-row",
        dump(rows(t=[1717000000, 1717000001, 1717000002])),
        dump(rows(t=[1717000100, 1717000101, 1717000102])),
        "timestamp",
        "$[0].t, $[1].t and $[2].t",
    ),
    (
        "timestamp-inside-justification",
        dump([{"id": "T-001", "label": "bug", "justification": "Seen 2024-05-01T12:03:04Z."}]),
        dump([{"id": "T-001", "label": "bug", "justification": "Seen 2024-05-01T12:09:55Z."}]),
        "timestamp",
        "1 value differs in 'justification'",
    ),
    (
        "uuid-per-row",
        dump(rows(run=UUIDS_A)),
        dump(rows(run=UUIDS_B)),
        "random_id",
        "3 values differ in 'run', which holds UUIDs",
    ),
    (
        "request-id-key-per-row",
        dump(rows(request_id=["a", "b", "c"])),
        dump(rows(request_id=["d", "e", "f"])),
        "random_id",
        "which holds random ids",
    ),
    (
        "rows-shuffled",
        dump(rows()),
        dump(rows()[::-1]),
        "ordering",
        "the elements of $ come in a different order",
    ),
    (
        "set-serialized-in-other-order",
        dump(rows(tags=[["a", "b", "c"], ["x", "y"], ["k"]])),
        dump(rows(tags=[["c", "a", "b"], ["y", "x"], ["k"]])),
        "ordering",
        "the elements of $[0].tags and $[1].tags come in a different order",
    ),
    (
        "float-noise",
        dump(rows(score=[0.1 + 0.2, 0.7, 1.0])),
        dump(rows(score=[0.3, 0.7000000000000001, 1.0000001])),
        "float_noise",
        "3 numbers differ by a relative",
    ),
    (
        "label-changed",
        dump(rows()),
        dump([{**row, "label": "other"} if row["id"] == "T-002" else row for row in rows()]),
        "other",
        '$[1].label "bug" -> "other"',
    ),
    (
        "key-order",
        dump(rows()),
        dump([dict(reversed(list(row.items()))) for row in rows()]),
        "ordering",
        "same data, different key order or formatting",
    ),
    (
        "indentation",
        dump(rows()),
        json.dumps(rows()).encode(),
        "other",
        "same JSON, different formatting/whitespace",
    ),
    (
        "crlf-vs-lf",
        dump(rows()),
        dump(rows()).replace(b"\n", b"\r\n"),
        "other",
        "same JSON, different formatting/whitespace (line endings: CRLF vs LF)",
    ),
    (
        "invalid-b",
        dump(rows()),
        b'[{"id": "T-001",',
        "other",
        "run B is not valid JSON (line 1, column 17",
    ),
    (
        "invalid-a-empty",
        b"",
        dump(rows()),
        "other",
        "run A is not valid JSON (empty)",
    ),
    (
        "both-invalid",
        b"\xff\xfe",
        b"NaN",
        "other",
        "neither run A (not UTF-8 at byte 0) nor run B (NaN is not valid JSON) is valid JSON",
    ),
]


@pytest.mark.parametrize(
    ("a", "b", "cause", "detail"),
    [case[1:] for case in SCENARIOS],
    ids=[case[0] for case in SCENARIOS],
)
def test_compare_names_the_likely_cause(a: bytes, b: bytes, cause: str, detail: str) -> None:
    result = compare(a, b)
    assert result.identical == (a == b)
    assert result.cause == cause
    assert detail in result.cause_detail


def test_compare_identical_has_no_diff() -> None:
    result = compare(dump(rows()), dump(rows()))
    assert (result.identical, result.unified, result.changes) == (True, "", ())
    assert result.json_valid == (True, True)


def test_compare_invalid_json_has_text_diff_but_no_changes() -> None:
    result = compare(dump(rows()), b"oops\n")
    assert result.json_valid == (True, False)
    assert result.changes == ()
    assert "+oops" in result.unified


def test_compare_uses_given_names() -> None:
    result = compare(b"[1]\n", b"[2]\n", names=("replay 1", "replay 2"))
    assert result.unified.startswith("--- replay 1\n+++ replay 2\n")
    assert result.changes == (PathChange("$[0]", "changed", "1", "2"),)


# --- json_changes ---------------------------------------------------------------------------

CHANGE_CASES = [
    ("equal", {"a": 1}, {"a": 1}, []),
    ("top-level-scalar", 1, 2, [PathChange("$", "changed", "1", "2")]),
    (
        "key-changed",
        {"a": {"b": "x"}},
        {"a": {"b": "y"}},
        [PathChange("$.a.b", "changed", '"x"', '"y"')],
    ),
    (
        "key-added-and-removed",
        {"a": 1, "b": 2},
        {"b": 2, "c": 3},
        [PathChange("$.a", "removed", "1", None), PathChange("$.c", "added", None, "3")],
    ),
    ("key-order-is-no-change", {"a": 1, "b": 2}, {"b": 2, "a": 1}, []),
    ("int-vs-float", {"n": 1}, {"n": 1.0}, [PathChange("$.n", "changed", "1", "1.0")]),
    ("bool-vs-int", [True], [1], [PathChange("$[0]", "changed", "true", "1")]),
    ("type-change", {"a": [1]}, {"a": {"x": 1}}, [PathChange("$.a", "changed", "[1]", '{"x":1}')]),
    (
        "rows-matched-by-id-not-position",
        [{"id": "A", "v": 1}, {"id": "B", "v": 2}],
        [{"id": "B", "v": 3}, {"id": "A", "v": 1}],
        [
            PathChange("$", "reordered", '["A","B"]', '["B","A"]'),
            PathChange("$[1].v", "changed", "2", "3"),
        ],
    ),
    (
        "row-added-and-removed",
        [{"id": "A"}, {"id": "B"}],
        [{"id": "A"}, {"id": "C"}],
        [
            PathChange("$[1]", "removed", '{"id":"B"}', None),
            PathChange("$[1]", "added", None, '{"id":"C"}'),
        ],
    ),
    (
        "row-removed-keeps-order",
        [{"id": "A"}, {"id": "B"}, {"id": "C"}],
        [{"id": "A"}, {"id": "C"}],
        [PathChange("$[1]", "removed", '{"id":"B"}', None)],
    ),
    (
        "duplicate-ids-compare-by-position",
        [{"id": "A", "v": 1}, {"id": "A", "v": 2}],
        [{"id": "A", "v": 1}, {"id": "A", "v": 3}],
        [PathChange("$[1].v", "changed", "2", "3")],
    ),
    (
        "same-multiset",
        ["a", "b", "a"],
        ["b", "a", "a"],
        [PathChange("$", "reordered", '["a","b","a"]', '["b","a","a"]')],
    ),
    (
        "positional-list",
        ["a", "b"],
        ["a", "c", "d"],
        [PathChange("$[1]", "changed", '"b"', '"c"'), PathChange("$[2]", "added", None, '"d"')],
    ),
    (
        "nested-path-with-quoted-key",
        {"x y": [0, {"k": 1}]},
        {"x y": [0, {"k": 2}]},
        [PathChange('$["x y"][1].k', "changed", "1", "2")],
    ),
]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [case[1:] for case in CHANGE_CASES],
    ids=[case[0] for case in CHANGE_CASES],
)
def test_json_changes(a: object, b: object, expected: list[PathChange]) -> None:
    assert json_changes(a, b) == expected


def test_json_changes_truncates_long_values() -> None:
    [change] = json_changes({"t": "x" * 500}, {"t": "y" * 500})
    assert change.before is not None and change.after is not None
    assert len(change.before) == len(change.after) == 200
    assert change.before.endswith("...")


# --- likely_cause on hand-made change lists -------------------------------------------------


def changed(path: str, before: object, after: object) -> PathChange:
    """A `changed` PathChange of two JSON values."""
    return PathChange(path, "changed", json.dumps(before), json.dumps(after))


CAUSE_CASES = [
    ("no-changes", [], "none", "no differences"),
    (
        "many-paths-are-abbreviated",
        [changed(f"$[{i}].ts", i, i + 1) for i in range(5)],
        "timestamp",
        "$[0].ts, $[1].ts, $[2].ts and 2 more",
    ),
    (
        "timestamps-outvote-a-label",
        [
            changed("$[0].created_at", "2024-05-01T12:00:00Z", "2024-05-01T13:00:00Z"),
            changed("$[1].created_at", "2024-05-01T12:00:01Z", "2024-05-01T13:00:01Z"),
            changed("$[1].label", "bug", "billing"),
        ],
        "timestamp",
        '; also 1 other change: $[1].label "bug" -> "billing"',
    ),
    (
        "one-timestamp-does-not-explain-labels",
        [
            changed("$[0].created_at", "2024-05-01T12:00:00Z", "2024-05-01T13:00:00Z"),
            changed("$[0].label", "bug", "billing"),
            changed("$[1].label", "bug", "other"),
        ],
        "other",
        "3 changes not explained",
    ),
    (
        "hex-ids-in-neutral-key",
        [changed(f"$[{i}].ref", f"{i}f2a9c1b7d4e8f60", f"{i}a9b8c7d6e5f40312") for i in range(2)],
        "random_id",
        "which holds random ids",
    ),
    (
        "timestamp-wins-a-tie-with-ids",
        [changed("$[0].ts", 1, 2), changed("$[0].run_id", "a", "b")],
        "timestamp",
        "also 1 other change: $[0].run_id",
    ),
    (
        "reorder-with-a-label-change",
        [
            PathChange("$", "reordered", '["A","B"]', '["B","A"]'),
            changed("$[0].label", "bug", "other"),
        ],
        "ordering",
        "the elements of $ come in a different order; also 1 other change",
    ),
    (
        "float-noise-needs-every-change",
        [changed("$[0].p", 0.5, 0.5000001), changed("$[1].p", 0.5, 0.6)],
        "other",
        "2 changes not explained",
    ),
    (
        "added-row-is-other",
        [PathChange("$[3]", "added", None, '{"id":"T-004"}')],
        "other",
        "$[3] added",
    ),
]


@pytest.mark.parametrize(
    ("changes", "cause", "detail"),
    [case[1:] for case in CAUSE_CASES],
    ids=[case[0] for case in CAUSE_CASES],
)
def test_likely_cause(changes: list[PathChange], cause: str, detail: str) -> None:
    found_cause, found_detail = likely_cause(changes)
    assert found_cause == cause
    assert detail in found_detail


# --- unified_diff ---------------------------------------------------------------------------


def test_unified_diff_is_empty_for_identical_bytes() -> None:
    assert unified_diff(b"same\n", b"same\n") == ""


def test_unified_diff_golden_label_change() -> None:
    a = dump(rows(created_at=["2024-05-01T12:03:04Z"] * 3))
    changed_rows = rows(created_at=["2024-05-01T12:03:04Z"] * 3)
    changed_rows[2]["label"] = "other"
    assert_golden("diff_label_change.diff", unified_diff(a, dump(changed_rows)))


def test_unified_diff_golden_crlf_and_missing_newline() -> None:
    a = dump(rows()[:1])
    b = dump(rows()[:1]).replace(b"\n", b"\r\n").rstrip()
    assert_golden("diff_crlf_no_newline.diff", unified_diff(a, b))


TEXT_CASES = [
    ("missing-final-newline", b"a\nb\n", b"a\nc", ["-b", "+c", "\\ No newline at end of file"]),
    ("crlf-shown", b"a\n", b"a\r\n", ["-a", "+a\u240d"]),
    ("bad-utf8-replaced", b"a\n", b"\xffa\n", ["-a", "+\ufffda"]),
    (
        "undecodable-only",
        b"\xff\n",
        b"\xfe\n",
        ["(the outputs differ only in bytes that are not valid UTF-8)"],
    ),
]


@pytest.mark.parametrize(
    ("a", "b", "expected"), [case[1:] for case in TEXT_CASES], ids=[case[0] for case in TEXT_CASES]
)
def test_unified_diff_shows_line_endings_and_bad_bytes(a: bytes, b: bytes, expected: list[str]) -> None:
    lines = unified_diff(a, b).splitlines()
    for line in expected:
        assert line in lines


def test_unified_diff_is_capped() -> None:
    a = "".join(f"line {i}\n" for i in range(1000)).encode()
    b = "".join(f"LINE {i}\n" for i in range(1000)).encode()
    lines = unified_diff(a, b, max_lines=50).splitlines()
    assert len(lines) == 51
    assert lines[-1] == f"... {3 + 2000 - 50} more lines"
