"""masking.mask: kit paths in text become placeholders."""

from __future__ import annotations

import pytest

from gradelib.sandbox.masking import mask, mask_data

ROOT = "/tmp/gradelib-abc123"
COPY = f"{ROOT}/05-missing-fixture/submission"


@pytest.mark.parametrize(
    ("text", "placeholders", "expected"),
    [
        ("nothing to hide", {COPY: "<submission>"}, "nothing to hide"),
        (f'File "{COPY}/app.py", line 3', {COPY: "<submission>"}, 'File "<submission>/app.py", line 3'),
        (f"{COPY}/a {COPY}/b", {COPY: "<submission>"}, "<submission>/a <submission>/b"),
        (f"{COPY}/x and {ROOT}/kit", {ROOT: "<sandbox>", COPY: "<submission>"}, "<submission>/x and <sandbox>/kit"),
        (f"file://{COPY}/index.mjs:3", {COPY: "<submission>"}, "file://<submission>/index.mjs:3"),
        ("text", {}, "text"),
        ("text", {"": "<empty>"}, "text"),
        ("a/b", {"a": "<b>", "<b>": "again"}, "<b>/b"),
    ],
    ids=["no-path", "traceback", "twice", "longest-first", "file-url", "no-placeholders", "empty-path", "one-pass"],
)
def test_mask(text: str, placeholders: dict[str, str], expected: str) -> None:
    assert mask(text, placeholders) == expected


def test_regex_characters_in_paths_are_literal() -> None:
    assert mask("/tmp/a.b+c/x /tmp/aXb+c/x", {"/tmp/a.b+c": "<p>"}) == "<p>/x /tmp/aXb+c/x"


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
