"""Candidate text made safe to show: every escaping and sanitising function of the kit, one per behaviour.

Which one to call:
- `html_text`: short text (a title, a message, a name) in HTML text or a quoted attribute;
  control, bidi and zero-width characters removed.
- `html_visible`: evidence in HTML (output, diffs, table cells), where a control character is part
  of what the reviewer must see: each one shown as a visible mark, never passed on raw.
- `terminal_text`: a line for a terminal; every character a terminal might act on shown as "?".
- `clipped_text`: text kept as data (a hint, an error in the evidence): controls removed, cut short.
- `one_line` / `valid_utf8`: what a `LineResult` stores: a message as one printable line, valid UTF-8.
- `markdown_html` / `sanitize_html`: a candidate's Markdown or an HTML fragment reduced to an allowlist.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Mapping
from typing import Any

MAX_MARKDOWN_CHARS = 200_000
MAX_LINE_CHARS = 300
# What a note may keep of HTML: text structure, code, tables and plain links. No images
# (a remote image tells the candidate when a reviewer opened the note), no forms, no
# classes or ids (they could mimic or clobber the kit's own markup), no styles, and no headings:
# JupyterLab's table of contents lists headings found in outputs, above the kit's own sections,
# so a note's headings are shown as bold paragraphs instead (HEADING below).
ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "dl", "dt", "em",
        "hr", "i", "kbd", "li", "ol", "p", "pre", "q", "s",
        "samp", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
        "tfoot", "th", "thead", "tr", "u", "ul",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES: Mapping[str, set[str]] = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "td": {"align"},
    "th": {"align"},
    "ol": {"start"},
}
DROPPED_WITH_CONTENT = frozenset({"script", "style", "template", "noscript", "iframe", "object"})
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"
MARKDOWN_PLUGINS = ("strikethrough", "table")
HEADING = '<p class="gl-note-heading"><strong>{text}</strong></p>'  # the class is dropped by sanitize
_HEADING_TAG = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
# Control characters (C0 but tab, newline and carriage return; DEL; C1), zero-width and
# direction marks, bidi embeddings, overrides and isolates: what can hide or reorder text.
CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
# C0 controls and DEL as their Unicode control pictures (U+2400..U+2421); the rest as U+XXXX.
_C0_PICTURES = {**{code: chr(0x2400 + code) for code in range(0x20)}, 0x7F: "\u2421"}
TERMINAL_REPLACEMENT = "?"


def strip_controls(text: object) -> str:
    """Text (any value) without control, bidi or zero-width characters (tab, newline, CR kept)."""
    return CONTROL_CHARS.sub("", str(text))


def html_text(value: object) -> str:
    """Any value as HTML text or a quoted attribute value: markup escaped, control characters removed."""
    return html.escape(strip_controls(value), quote=True)


def visible_controls(text: object) -> str:
    """Text with each control, bidi or zero-width character shown as a visible mark (tab, newline, CR kept).

    C0 controls and DEL become their control pictures (ESC is "\u241b"); the others "<U+202E>".
    """
    return CONTROL_CHARS.sub(_visible, str(text))


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return _C0_PICTURES.get(code) or f"<U+{code:04X}>"


def html_visible(value: object) -> str:
    """Any value as HTML text or a quoted attribute value: markup escaped, control characters shown."""
    return html.escape(visible_controls(value), quote=True)


def terminal_text(text: object) -> str:
    """Text safe for a terminal line: every non-printable character (escape, newline, bidi) as "?"."""
    text = str(text)
    if text.isprintable():  # the usual line: nothing to replace (a space is printable)
        return text
    return "".join(ch if ch.isprintable() or ch == " " else TERMINAL_REPLACEMENT for ch in str(text))


def clipped_text(text: object, max_chars: int = MAX_LINE_CHARS) -> str:
    """Text without control, bidi or zero-width characters or CR, cut short to `max_chars` (then "...")."""
    cleaned = strip_controls(text).replace("\r", "")
    return cleaned if len(cleaned) <= max_chars else cleaned[:max_chars] + "..."


_PLAIN = frozenset({int, float, bool, type(None)})  # nothing to repair inside


def valid_utf8(value: Any) -> Any:
    """The same data with every string valid UTF-8 (undecodable bytes become U+FFFD)."""
    # Exact types first: reading a gradebook repairs every line's evidence, some 100 values each,
    # and an ASCII string (most of them) has no surrogate to replace.
    kind = type(value)
    if kind in _PLAIN or (kind is str and value.isascii()):
        return value
    if kind is list or kind is tuple:
        return [valid_utf8(v) for v in value]
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if kind is dict or isinstance(value, Mapping):
        return {valid_utf8(k): valid_utf8(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [valid_utf8(v) for v in value]
    return value


def one_line(text: str, limit: int = 600) -> str:
    """Text as one printable line: tab, CR, newline as spaces, other non-printables "?", bad bytes U+FFFD."""
    repaired = valid_utf8(text)
    if isinstance(repaired, str) and repaired.isprintable():  # most messages: nothing to replace
        flat = repaired
    else:
        flat = "".join(ch if ch.isprintable() else " " if ch in "\n\r\t" else "?" for ch in repaired)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def markdown_html(text: str) -> str:
    """Markdown rendered to HTML, then sanitized: no script, event handler or unsafe URL survives.

    Raw HTML in the Markdown goes through the same allowlist as the rendered output, so a
    note can keep a `<details>` block but never a `<script>`, an `onerror=` or a
    `javascript:` link. Headings become bold paragraphs (a heading tag the pattern misses
    is stripped by the allowlist, its text kept).
    """
    rendered = _markdown()(strip_controls(text[:MAX_MARKDOWN_CHARS]))
    return sanitize_html(demote_headings(rendered if isinstance(rendered, str) else ""))


@functools.cache
def _markdown() -> Callable[[str], str | list[object]]:
    # mistune and nh3 are imported when a note is rendered, so the escaping above stays
    # standard library for the modules that need only it (errorline, the take-homes' drivers).
    import mistune

    return mistune.create_markdown(escape=False, plugins=list(MARKDOWN_PLUGINS))  # type: ignore[return-value]


def demote_headings(fragment: str) -> str:
    """Headings as bold paragraphs, so a candidate's note adds nothing to a notebook's outline."""
    return _HEADING_TAG.sub(lambda match: HEADING.format(text=match.group(2)), fragment)


def sanitize_html(fragment: str) -> str:
    """An HTML fragment reduced to the note allowlist (idempotent: safe to apply twice)."""
    import nh3

    return nh3.clean(
        fragment,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )
