"""Candidate text made safe to show: sanitized Markdown, escaped text."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

import mistune
import nh3

from gradelib.display.render import STYLE, Html, badge, evidence_html
from gradelib.result import LineResult

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
NOTE_TITLE = "NOTE.md"
MARKDOWN_PLUGINS = ("strikethrough", "table")
HEADING = '<p class="gl-note-heading"><strong>{text}</strong></p>'  # the class is dropped by sanitize
_HEADING_TAG = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")

_markdown = mistune.create_markdown(escape=False, plugins=list(MARKDOWN_PLUGINS))


def escape(text: object) -> str:
    """Text (any value) as HTML: markup characters escaped, control characters removed."""
    return html.escape(_CONTROL.sub("", str(text)), quote=True)


def plain(text: object, max_chars: int = MAX_LINE_CHARS) -> str:
    """Text without control or bidi-override characters, cut short to `max_chars`."""
    cleaned = _CONTROL.sub("", str(text)).replace("\r", "")
    return cleaned if len(cleaned) <= max_chars else cleaned[:max_chars] + "..."


def markdown_html(text: str) -> str:
    """Markdown rendered to HTML, then sanitized: no script, event handler or unsafe URL survives.

    Raw HTML in the Markdown goes through the same allowlist as the rendered output, so a
    note can keep a `<details>` block but never a `<script>`, an `onerror=` or a
    `javascript:` link. Headings become bold paragraphs (a heading tag the pattern misses
    is stripped by the allowlist, its text kept).
    """
    rendered = _markdown(_CONTROL.sub("", text[:MAX_MARKDOWN_CHARS]))
    return sanitize(demote_headings(rendered if isinstance(rendered, str) else ""))


def demote_headings(fragment: str) -> str:
    """Headings as bold paragraphs, so a candidate's note adds nothing to a notebook's outline."""
    return _HEADING_TAG.sub(lambda match: HEADING.format(text=match.group(2)), fragment)


def sanitize(fragment: str) -> str:
    """An HTML fragment reduced to the note allowlist (idempotent: safe to apply twice)."""
    return nh3.clean(
        fragment,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROPPED_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        strip_comments=True,
    )


def hints_html(hints: Sequence[Mapping[str, Any]]) -> str:
    """Hints about a note (line, kind, text) as a table; every cell escaped."""
    if not hints:
        return "<p>(no hints)</p>"
    rows = "".join(
        f"<tr><td>{escape(h.get('line', ''))}</td><td>{escape(h.get('label', h.get('kind', '')))}"
        f"</td><td><code>{escape(h.get('text', ''))}</code></td></tr>"
        for h in hints
    )
    return f"<table><tr><th>line</th><th>hint</th><th>text</th></tr>{rows}</table>"


def note_card(line: LineResult, title: str = "") -> Html:
    """A judgment line's card: verdict, the kit's hints, other evidence, then the note itself.

    The note (evidence `note_html`) is sanitized again here, so a report read back from
    disk cannot smuggle markup in either.
    """
    evidence = dict(line.evidence)
    note, hints = evidence.pop("note_html", None), evidence.pop("hints", None) or []
    evidence.pop("note_file", None)
    heading = f"{badge(line.outcome)} <b>{escape(title or line.id)}</b>"
    tier = f" &nbsp; suggested tier: <b>{escape(line.tier)}</b>" if line.tier else ""
    hints_block = f"<details open><summary>hints for the reviewer (never scored)</summary>{hints_html(hints)}</details>"
    other = evidence_html(evidence)
    other_block = f"<details><summary>evidence</summary>{other}</details>" if other else ""
    note_block = (
        f'<div class="gl-key">{escape(NOTE_TITLE)} (rendered safely)</div>'
        f'<div style="border:1px solid #d0d7de;padding:4px 10px">{sanitize(demote_headings(str(note)))}</div>'
        if note
        else ""
    )
    return Html(
        f'{STYLE}<div class="gl-card">{heading}{tier}<p>{escape(line.message)}</p>'
        f"{hints_block}{other_block}{note_block}</div>"
    )
