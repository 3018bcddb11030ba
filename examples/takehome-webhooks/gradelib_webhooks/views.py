"""The notebook's view of the deliveries: one table per scenario, what was sent, answered and applied."""

from __future__ import annotations

from collections.abc import Mapping

from gradelib import safetext
from gradelib.display import render

from gradelib_webhooks.deliveries import ScenarioRun


def deliveries_rows(run: ScenarioRun) -> list[dict[str, object]]:
    """One row per delivery, with how often the ledger ended up applying its event."""
    counts = run.verdict.counts if run.measured else {}
    return [{**delivery.to_dict(), "times applied": counts.get(delivery.event)} for delivery in run.deliveries]


def deliveries_html(runs: Mapping[str, ScenarioRun]) -> render.Html:
    """Every scenario's deliveries and verdict, as HTML (candidate text escaped by table_html)."""
    parts = [render.STYLE]
    lines = []
    for run in runs.values():
        verdict = run.unmeasured() or run.verdict.describe()
        parts.append(
            f"<div class='gl-card'><b>{safetext.html_visible(run.scenario.title)}</b>: "
            f"{safetext.html_visible(run.scenario.about)}"
            f"<br>{safetext.html_visible(verdict)}{render.table_html(deliveries_rows(run))}</div>"
        )
        lines.append(f"{run.scenario.name}: {verdict}")
    return render.Html("".join(parts), "\n".join(lines))
