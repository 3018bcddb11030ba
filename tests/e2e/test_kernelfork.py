"""Kernels forked from the worker's fork server: real forks, real ipykernel, real papermill runs."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import nbformat
import pytest

from gradelib.execution import kernelfork
from gradelib.execution.execute import execute

pytestmark = pytest.mark.e2e


def _notebook(folder: Path, source: str) -> Path:
    node = nbformat.v4.new_notebook()
    node.cells = [nbformat.v4.new_code_cell(source)]
    path = folder / "source.ipynb"
    nbformat.write(node, path)
    return path


def _outputs(path: Path) -> str:
    node = nbformat.read(path, as_version=4)
    return "".join(out.get("text", "") for cell in node.cells for out in cell.get("outputs", []))


PROBE = (
    "import os, sys\n"
    "print('pid', os.getpid())\nprint('ppid', os.getppid())\n"
    "print('cwd', os.getcwd())\n"
    "print('probe', os.environ.get('KERNEL_PROBE'))\n"
    "print('preloaded', 'gradelib.review.scoringpanel' in sys.modules)\n"
    "print('to the log', file=sys.__stderr__, flush=True)\n"
)


def _run(tmp_path: Path, name: str, fork: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv(kernelfork.ENV_DISABLE, "1" if fork else "0")
    folder = tmp_path / name
    folder.mkdir()
    log = folder / "kernel.log"
    error = execute(_notebook(tmp_path, PROBE), folder / "out.ipynb", {}, env={"KERNEL_PROBE": name}, log=log)
    assert error is None
    words = dict(line.split(" ", 1) for line in _outputs(folder / "out.ipynb").splitlines())
    words["log"] = log.read_text()
    return words


def test_a_forked_kernel_is_its_own_process_with_the_notebooks_folder_environment_and_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _run(tmp_path, "first", True, monkeypatch)
    second = _run(tmp_path, "second", True, monkeypatch)
    plain = _run(tmp_path, "plain", False, monkeypatch)
    server = kernelfork.SERVER
    assert server._proc is not None
    for words, name in ((first, "first"), (second, "second")):
        assert words["probe"] == name  # each kernel got its own notebook's environment
        assert words["cwd"] == str(tmp_path / name)  # and folder
        assert words["preloaded"] == "True"  # forked from the server that imported the kit
        assert words["ppid"] == str(server._proc.pid)
        assert "to the log" in words["log"]  # and its stderr went to its own log
        assert "Ctrl-C will not work" not in words["log"]  # ipykernel knows its parent
    assert first["pid"] != second["pid"]  # a new process per notebook, never a reused kernel
    assert plain["probe"] == "plain" and plain["ppid"] == str(os.getpid())  # GRADELIB_KERNEL_FORK=0: a new interpreter
    assert plain["preloaded"] == "False"


def test_the_server_reports_exits_signals_kernels_and_stops_them_when_closed(tmp_path: Path) -> None:
    server = kernelfork.ForkServer()
    path = server.ensure()
    assert path is not None
    broken = tmp_path / "broken.json"
    broken.write_text("not json")
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", str(broken)]
    # a kernel whose connection file is bad exits on its own: the exit code and its stderr come back
    with open(tmp_path / "err.log", "wb") as log:
        kernel = kernelfork.fork_kernel(path, argv, cwd=str(tmp_path), env=dict(os.environ), stderr=log.fileno())
        assert kernel.wait(timeout=60) != 0
    assert "JSONDecodeError" in (tmp_path / "err.log").read_text()
    # a running kernel: signalled, it exits and says so
    from jupyter_client import KernelManager

    manager = KernelManager(transport="ipc", ip=str(tmp_path / "k"))
    manager.write_connection_file()
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", manager.connection_file]
    kernel = kernelfork.fork_kernel(path, argv, cwd=str(tmp_path), env=dict(os.environ), stderr=None)
    assert kernel.poll() is None
    kernel.kill()
    assert kernel.wait(timeout=30) == -signal.SIGKILL
    # one left running when the server closes is stopped with it
    kernel = kernelfork.fork_kernel(path, argv, cwd=str(tmp_path), env=dict(os.environ), stderr=None)
    time.sleep(0.5)
    assert kernel.poll() is None
    server.close()
    assert kernel.wait(timeout=30) is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(kernel.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"kernel {kernel.pid} outlived its fork server")


def test_only_this_interpreters_ipykernel_is_forked() -> None:
    assert kernelfork._forkable([sys.executable, "-m", "ipykernel_launcher", "-f", "x.json"])
    assert not kernelfork._forkable(["/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "x.json"]) or (
        os.path.samefile("/usr/bin/python3", sys.executable)
    )
    assert not kernelfork._forkable([sys.executable, "-m", "other_kernel", "-f", "x.json"])
    assert not kernelfork._forkable(["julia", "kernel.jl"])
