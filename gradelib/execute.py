"""Run one notebook with papermill (kernel on IPC transport) and export its HTML copy."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gradelib.reportfiles import BATCH_ONLY, prepare_for_reviewers

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT = 900  # one cell may run every sandboxed command of a submission
KERNEL = "python3"


def notebook_for(takehome: str) -> Path:
    """The parameterized notebook of a take-home."""
    from gradelib.errors import GradelibError

    path = NOTEBOOKS / f"{takehome}.ipynb"
    if not path.is_file():
        raise GradelibError(f"notebook {path} is missing; is the kit checkout complete?")
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
    failure is kept. Batch-only parameters given (`save`, `rerun`) are then set back in
    the executed notebook, so a reviewer's Run All shows its stored results.
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
                cwd=str(NOTEBOOKS.parent),
                kernel_manager_class=_ipc_kernel_manager(sockets),
            )
    except papermill.PapermillExecutionError as exc:
        error: str | None = f"cell {exc.cell_index} raised {exc.ename}: {exc.evalue}"[:500]
    except Exception as exc:  # a dead kernel or a timeout must not sink the batch
        error = f"{type(exc).__name__}: {exc}"[:500]
    else:
        error = None
    # As a reviewer opens it: the batch-only parameters it was given (save, rerun) set back.
    try:
        prepare_for_reviewers(target, {key: value for key, value in BATCH_ONLY.items() if key in parameters})
    except Exception as exc:  # an unreadable notebook stays as papermill left it, as evidence
        error = error or f"cannot prepare the executed notebook for reviewers: {exc}"[:500]
    return error


def export_html(notebook: Path) -> Path | None:
    """An HTML copy beside the notebook, readable without Jupyter (no code inputs; see reportfiles.py)."""
    from gradelib.reportfiles import export_html as export

    return export(notebook)
