"""Sandboxed runs forked by the launcher: the same sandbox as a fresh nsinit, and no launcher outlives the kit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import processes_matching

from gradelib.sandbox import Sandbox, launchclient

pytestmark = pytest.mark.e2e

PROBE = (
    "hostname; ls / | sort | tr '\\n' ' '; echo; tr '\\0' '\\n' < /proc/self/environ | sort | tr '\\n' ' ';"
    " echo; cat /proc/self/status | grep -E '^(CapEff|NoNewPrivs|Seccomp):'; ls /proc | grep -c '^[0-9]'"
)


def _probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use: str) -> tuple[str, int | None]:
    monkeypatch.setenv(launchclient.ENV_DISABLE, use)
    (tmp_path / "sub").mkdir(exist_ok=True)
    with Sandbox(tmp_path / "sub") as box:
        result = box.run(["sh", "-c", PROBE], cwd=box.copy(f"probe-{use}"))
    return result.stdout.replace(f"probe-{use}", "probe"), result.exit_code


def test_a_forked_run_sees_exactly_what_a_fresh_nsinit_run_sees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forked, fresh = _probe(tmp_path, monkeypatch, "1"), _probe(tmp_path, monkeypatch, "0")
    assert forked == fresh  # (the candidate's uid is drawn per sandbox, so it is left out)
    assert forked[1] == 0 and "NoNewPrivs:\t1" in forked[0]
    assert launchclient.LAUNCHER._proc is not None


def test_a_killed_launcher_fails_its_run_clearly_and_the_next_run_starts_a_new_one(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    with Sandbox(tmp_path / "sub") as box:
        copy = box.copy("a")
        assert box.run(["true"], cwd=copy).exit_code == 0
        first = launchclient.LAUNCHER._proc
        assert first is not None

        def kill_launcher() -> bool:
            if first.returncode is None and first.poll() is None:
                os.kill(first.pid, signal.SIGKILL)
            return False

        started = time.monotonic()
        killed = box.run(["sleep", "30"], cwd=copy, stop_when=kill_launcher)
        assert time.monotonic() - started < 20  # its nsinit died with the launcher: no hang
        assert killed.exit_code != 0
        again = box.run(["echo", "ok"], cwd=copy)
        assert again.exit_code == 0 and again.stdout == "ok\n"
        assert launchclient.LAUNCHER._proc is not first


def test_no_launcher_or_run_outlives_a_killed_kit_process(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    marker = f"gradelib-launcher-test-{os.getpid()}"
    script = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from gradelib.sandbox import Sandbox
        with Sandbox(Path({str(tmp_path / "sub")!r})) as box:
            copy = box.copy("a")
            print("ready", flush=True)
            box.run(["sh", "-c", "sleep 60; : " + os.environ["RUN_MARKER"]], cwd=copy)
    """)
    env = {**os.environ, "TMPDIR": str(tmp_path), "RUN_MARKER": marker}  # not in any command line but the run's
    kit = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, text=True)
    assert kit.stdout is not None and kit.stdout.readline() == "ready\n"
    deadline = time.monotonic() + 30
    while not processes_matching(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_matching(marker), "the run never started"
    kit.kill()
    kit.wait()
    kit.stdout.close()
    for workspace in tmp_path.glob("gradelib-ws*"):  # the killed kit's bounded disk stays mounted
        subprocess.run(["umount", "-l", str(workspace)], check=False)
    deadline = time.monotonic() + 15
    while (processes_matching(marker) or processes_matching(str(tmp_path))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_matching(marker) == []  # the run died with its launcher
    assert processes_matching(str(tmp_path)) == []  # and the launcher (its socket is under tmp_path)
    assert [p.name for p in tmp_path.glob("gradelib-launcher-*")] == []  # which removed its folder
