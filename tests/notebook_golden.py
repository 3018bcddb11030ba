"""An executed notebook as the text a reviewer reads, with what varies between runs masked, for golden files.

Kept: every cell's source and what its outputs show (HTML, text, errors), HTML split at tags
so a diff reads line by line. Masked: execution counts and timings (dropped with the
metadata), temporary paths, digests and random ids, durations, clock times, cache hits,
PIDs, ports and widget model ids. Pictures (PNG, SVG) become a placeholder naming their
type and nominal size, never their bytes: a chart's pixels depend on timings and fonts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat

HTML = "text/html"
TEXT = "text/plain"
WIDGET = "application/vnd.jupyter.widget-view+json"
SVG = "image/svg+xml"
PICTURES = ("image/png", "image/jpeg", SVG)
SHOWN = (HTML, "text/markdown", TEXT)  # the first a reviewer's front end renders

SVG_BLOCK = re.compile(r"<svg\b([^>]*)>.*?</svg>", re.S | re.I)
SVG_SIZE = re.compile(r"""\b(width|height|viewBox)=["']([^"']*)["']""", re.I)
STYLE_BLOCK = re.compile(r"<style\b[^>]*>.*?</style>", re.S | re.I)
IMG_DATA = re.compile(r"""(<img\b[^>]*\bsrc=["'])data:([\w/+.-]+);base64,[^"']*""", re.I)
FIGURE_REPR = re.compile(r"<Figure size \d+x\d+ with \d+ Axes>")
TAG_GAP = re.compile(r">\s*<")
# An evidence key that holds measured time (its value's numbers are masked up to the next key), and a
# table cell with a decimal (request times and durations: the cards show scores as "30 / 30").
TIMED_KEY = re.compile(r'class="gl-key">[^<]*(\((ms|s)\)|\bms\b|duration|seconds|\btimes?\b)', re.I)
ANY_KEY = re.compile(r'class="gl-key"|</details>')
NUMBER = re.compile(r"\b\d+(\.\d+)?\b")
DECIMAL_CELL = re.compile(r"<td>\d+\.\d+</td>")

# (pattern, replacement), applied in order to every kept string.
VOLATILE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/tmp/[^\s\"'<>`)\]]*"), "<tmp>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\b[0-9a-f]{12,}\b"), "<hex>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2}|\s?UTC)?"), "<when>"),
    (re.compile(r"\b\d{1,2}:\d{2}(:\d{2})?\s?UTC\b"), "<when>"),
    (re.compile(r"\b(127\.0\.0\.1|localhost|0\.0\.0\.0):\d+"), r"\1:<port>"),
    (re.compile(r"\b(port|pid)(\W{1,12})\d+"), r"\1\2<n>"),
    (re.compile(r"\b\d+(\.\d+)?(&nbsp;|\s)?(s|ms)\b"), "<t>"),
    (re.compile(r"\((cache hit|installed in <t>)\)"), "(<cache>)"),
    (re.compile(r"\b(cache hit|cache miss|installed in <t>)\b"), "<cache>"),
)


def mask(text: str, replacements: Mapping[str, str] = {}) -> str:
    """`text` with the given literal paths replaced first, then every volatile pattern."""
    for literal, marker in sorted(replacements.items(), key=lambda item: -len(item[0])):
        text = text.replace(literal, marker)
    for pattern, marker in VOLATILE:
        text = pattern.sub(marker, text)
    return text


def _svg_size(attributes: str) -> str:
    """`<svg width=.. height=.. viewBox=..>`: the root's size, which the data behind a chart does not move."""
    size = " ".join(f"{key}={value}" for key, value in SVG_SIZE.findall(attributes))
    return f"<svg {size}>" if size else "<svg>"


def _svg_placeholder(match: re.Match[str]) -> str:
    return _svg_size(match.group(1))


def _picture(mime: str, data: Mapping[str, Any]) -> str:
    """A picture as its type and nominal size: an SVG root's attributes, a matplotlib figure's repr."""
    if mime == SVG:
        root = re.search(r"<svg\b([^>]*)>", str(data[mime]), re.I)
        return f"<picture: {_svg_size(root.group(1) if root else '')}>"
    plain = FIGURE_REPR.search(str(data.get(TEXT, "")))
    return f"<picture{': ' + plain.group(0) if plain else ''}>"


def _html(text: str, styles: dict[str, int]) -> str:
    """HTML with pictures as placeholders, each distinct style block shown once, one tag per line."""
    text = SVG_BLOCK.sub(_svg_placeholder, text)
    text = IMG_DATA.sub(lambda m: f"{m.group(1)}<{m.group(2)}>", text)

    def style(match: re.Match[str]) -> str:
        block = match.group(0)
        if block in styles:
            return f"<style: as block {styles[block]}>"
        styles[block] = len(styles) + 1
        return f"<style: block {styles[block]}>\n{block}"

    text = STYLE_BLOCK.sub(style, text)
    return "\n".join(_timings_masked(TAG_GAP.sub(">\n<", text).split("\n")))


def _timings_masked(lines: list[str]) -> list[str]:
    """Numbers under an evidence key that holds time, and decimals in table cells, as `<n>`.

    Under such a key, list items that read the same once masked are shown once: how many runs
    measured a wait depends on the waits themselves (the kit repeats a run while they look short).
    """
    out, timed = [], False
    for line in lines:
        if ANY_KEY.search(line):
            timed = bool(TIMED_KEY.search(line))
            out.append(line)
            continue
        line = DECIMAL_CELL.sub("<td><n></td>", line)
        if timed:
            line = NUMBER.sub("<n>", line)
            if line.startswith("<li>") and out and out[-1] == line:
                continue
        out.append(line)
    return out


def _output(output: Mapping[str, Any], styles: dict[str, int]) -> list[str]:
    kind = output.get("output_type")
    if kind == "stream":
        return [f"--- {output.get('name')}", str(output.get("text", "")).rstrip("\n")]
    if kind == "error":
        return [f"--- error {output.get('ename')}: {output.get('evalue')}"]
    data: Mapping[str, Any] = output.get("data") or {}
    if WIDGET in data:
        return ["--- widget"]  # its model id changes every run; the static table is the score-table cell's
    for picture in PICTURES:
        if picture in data:
            return [f"--- {picture} {_picture(picture, data)}"]
    for mime in SHOWN:
        if mime in data:
            text = str(data[mime])
            return [f"--- {mime}", _html(text, styles) if mime == HTML else text.rstrip("\n")]
    return [f"--- {kind} ({', '.join(sorted(data))})"]


def notebook_text(path: Path, replacements: Mapping[str, str] = {}) -> str:
    """The notebook's cells and outputs as normalised text (see the module docstring)."""
    nb = nbformat.read(path, as_version=4)
    styles: dict[str, int] = {}
    parts: list[str] = []
    for number, cell in enumerate(nb.cells, 1):
        tags = cell.metadata.get("tags", [])
        parts.append(f"=== cell {number} {cell.cell_type}{' [' + ', '.join(tags) + ']' if tags else ''}")
        parts.append(cell.source.rstrip("\n"))
        for output in cell.get("outputs", ()):
            parts.extend(_output(output, styles))
    return "\n".join(mask(part, replacements) for part in parts) + "\n"
