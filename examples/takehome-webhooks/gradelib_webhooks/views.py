"""The notebook's view of the deliveries: one table per scenario, what was sent, answered and applied.

`deliveries_view` makes the view's data (JSON-able, what `WebhooksGrading.views()` returns under
DELIVERIES, stored beside the batch's results); `deliveries_html` shows it, from a fresh run or from
the stored results alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gradelib.takehome import STYLE, Html, html_visible, table_html

from gradelib_webhooks.deliveries import ScenarioRun
from gradelib_webhooks.runs import LABELS

DELIVERIES = "deliveries"  # the view's name


def deliveries_rows(run: ScenarioRun) -> list[dict[str, object]]:
    """One row per delivery, with how often the ledger ended up applying its event."""
    counts = run.verdict.counts if run.measured else {}
    return [{**delivery.to_dict(), "times applied": counts.get(delivery.event)} for delivery in run.deliveries]


def deliveries_view(runs: Mapping[str, ScenarioRun]) -> list[dict[str, Any]]:
    """Every scenario's title, what it tries, its verdict and its delivery rows, as plain data."""
    return [
        {
            "scenario": run.scenario.name,
            "title": run.scenario.title,
            "about": run.scenario.about,
            "verdict": run.unmeasured() or run.verdict.describe(),
            "rows": deliveries_rows(run),
        }
        for run in runs.values()
    ]


def deliveries_html(view: Sequence[Mapping[str, Any]] | None) -> Html:
    """Every scenario's deliveries and verdict, as HTML (candidate text escaped by table_html)."""
    parts = [STYLE]
    lines = []
    for scenario in view or ():
        verdict = str(scenario.get("verdict") or "")
        parts.append(
            f"<div class='gl-card'><b>{html_visible(str(scenario.get('title') or ''))}</b>: "
            f"{html_visible(str(scenario.get('about') or ''))}"
            f"<br>{html_visible(verdict)}{table_html(list(scenario.get('rows') or []), LABELS)}</div>"
        )
        lines.append(f"{scenario.get('scenario')}: {verdict}")
    return Html("".join(parts), "\n".join(lines) or "(no deliveries)")
