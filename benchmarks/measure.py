"""The kit's side: `check` per submission, the identical line alone, and the unit costs of its overhead."""

from __future__ import annotations

import contextlib
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradelib import takehomes
from gradelib.sandbox import Sandbox
from gradelib.takehomes.payments.fakegateway import Gateway
from gradelib.takehomes.replay import ReplayGrading
from gradelib.takehomes.replay.modelstub import ModelStub

TRIVIAL_CELL = "x = 1"
IMPORT_PREFIXES = ("import ", "from ", "%matplotlib")


def check_one(path: str) -> dict[str, Any]:
    """`gradelib check` in-process (no notebook): the take-home's check(), timed (picklable, for a pool)."""
    source = Path(path)
    takehome = takehomes.detect(source) or "unknown"
    started = time.perf_counter()
    report = takehomes.load(takehome).check(source)
    seconds = time.perf_counter() - started
    return {
        "name": source.name,
        "takehome": takehome,
        "seconds": seconds,
        "outcomes": [x.outcome for x in report.lines],
    }


@dataclass
class SandboxTally:
    """What one grading asked of the sandbox: runs, copies, server instances, and time spent in them."""

    runs: int = 0
    copies: int = 0
    services: int = 0
    run_seconds: float = 0.0  # wall time inside Sandbox.run (concurrent runs each count)
    command_seconds: float = 0.0  # RunResult.duration: from starting nsinit to the command's exit
    copy_seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if k != "lock"}


