"""masking.mask: kit paths in text become placeholders."""

from __future__ import annotations

import pytest

from gradelib.masking import mask

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
