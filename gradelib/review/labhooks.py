"""JupyterLab's save hook: a notebook saved with a live scoring panel keeps only the panel's static table.

A live ipywidgets output saved into a notebook shows "Error displaying widget: model not
found" to whoever opens it next (the widget's model died with the kernel). The scoring
panel's output carries a static, blind score table beside the widget view and is marked
in its metadata; this hook drops the widget view from such outputs (and any saved widget
state, which would hold what one reviewer saw) before the file is written, autosave
included. It is a Jupyter server extension, enabled for servers run from the kit's
environment by `etc/jupyter/jupyter_server_config.d/gradelib.json`; it touches no other
output.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
STATIC_MIME = "text/html"
PANEL_OUTPUT_KEY = "gradelib"
PANEL_MARK = "scoring_panel"
WIDGET_STATE_KEY = "widgets"


def is_panel_output(output: Any) -> bool:
    """Whether an output is a scoring panel's (marked in its metadata by the kit)."""
    if not isinstance(output, MutableMapping):
        return False
    metadata = output.get("metadata") or {}
    mark = metadata.get(PANEL_OUTPUT_KEY) if isinstance(metadata, MutableMapping) else None
    return isinstance(mark, MutableMapping) and bool(mark.get(PANEL_MARK))


def strip_panels(notebook: MutableMapping[str, Any]) -> int:
    """Drop the live widget view of every scoring panel output (its static table stays); how many were dropped."""
    stripped = 0
    for cell in notebook.get("cells") or []:
        for output in cell.get("outputs") or [] if isinstance(cell, MutableMapping) else []:
            data = output.get("data") if is_panel_output(output) else None
            if isinstance(data, MutableMapping) and WIDGET_VIEW in data and STATIC_MIME in data:
                del data[WIDGET_VIEW]
                stripped += 1
    metadata = notebook.get("metadata")
    if stripped and isinstance(metadata, MutableMapping):
        metadata.pop(WIDGET_STATE_KEY, None)
    return stripped


def pre_save(model: MutableMapping[str, Any], **_kwargs: Any) -> None:
    """A contents manager's pre-save hook: strip live scoring panels from a notebook about to be saved."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), MutableMapping):
        strip_panels(model["content"])


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """Jupyter server's discovery of this module as an extension."""
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register the hook on the server's contents manager (beside any hook already configured)."""
    serverapp.contents_manager.register_pre_save_hook(pre_save)
    serverapp.log.info("gradelib: scoring panels are saved as static tables")
