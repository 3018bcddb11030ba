"""Local workers forked warm: papermill and the exporter already loaded, the driver's environment as it is now."""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from plugin_site import TINY_ID, installed

from gradelib.batch import driver
from gradelib.batch.worker import adopt

PROBE = (
    "(__import__('sys').modules.get('papermill') is not None,"
    " __import__('os').environ.get('WARMUP_PROBE'),"
    " __import__('os').getcwd(),"
    " __import__('tempfile').gettempdir(),"
    " __import__('sys').path[0])"
)


def _warm_pool() -> ProcessPoolExecutor:
    """One local worker, forked warm and given this process's environment, as a batch's are."""
    return ProcessPoolExecutor(
        1, mp_context=driver._warm_context(), initializer=adopt, initargs=(dict(os.environ), os.getcwd(), sys.path)
    )


def _probe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, mark: str) -> tuple[bool, str, str, str, str]:
    monkeypatch.syspath_prepend(str(tmp_path))  # a take-home installed since the fork server started
    monkeypatch.setenv("WARMUP_PROBE", mark)  # the test's own (a GRADELIB_ name would be an unknown setting)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    with _warm_pool() as pool:
        return pool.submit(eval, PROBE).result(timeout=120)


def test_workers_start_warm_with_the_drivers_environment_as_it_is_now(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = tmp_path / "first"
    first.mkdir()
    assert _probe(monkeypatch, first, "one") == (True, "one", str(first), str(first), str(first))
    later = tmp_path / "later"  # the fork server started for the first pool; this one must not see its folders
    later.mkdir()
    assert _probe(monkeypatch, later, "two") == (True, "two", str(later), str(later), str(later))


def test_workers_start_as_new_interpreters_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(driver.ENV_WARM_WORKERS, "0")
    assert driver._warm_context().get_start_method() == "spawn"


def test_a_take_home_installed_after_the_fork_server_started_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    names = "__import__('gradelib.takehomes', fromlist=['names']).names()"
    with _warm_pool() as pool:
        assert TINY_ID not in pool.submit(eval, names).result(timeout=120)  # the fork server runs from here on
    with (
        installed(tmp_path / "site") as takehome,
        _warm_pool() as pool,
    ):
        assert takehome in pool.submit(eval, names).result(timeout=120)


PROBE_KERNELS = """
import os, resource, sys
from pathlib import Path

import nbformat

from gradelib.execution import kernelfork
from gradelib.execution.execute import execute

BURN = "import time\\nwhile time.process_time() < 0.5: pass"


def server() -> tuple[str, int, bytes, bytes, int]:
    proc = kernelfork.SERVER._proc
    with open(f"/proc/{proc.pid}/cmdline", "rb") as theirs, open("/proc/self/cmdline", "rb") as mine:
        return type(proc).__name__, proc.pid, theirs.read(), mine.read(), os.getpid()


def kernel(folder: str) -> tuple[int, float]:
    source = Path(folder) / "source"
    source.mkdir()
    (source / "a.txt").write_text("a")
    cell = (
        "import os\\nfrom pathlib import Path\\nfrom gradelib.sandbox import Sandbox\\n"
        f"with Sandbox(Path({str(source)!r})) as box:\\n"
        f"    run = box.run(['python3', '-c', {BURN!r}], box.copy('a'))\\n"
        "print(os.getppid(), run.exit_code, run.stderr[-300:])"
    )
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)]), f"{folder}/in.ipynb")
    error = execute(Path(folder) / "in.ipynb", Path(folder) / "out.ipynb", {})
    assert error is None, error
    parent, code = nbformat.read(f"{folder}/out.ipynb", 4).cells[0].outputs[0]["text"].split()[:2]
    assert code == "0", nbformat.read(f"{folder}/out.ipynb", 4).cells[0].outputs[0]["text"]
    kernelfork.SERVER.close()  # as the worker does when it ends
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int(parent), usage.ru_utime + usage.ru_stime


def shutdowns(folder: str, runs: int) -> list[int | None]:
    codes = []
    read_exit = kernelfork.ForkedKernel._read_exit

    def recorded(self) -> None:
        read_exit(self)
        if self.returncode is not None:
            codes.append(self.returncode)

    kernelfork.ForkedKernel._read_exit = recorded
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")]), f"{folder}/in.ipynb")
    for run in range(runs):
        assert execute(Path(folder) / "in.ipynb", Path(folder) / f"out{run}.ipynb", {}) is None
    return codes
"""


def test_a_warm_workers_kernel_fork_server_is_forked_from_it_ready_and_ends_with_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "probe_kernels.py").write_text(PROBE_KERNELS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import probe_kernels

    with _warm_pool() as pool:
        kind, server, server_cmdline, worker_cmdline, worker = pool.submit(probe_kernels.server).result(timeout=120)
        assert kind == "_Child", "forked from the worker, not started as a new interpreter"
        assert server_cmdline == worker_cmdline and b"gradelib.execution.kernelfork" not in server_cmdline
        kernel_parent, cpu = pool.submit(probe_kernels.kernel, str(tmp_path)).result(timeout=120)
    assert kernel_parent == server != worker, "the notebook's kernel came from the forked server"
    # Its sandboxed run burned 0.5 s of CPU: every process down to it was waited for by its parent (a
    # kernel that hung at exit and was killed would have left its launcher, and that CPU, to init).
    assert cpu >= 0.5
    assert not Path(f"/proc/{server}").exists(), "the server ended with its worker, and was reaped"


def test_kernels_forked_in_a_warm_worker_exit_by_themselves_when_asked_to_shut_down(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A kernel answers the shutdown request on its control thread, which then flushes through the IOPub thread.
    # The kernel's exit handler closing IOPub under that flush hung it until jupyter_client killed it (seconds
    # later, its children's CPU uncounted): in about half of the shutdowns of kernels forked in a warm worker.
    (tmp_path / "probe_kernels.py").write_text(PROBE_KERNELS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import probe_kernels

    with _warm_pool() as pool:
        codes = pool.submit(probe_kernels.shutdowns, str(tmp_path), 8).result(timeout=300)
    assert codes == [0] * 8, "each exited with 0, none was killed (-9)"
