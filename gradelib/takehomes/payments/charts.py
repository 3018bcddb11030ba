"""Charts of gateway attempts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gradelib.takehome import STYLE, Html, html_text, html_visible, table_html
from gradelib.takehomes.payments.runs import LABELS

STATUS_COLOURS = {"2xx": "#1a7f37", "503": "#cf222e", "hung": "#6e7781", "other": "#bf8700"}
STATUS_LABELS = {"2xx": "2xx answered", "503": "503", "hung": "hung (no answer)", "other": "other status"}
CHARGED_EDGE = "#000000"
WIDTH, TOP, ROW = 760, 26, 34
PLOT_LEFT, PLOT_RIGHT = 110, 580
MAX_POINTS = 500  # per scenario; a flood beyond this is cut from the chart, not the table


def status_class(status: object) -> str:
    """Which colour class a logged status belongs to: 2xx, 503, hung or other."""
    if status is None or status == "hung":
        return "hung"
    if isinstance(status, int) and 200 <= status < 300:
        return "2xx"
    return "503" if status == 503 else "other"


@dataclass(frozen=True)
class Svg:
    """An SVG drawing the notebook shows as an image (built only from escaped parts)."""

    body: str
    text: str = ""  # the plain-text output: what the drawing shows, in words

    def _repr_svg_(self) -> str:
        return self.body

    def __repr__(self) -> str:
        return self.text or "<svg>"


def _ticks(longest: float) -> list[float]:
    """About five round tick values from 0 to `longest` seconds."""
    raw = max(longest, 1.0) / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(int(max(longest, 1.0) / step) + 1)]


def _marker(x: float, y: float, kind: str, charged: bool) -> str:
    colour = STATUS_COLOURS[kind]
    if charged:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5.5" fill="{colour}" stroke="{CHARGED_EDGE}" stroke-width="2"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def _legend(seen: set[str], left: float) -> list[str]:
    items = [(STATUS_LABELS[k], _marker(left, 0, k, False)) for k in STATUS_COLOURS if k in seen]
    items.append(
        ("charged", f'<circle cx="{left:.1f}" cy="0" r="5.5" fill="#ffffff" stroke="{CHARGED_EDGE}" stroke-width="2"/>')
    )
    parts = []
    for number, (text, marker) in enumerate(items):
        y = TOP + 6 + number * 18
        label = f'<text x="{left + 10:.1f}" y="4">{html_text(text)}</text>'
        parts.append(f'<g transform="translate(0,{y})">{marker}{label}</g>')
    return parts


def attempts_timeline(attempts: Mapping[str, Sequence[Mapping[str, Any]]] | None, *, title: str = "") -> Svg:
    """One row per scenario, one marker per request at seconds since that scenario's first request.

    `attempts` maps scenario name to request rows with `time` (seconds since the first
    request), `status` (an int, or "hung"/None) and `charged`. Markers are coloured by
    status; a black edge marks a request that moved money. Drawn as plain SVG: a payments
    report needs no plotting library. None (results stored without the view) draws no scenario.
    """
    attempts = attempts or {}
    names = list(attempts)
    rows = {name: list(attempts[name])[:MAX_POINTS] for name in names}
    longest = max((float(r.get("time") or 0.0) for rs in rows.values() for r in rs), default=0.0)
    ticks = _ticks(longest)
    span = ticks[-1] if ticks[-1] > 0 else 1.0
    height = TOP + ROW * max(len(names), 1) + 34

    def x_of(seconds: float) -> float:
        return PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * seconds / span

    parts = [f'<text x="{WIDTH / 2:.0f}" y="14" text-anchor="middle" font-weight="600">{html_text(title)}</text>']
    bottom = TOP + ROW * max(len(names), 1)
    for tick in ticks:
        x = x_of(tick)
        parts.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{bottom}" stroke="#d0d7de"/>')
        parts.append(f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="middle">{tick:g}</text>')
    parts.append(
        f'<text x="{(PLOT_LEFT + PLOT_RIGHT) / 2:.0f}" y="{bottom + 30}" text-anchor="middle">'
        "seconds since the scenario&#x27;s first request</text>"
    )
    seen: set[str] = set()
    for number, name in enumerate(names):
        y = TOP + ROW * number + ROW / 2
        parts.append(f'<text x="{PLOT_LEFT - 10}" y="{y + 4:.1f}" text-anchor="end">{html_text(name)}</text>')
        if not rows[name]:
            parts.append(f'<text x="{PLOT_LEFT + 4}" y="{y + 4:.1f}" fill="#6e7781">no requests</text>')
        for row in rows[name]:
            kind = status_class(row.get("status"))
            seen.add(kind)
            parts.append(_marker(x_of(float(row.get("time") or 0.0)), y, kind, bool(row.get("charged"))))
    parts += _legend(seen, PLOT_RIGHT + 24)
    body = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0f}" '
        f'viewBox="0 0 {WIDTH} {height:.0f}" font-family="sans-serif" font-size="11">'
        f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(parts)}</svg>'
    )
    counts = ", ".join(f"{name}: {len(rows[name])} requests" for name in names)
    return Svg(body, f"request timeline ({counts or 'no scenarios'})")


def attempts_html(attempts: Mapping[str, Sequence[Mapping[str, Any]]] | None) -> Html:
    """The request log of each scenario as an escaped table under the scenario's name."""
    parts = []
    for name, rows in (attempts or {}).items():
        table = table_html(list(rows), LABELS) if rows else "<p>(no requests)</p>"
        parts.append(f'<div class="gl-key">{html_visible(name)}</div>{table}')
    return Html(f'{STYLE}<div class="gl-card">{"".join(parts)}</div>')
