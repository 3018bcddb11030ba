"""The pure masking of what varies between gradings."""

from __future__ import annotations

from gradelib.masking import mask, mask_data


def test_mask_replaces_every_occurrence_longest_first() -> None:
    places = {"/tmp/gradelib-ab12": "<workspace>", "/tmp/gradelib-ab12/03-transient/submission": "<submission>"}
    text = "file:///tmp/gradelib-ab12/03-transient/submission/checkout.mjs:3 and /tmp/gradelib-ab12/kit/driver.mjs"
    assert mask(text, places) == "file://<submission>/checkout.mjs:3 and <workspace>/kit/driver.mjs"


def test_a_placeholder_is_never_masked_again() -> None:
    assert mask("a b", {"a": "b", "b": "c"}) == "b c"


def test_nothing_to_mask() -> None:
    assert mask("unchanged", {}) == "unchanged"
    assert mask("unchanged", {"": "x"}) == "unchanged"
    assert mask("", {"a": "b"}) == ""


def test_mask_data_walks_json_like_values() -> None:
    data = {"msg": "at /w/x", "/w": ["/w/y", 3, None, ("/w",)], "n": 1.5}
    assert mask_data(data, {"/w": "<w>"}) == {"msg": "at <w>/x", "<w>": ["<w>/y", 3, None, ["<w>"]], "n": 1.5}
    assert mask_data(data, {}) is data
