"""Grade many submissions: papermill once per submission, in parallel, failures isolated."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gradelib import ingest, takehomes
from gradelib.errors import GradelibError

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT = 900  # one cell may run every sandboxed command of a submission


@dataclass(frozen=True)
class GradeOutcome:
    """What happened to one submission in a batch."""

    submission: str
    takehome: str | None
    status: Literal["graded", "error"]
    notebook: str | None
    html: str | None
    result: str | None
    error: str | None
    seconds: float


def notebook_for(takehome: str) -> Path:
    """The parameterized notebook of a take-home."""
    path = NOTEBOOKS / f"{takehome}.ipynb"
    if not path.is_file():
        raise GradelibError(f"notebook {path} is missing; is the kit checkout complete?")
    return path


def grade_one(path: Path, reports: Path, takehome: str | None = None) -> GradeOutcome:
    """Run the take-home's notebook on one submission; never raises for a bad submission."""
    started = time.monotonic()
    name = ingest.submission_name(path)
    chosen = takehome
    try:
        with ingest.open_submission(path) as sub:
            chosen = takehome or takehomes.detect(sub.path)
            if chosen is None:
                raise GradelibError("cannot tell which take-home this answers (no run.sh, cassettes/ or checkout.mjs)")
            out_dir = reports / chosen
            out_dir.mkdir(parents=True, exist_ok=True)
            notebook = out_dir / f"{name}.ipynb"
            error = _execute(notebook_for(chosen), notebook, sub.path, name, out_dir)
            html = _export_html(notebook)
            result = out_dir / f"{name}.json"
            return GradeOutcome(
                name,
                chosen,
                "error" if error else "graded",
                str(notebook),
                str(html) if html else None,
                str(result) if result.exists() else None,
                error,
                time.monotonic() - started,
            )
    except (GradelibError, OSError) as exc:
        return GradeOutcome(name, chosen, "error", None, None, None, str(exc), time.monotonic() - started)


def _ipc_kernel_manager(folder: str) -> type:
    """A kernel manager on IPC transport: no TCP port, no "running over TCP" warning."""
    from jupyter_client import KernelManager
    from traitlets import default

    class IpcKernelManager(KernelManager):
        @default("transport")
        def _default_transport(self) -> str:
            return "ipc"

        @default("ip")
        def _default_ip(self) -> str:
            return str(Path(folder) / "kernel")

    return IpcKernelManager


def _execute(source: Path, target: Path, submission: Path, name: str, out_dir: Path) -> str | None:
    import papermill  # slow to import; only the workers need it

    try:
        with tempfile.TemporaryDirectory(prefix="gradelib-kernel-") as sockets:
            _run_papermill(papermill, source, target, submission, name, out_dir, sockets)
    except papermill.PapermillExecutionError as exc:
        return f"cell {exc.cell_index} raised {exc.ename}: {exc.evalue}"[:500]
    except Exception as exc:  # a dead kernel or timeout must not sink the batch
        return f"{type(exc).__name__}: {exc}"[:500]
    return None


def _run_papermill(
    papermill: Any, source: Path, target: Path, submission: Path, name: str, out_dir: Path, sockets: str
) -> None:
    papermill.execute_notebook(
        str(source),
        str(target),
        parameters={"submission": str(submission), "name": name, "output_dir": str(out_dir.resolve())},
        kernel_name="python3",
        progress_bar=False,
        log_output=False,
        execution_timeout=CELL_TIMEOUT,
        cwd=str(NOTEBOOKS.parent),
        kernel_manager_class=_ipc_kernel_manager(sockets),
    )


def _export_html(notebook: Path) -> Path | None:
    import nbformat
    from nbconvert import HTMLExporter

    if not notebook.exists():
        return None
    body, _ = HTMLExporter().from_notebook_node(nbformat.read(notebook, as_version=4))
    target = notebook.with_suffix(".html")
    target.write_text(body, encoding="utf-8")
    return target


def grade(
    paths: Sequence[Path],
    *,
    reports: Path = Path("reports"),
    takehome: str | None = None,
    jobs: int | None = None,
    progress: Callable[[int, int, GradeOutcome], None] | None = None,
) -> list[GradeOutcome]:
    """Grade every submission found under `paths`; one failure never stops the others."""
    found: list[Path] = []
    for path in paths:
        found += ingest.find_submissions(Path(path))
    jobs = max(1, jobs or os.cpu_count() or 1)
    outcomes: list[GradeOutcome] = []
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(jobs, max(1, len(found))), mp_context=context) as pool:
        futures: list[Future[GradeOutcome]] = [pool.submit(grade_one, p, Path(reports), takehome) for p in found]
        for done, future in enumerate(futures, start=1):
            try:
                outcome = future.result()
            except Exception as exc:  # a worker that died (killed, out of memory)
                outcome = GradeOutcome(found[done - 1].name, takehome, "error", None, None, None, repr(exc), 0.0)
            outcomes.append(outcome)
            if progress:
                progress(done, len(found), outcome)
    return outcomes
