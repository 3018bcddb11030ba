"""Run one notebook with papermill (kernel on IPC transport) and export its HTML copy."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CELL_TIMEOUT = 900  # one cell may run every sandboxed command of a submission
KERNEL = "python3"


def notebook_for(takehome: str) -> Path:
    """The parameterized notebook of a take-home (package data of its plugin)."""
    from gradelib import takehomes
    from gradelib.errors import GradelibError

    path = takehomes.load(takehome).notebook()
    if not path.is_file():
        raise GradelibError(f"notebook {path} is missing: the take-home {takehome!r} is installed incompletely")
    return path


def _ipc_kernel_manager(folder: str) -> type:
    """A kernel manager on IPC transport: no TCP port, no "running over TCP" warning."""
    from jupyter_client.manager import KernelManager
    from traitlets import default

    class IpcKernelManager(KernelManager):
        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            return str(Path(folder) / "kernel")

    return IpcKernelManager


def execute(source: Path, target: Path, parameters: Mapping[str, Any]) -> str | None:
    """Execute `source` into `target`; the error in one line, or None when every cell ran.

    papermill saves the notebook even when a cell fails, so the evidence up to the
    failure is kept.
    """
    import papermill  # slow to import; only the workers need it

    try:
        with tempfile.TemporaryDirectory(prefix="gradelib-kernel-") as sockets:
            papermill.execute_notebook(
                str(source),
                str(target),
                parameters=dict(parameters),
                kernel_name=KERNEL,
                progress_bar=False,
                log_output=False,
                execution_timeout=CELL_TIMEOUT,
                cwd=str(Path(target).resolve().parent),  # where a reviewer who opens the report runs it too
                kernel_manager_class=_ipc_kernel_manager(sockets),
            )
    except papermill.PapermillExecutionError as exc:
        return f"cell {exc.cell_index} raised {exc.ename}: {exc.evalue}"[:500]
    except Exception as exc:  # a dead kernel or a timeout must not sink the batch
        return f"{type(exc).__name__}: {exc}"[:500]
    return None


def export_html(notebook: Path) -> Path | None:
    """An HTML copy beside the notebook, readable without Jupyter."""
    import nbformat
    from nbconvert import HTMLExporter

    if not notebook.exists():
        return None
    body, _ = HTMLExporter().from_notebook_node(nbformat.read(notebook, as_version=4))
    target = notebook.with_suffix(".html")
    target.write_text(body, encoding="utf-8")
    return target
