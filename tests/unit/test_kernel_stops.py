"""The kernel watch ends a grading whose kernel stays stopped, and leaves a running one alone."""

from __future__ import annotations

import signal
import subprocess
import threading
import time

from gradelib.execution.execute import KernelWatch


def _watched(stop: bool) -> tuple[subprocess.Popen[bytes], KernelWatch, threading.Thread]:
    process = subprocess.Popen(["sleep", "60"])
    if stop:
        process.send_signal(signal.SIGSTOP)
    watch = KernelWatch(pid=process.pid)
    thread = threading.Thread(target=watch.watch_stops, args=(2.0,), daemon=True)
    thread.start()
    return process, watch, thread


def test_a_kernel_that_stays_stopped_is_killed_and_marked() -> None:
    process, watch, thread = _watched(stop=True)
    try:
        assert process.wait(timeout=30) == -signal.SIGKILL, "killed, not let go"
        thread.join(timeout=10)
        assert watch.stopped and not thread.is_alive()
    finally:
        process.kill()
        process.wait()


def test_a_running_kernel_is_left_alone_and_the_watch_ends_with_the_run() -> None:
    process, watch, thread = _watched(stop=False)
    try:
        time.sleep(4)
        assert process.poll() is None and not watch.stopped
        watch.finish()
        thread.join(timeout=10)
        assert not thread.is_alive()
    finally:
        process.kill()
        process.wait()
