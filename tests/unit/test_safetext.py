"""safetext: each escaping function's behaviour on markup, quotes, NUL, ANSI escapes, bidi overrides."""

from __future__ import annotations

import types

import pytest

from gradelib import safetext
from gradelib.display import render
from gradelib.result import LineResult

SCRIPT = '<script>alert("x")</script>'
ANSI = "\x1b[31mred\x1b[0m"
BIDI = "fail\u202eliaf"  # an override: what follows reads right to left
ZERO_WIDTH = "pa\u200bss"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(SCRIPT, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;", id="script"),
        pytest.param('it\'s "quoted" & <b>', "it&#x27;s &quot;quoted&quot; &amp; &lt;b&gt;", id="quotes"),
        pytest.param("a\x00b", "ab", id="nul"),
        pytest.param(ANSI, "[31mred[0m", id="ansi"),
        pytest.param(BIDI, "failliaf", id="bidi-override"),
        pytest.param("\u2066x\u2069", "x", id="bidi-isolate"),
        pytest.param(ZERO_WIDTH, "pass", id="zero-width"),
        pytest.param("\x85c1\x9b", "c1", id="c1-controls"),
        pytest.param("tab\tnew\nline\r", "tab\tnew\nline\r", id="whitespace-kept"),
        pytest.param(42, "42", id="not-a-string"),
    ],
)
def test_html_text_escapes_markup_and_removes_controls(text: object, expected: str) -> None:
    assert safetext.html_text(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(SCRIPT, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;", id="script"),
        pytest.param("'\"", "&#x27;&quot;", id="quotes"),
        pytest.param("a\x00b", "a\u2400b", id="nul"),
        pytest.param(ANSI, "\u241b[31mred\u241b[0m", id="ansi"),
        pytest.param("\x7f", "\u2421", id="del"),
        pytest.param(BIDI, "fail&lt;U+202E&gt;liaf", id="bidi-override"),
        pytest.param(ZERO_WIDTH, "pa&lt;U+200B&gt;ss", id="zero-width"),
        pytest.param("\x9b", "&lt;U+009B&gt;", id="c1-csi"),
        pytest.param("tab\tnew\nline\r", "tab\tnew\nline\r", id="whitespace-kept"),
    ],
)
def test_html_visible_escapes_markup_and_shows_controls(text: str, expected: str) -> None:
    assert safetext.html_visible(text) == expected
    assert safetext.visible_controls(text) == safetext.visible_controls(text)  # deterministic


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(ANSI, "?[31mred?[0m", id="ansi"),
        pytest.param("a\x00b", "a?b", id="nul"),
        pytest.param(BIDI, "fail?liaf", id="bidi-override"),
        pytest.param("one\ntwo\r\tthree", "one?two??three", id="newline-tab-cr"),
        pytest.param("no\u00a0break", "no?break", id="non-ascii-space"),
        pytest.param(SCRIPT, SCRIPT, id="markup-untouched"),
        pytest.param("café ünï", "café ünï", id="letters-kept"),
    ],
)
def test_terminal_text_shows_every_non_printable_character_as_a_question_mark(text: str, expected: str) -> None:
    assert safetext.terminal_text(text) == expected


@pytest.mark.parametrize(
    ("text", "max_chars", "expected"),
    [
        pytest.param(ANSI + BIDI, 300, "[31mred[0mfailliaf", id="controls-removed"),
        pytest.param("a\r\nb\x00", 300, "a\nb", id="cr-and-nul-removed"),
        pytest.param("x" * 12, 10, "x" * 10 + "...", id="cut-short"),
        pytest.param("x" * 10, 10, "x" * 10, id="exactly-max"),
        pytest.param(SCRIPT, 300, SCRIPT, id="markup-kept-as-data"),
    ],
)
def test_clipped_text_removes_controls_and_cuts(text: str, max_chars: int, expected: str) -> None:
    assert safetext.clipped_text(text, max_chars) == expected


def test_markdown_html_drops_script_controls_and_bidi() -> None:
    html = safetext.markdown_html(f"hello {SCRIPT} \x1b[2J{BIDI}\x00\n\n<b onclick=x>bold</b>")
    lowered = html.lower()
    assert "<script" not in lowered and "onclick" not in lowered
    assert "\x1b" not in html and "\u202e" not in html and "\x00" not in html
    assert "<b>bold</b>" in html


def test_sanitize_html_is_idempotent() -> None:
    once = safetext.sanitize_html('<p>ok</p><img src=x onerror="alert(1)"><a href="javascript:x">l</a>')
    assert safetext.sanitize_html(once) == once
    assert "<img" not in once and "javascript:" not in once


def test_evidence_and_cards_never_pass_a_control_character_through() -> None:
    hostile = f"{SCRIPT}{ANSI}{BIDI}\x00"
    line = LineResult("run", "fail", hostile, evidence={"stdout_tail": hostile, "items": [hostile]})
    for html in (render.line_html(line, hostile).body, render.note_card(line, hostile).body):
        assert "<script" not in html
        assert not safetext.CONTROL_CHARS.search(html), repr(html)
    assert render.line_html(line).text == safetext.terminal_text(render.line_html(line).text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a\nb\r\tc", "a b  c", id="whitespace-as-spaces"),
        pytest.param(ANSI + "\x00", "?[31mred?[0m?", id="ansi-and-nul"),
        pytest.param(BIDI, "fail?liaf", id="bidi-override"),
        pytest.param("bad \udcff byte", "bad \ufffd byte", id="undecodable-byte"),
        pytest.param("x" * 601, "x" * 599 + "…", id="cut-short"),
    ],
)
def test_one_line_is_what_a_line_result_stores(text: str, expected: str) -> None:
    assert safetext.one_line(text) == expected
    assert LineResult("x", "pass", text).message == expected


def test_valid_utf8_repairs_strings_anywhere_in_the_data() -> None:
    assert safetext.valid_utf8({"k\udcff": ["v\udcfe", ("t",), 3]}) == {"k\ufffd": ["v\ufffd", ["t"], 3]}


class _Text(str):
    """A str subclass: repaired into a plain str like any other string."""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("ascii", "ascii", id="ascii"),
        pytest.param("café ✓", "café ✓", id="valid-non-ascii"),
        pytest.param(_Text("sub\udcff"), "sub\ufffd", id="str-subclass"),
        pytest.param((1, 2.5, True, None), [1, 2.5, True, None], id="plain-values-tuple-as-list"),
        pytest.param({"a": ("x\udcff", {"b": b"raw"})}, {"a": ["x\ufffd", {"b": b"raw"}]}, id="nested"),
        pytest.param(types.MappingProxyType({"k\udcff": 1}), {"k\ufffd": 1}, id="other-mapping"),
    ],
)
def test_valid_utf8_keeps_values_and_repairs_every_kind_of_string(value: object, expected: object) -> None:
    repaired = safetext.valid_utf8(value)
    assert repaired == expected
    assert type(repaired) is type(expected)
