"""The volatile line's judgement: a value that only looks random fails when it changes, never for its looks."""

from __future__ import annotations

from gradelib.takehomes.replay import volatile
from gradelib.takehomes.replay.lines.volatile import split_lookalikes

HASH = "654015cd04f1e9de"
DOC = [{"id": "T-001", "label": "bug", "fixture": HASH, "response": "chatcmpl-8e1f0a9c2b7d4e61"}]


def _findings(doc: object) -> list[dict[str, object]]:
    return [vars(f) for f in volatile.scan(doc)]


def test_a_request_hash_that_never_changes_is_for_the_reviewer_not_a_fail() -> None:
    found = _findings(DOC)
    assert {(f["path"], f["kind"]) for f in found} >= {("$[0].fixture", "random_id")}, found
    failing, stable = split_lookalikes(found, changed=[], rerecorded=DOC)
    assert [f["path"] for f in stable] == ["$[0].fixture", "$[0].response"]
    assert failing == []


def test_a_random_looking_value_that_changes_between_runs_fails() -> None:
    changed = [{"path": "$[0].fixture", "kind": "changed", "before": HASH, "after": "0f0f0f0f0f0f0f0f"}]
    failing, stable = split_lookalikes(_findings(DOC), changed=changed, rerecorded=DOC)
    assert [f["path"] for f in failing] == ["$[0].fixture"] and [f["path"] for f in stable] == ["$[0].response"]


def test_a_provider_id_that_changes_with_a_re_record_fails_though_every_replay_repeats_it() -> None:
    rerecorded = [{**DOC[0], "response": "chatcmpl-1111222233334444"}]
    failing, stable = split_lookalikes(_findings(DOC), changed=[], rerecorded=rerecorded)
    assert [f["path"] for f in failing] == ["$[0].response"] and [f["path"] for f in stable] == ["$[0].fixture"]


def test_times_and_counts_fail_by_what_they_are_even_when_they_do_not_change() -> None:
    doc = [{"id": "T-001", "label": "bug", "generated_at": "2026-12-05T10:11:12Z", "latency_ms": 412}]
    failing, stable = split_lookalikes(_findings(doc), changed=[], rerecorded=doc)
    assert {f["kind"] for f in failing} == {"timestamp", "duration"} and stable == []


def test_without_a_re_record_the_two_replays_decide() -> None:
    failing, stable = split_lookalikes(_findings(DOC), changed=[], rerecorded=None)
    assert failing == [] and len(stable) == 2


def test_value_at_follows_a_path_and_says_none_where_it_leads_nowhere() -> None:
    assert volatile.value_at(DOC, "$[0].fixture") == HASH
    assert volatile.value_at(DOC, "$[3].fixture") is None and volatile.value_at(DOC, "$[0].nope") is None
    assert volatile.value_at({"a b": [1, 2]}, volatile.join_path(volatile.join_path("$", "a b"), 1)) == 2
