"""Charts of gateway attempts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from gradelib.display import render

STATUS_COLOURS = {"2xx": "#1a7f37", "503": "#cf222e", "hung": "#6e7781", "other": "#bf8700"}
STATUS_LABELS = {"2xx": "2xx answered", "503": "503", "hung": "hung (no answer)", "other": "other status"}
CHARGED_EDGE = "#000000"
MAX_POINTS = 500  # per scenario; a flood beyond this is cut from the chart, not the table


def status_class(status: object) -> str:
    """Which colour class a logged status belongs to: 2xx, 503, hung or other."""
    if status is None or status == "hung":
        return "hung"
    if isinstance(status, int) and 200 <= status < 300:
        return "2xx"
    return "503" if status == 503 else "other"


def attempts_timeline(attempts: Mapping[str, Sequence[Mapping[str, Any]]], *, title: str = "") -> Figure:
    """One row per scenario, one marker per request at seconds since that scenario's first request.

    `attempts` maps scenario name to request rows with `time` (seconds since the first
    request), `status` (an int, or "hung"/None) and `charged`. Markers are coloured by
    status; a black edge marks a request that moved money.
    """
    names = list(attempts)
    figure = Figure(figsize=(7.5, 0.6 + 0.55 * max(len(names), 1)), layout="constrained")
    axes = figure.add_subplot()
    seen: set[str] = set()
    longest = 0.0
    for row_number, name in enumerate(names):
        y = len(names) - 1 - row_number
        rows = list(attempts[name])[:MAX_POINTS]
        if not rows:
            axes.text(0, y, "  no requests", va="center", fontsize=8, color="#6e7781")
        for row in rows:
            kind = status_class(row.get("status"))
            seen.add(kind)
            x = float(row.get("time") or 0.0)
            longest = max(longest, x)
            charged = bool(row.get("charged"))
            axes.plot(
                [x], [y], marker="o", linestyle="none", markersize=9 if charged else 7,
                color=STATUS_COLOURS[kind], markeredgecolor=CHARGED_EDGE if charged else STATUS_COLOURS[kind],
                markeredgewidth=2 if charged else 1,
            )  # fmt: skip
    axes.set_yticks(range(len(names)), list(reversed(names)))
    axes.set_ylim(-0.7, max(len(names), 1) - 0.3)
    axes.set_xlim(-0.05 * max(longest, 1.0), max(longest, 1.0) * 1.05)
    axes.set_xlabel("seconds since the scenario's first request")
    axes.grid(axis="x", alpha=0.3)
    handles = [
        Line2D([], [], marker="o", linestyle="none", color=STATUS_COLOURS[k], label=STATUS_LABELS[k])
        for k in STATUS_COLOURS
        if k in seen
    ]
    handles.append(
        Line2D([], [], marker="o", linestyle="none", color="white", markeredgecolor=CHARGED_EDGE,
               markeredgewidth=2, label="charged")
    )  # fmt: skip
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    if title:
        axes.set_title(title, fontsize=10)
    return figure


def attempts_html(attempts: Mapping[str, Sequence[Mapping[str, Any]]]) -> render.Html:
    """The request log of each scenario as an escaped table under the scenario's name."""
    parts = []
    for name, rows in attempts.items():
        table = render.table_html(list(rows)) if rows else "<p>(no requests)</p>"
        parts.append(f'<div class="gl-key">{render.esc(name)}</div>{table}')
    return render.Html(f'{render.STYLE}<div class="gl-card">{"".join(parts)}</div>')