@contextlib.contextmanager
def tallied() -> Iterator[SandboxTally]:
    """Count Sandbox.run and Sandbox.copy calls in this process while the block runs (wraps, then restores)."""
    tally = SandboxTally()
    original_run, original_copy = Sandbox.run, Sandbox.copy

    def run(self: Sandbox, argv: Any, cwd: Path, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = original_run(self, argv, cwd, **kwargs)
        with tally.lock:
            tally.runs += 1
            tally.services += len(kwargs.get("services", ()))
            tally.run_seconds += time.perf_counter() - started
            tally.command_seconds += result.duration
        return result

    def copy(self: Sandbox, label: str, **kwargs: Any) -> Path:
        started = time.perf_counter()
        result = original_copy(self, label, **kwargs)
        with tally.lock:
            tally.copies += 1
            tally.copy_seconds += time.perf_counter() - started
        return result

    Sandbox.run, Sandbox.copy = run, copy  # type: ignore[method-assign]
    try:
        yield tally
    finally:
        Sandbox.run, Sandbox.copy = original_run, original_copy  # type: ignore[method-assign]


def check_tallied(path: str) -> dict[str, Any]:
    """check_one, with the sandbox calls it made."""
    with tallied() as tally:
        result = check_one(path)
    return {**result, "sandbox": tally.to_dict()}


def kit_identical(path: str) -> dict[str, Any]:
    """The kit's identical line alone: a grading's two concurrent replays and the comparison."""
    started = time.perf_counter()
    with ReplayGrading(Path(path)) as grading:
        line = grading.identical()
    return {"seconds": time.perf_counter() - started, "outcome": line.outcome}


# -- unit costs -----------------------------------------------------------------------------------


def median_time(action: Callable[[], Any], repeat: int) -> float:
    """Median wall time of `repeat` calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def sandbox_unit(source: Path, repeat: int = 7) -> dict[str, float]:
    """A trivial `true` through Sandbox.run vs bare subprocess, and one Sandbox.copy of the submission.

    Also `true` with a model stub or a gateway bound inside the sandbox and served from here:
    the difference is what a kit server costs a run, in place.
    """
    bare = median_time(lambda: subprocess.run(["true"], check=False), repeat)
    with Sandbox(source) as box:
        copy = box.copy("unit")
        run = median_time(lambda: box.run(["true"], copy), repeat)
        copying = median_time(lambda: box.copy("unit"), repeat)
        with_stub = median_time(lambda: box.run(["true"], copy, services=[_stub_service()]), repeat)
        with_gateway = median_time(lambda: box.run(["true"], copy, services=[_gateway_service()]), repeat)
    return {
        "bare_true": bare,
        "sandbox_true": run,
        "per_run": max(0.0, run - bare),
        "per_copy": copying,
        "with_model_stub": with_stub,
        "with_gateway": with_gateway,
        "model_stub_in_place": max(0.0, with_stub - run),
        "gateway_in_place": max(0.0, with_gateway - run),
    }


def _stub_service() -> Any:
    from gradelib.sandbox import Service

    return Service("model-stub", 8080, ModelStub("healthy").serve, {"OPENAI_BASE_URL": "http://{host}:{port}/v1"})


def _gateway_service() -> Any:
    from gradelib.sandbox import Service
    from gradelib.takehomes.payments.clientruns import GATEWAY_ENV, GATEWAY_PORT

    return Service("gateway", GATEWAY_PORT, Gateway("transient").serve, GATEWAY_ENV)


def _serve_once(server: ModelStub | Gateway) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    with server.serve(sock):
        pass


def server_unit(repeat: int = 7) -> dict[str, float]:
    """Start + stop of one model stub and one gateway, serving nothing."""
    return {
        "model_stub": median_time(lambda: _serve_once(ModelStub("healthy")), repeat),
        "gateway": median_time(lambda: _serve_once(Gateway("transient")), repeat),
    }


def _notebook(cell: str, folder: Path) -> Path:
    import nbformat  # untyped

    book = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    book.cells.append(nbformat.v4.new_code_cell(cell))  # type: ignore[no-untyped-call]
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / f"nb-{abs(hash(cell))}.ipynb"
    nbformat.write(book, path)  # type: ignore[no-untyped-call]
    return path


def import_cell(takehome: str) -> str:
    """The import lines of a take-home's notebook, as one cell (what its kernel loads besides the checks)."""
    import nbformat

    from gradelib import takehomes

    book = nbformat.read(takehomes.load(takehome).notebook(), as_version=4)  # type: ignore[no-untyped-call]
    lines = [
        line
        for cell in book.cells
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
        if line.startswith(IMPORT_PREFIXES)
    ]
    return "\n".join(lines) or TRIVIAL_CELL


def kernel_unit(takehome_names: tuple[str, ...] = ("replay", "payments"), repeat: int = 3) -> dict[str, Any]:
    """One papermill run through the kit's execute() (IPC kernel): a trivial cell, and each notebook's imports."""
    from gradelib.execution.execute import execute

    with tempfile.TemporaryDirectory(prefix="gradelib-bench-nb-") as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        import papermill  # noqa: F401  (once per worker process in a batch)

        import_seconds = time.perf_counter() - started
        out = folder / "out.ipynb"
        trivial = _notebook(TRIVIAL_CELL, folder)
        execute(trivial, out, {})  # warm the disk cache; not counted
        result: dict[str, Any] = {
            "import_papermill": import_seconds,
            "trivial": median_time(lambda: execute(trivial, out, {}), repeat),
            "imports": {},
        }
        for name in takehome_names:
            book = _notebook(import_cell(name), folder)
            result["imports"][name] = median_time(lambda b=book: execute(b, out, {}), repeat)  # type: ignore[misc]
        return result


def export_unit(notebook: Path, repeat: int = 3) -> dict[str, float]:
    """An executed report's final form and HTML written (`write_report`): the first call (imports nbconvert) and
    warm ones."""
    from gradelib.review.reportwriter import ReportForm, write_report

    with tempfile.TemporaryDirectory(prefix="gradelib-bench-html-") as tmp:
        copy = Path(tmp) / notebook.name
        copy.write_bytes(notebook.read_bytes())
        started = time.perf_counter()
        write_report(copy, notebook.read_bytes(), ReportForm())
        first = time.perf_counter() - started
        warm = median_time(lambda: write_report(copy, notebook.read_bytes(), ReportForm()), repeat)
        return {"first": first, "warm": warm}


WORKER_STARTUP = """
import json, os, sys, time
from pathlib import Path
report, trivial, out = (Path(a) for a in sys.argv[1:4])
t0 = time.perf_counter()
import gradelib.batch.warmup  # what the batch's fork server imports, once per batch
t1 = time.perf_counter()
from gradelib.batch.worker import adopt
from gradelib.execution.execute import execute
from gradelib.review.reportwriter import ReportForm, write_report
adopt(dict(os.environ), os.getcwd(), list(sys.path))  # what a worker forked from it does first
t2 = time.perf_counter()
execute(trivial, out, {})
t3 = time.perf_counter()
execute(trivial, out, {})
t4 = time.perf_counter()
write_report(report, report.read_bytes(), ReportForm())
t5 = time.perf_counter()
write_report(report, report.read_bytes(), ReportForm())
t6 = time.perf_counter()
figures = {"per_batch": t1 - t0, "adopt": t2 - t1, "first_execute": t3 - t2, "warm_execute": t4 - t3}
figures |= {"first_export": t5 - t4, "warm_export": t6 - t5}
print(json.dumps(figures))
"""


def worker_startup_unit(notebook: Path, repeat: int = 3) -> dict[str, float]:
    """What a batch pays before its workers run warm, median over fresh processes: the imports of the
    fork server its workers are forked from (`gradelib.batch.warmup`, once per batch), and per worker its
    start (`adopt`), its first notebook run beyond a warm one (the kernel fork server) and its first
    HTML export beyond a warm one."""
    import json
    import sys

    runs = []
    with tempfile.TemporaryDirectory(prefix="gradelib-bench-worker-") as tmp:
        folder = Path(tmp)
        copy = folder / notebook.name
        copy.write_bytes(notebook.read_bytes())
        trivial = _notebook(TRIVIAL_CELL, folder)
        for _ in range(repeat):
            done = subprocess.run(
                [sys.executable, "-c", WORKER_STARTUP, str(copy), str(trivial), str(folder / "out.ipynb")],
                capture_output=True,
                text=True,
                check=True,
            )
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    figures = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
    figures["per_worker"] = (
        figures["adopt"]
        + max(0.0, figures["first_execute"] - figures["warm_execute"])
        + max(0.0, figures["first_export"] - figures["warm_export"])
    )
    return figures
