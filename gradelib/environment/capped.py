"""Run one of the kit's installers with a time cap and a cap on what it writes to disk."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

POLL_SECONDS = 0.25
OUTPUT_TAIL = 40  # lines of the installer's output kept for the report


@dataclass(frozen=True)
class Capped:
    """How one installer run ended."""

    code: int | None
    output: str
    seconds: float
    over_time: bool = False
    over_size: bool = False

    def tail(self, lines: int = OUTPUT_TAIL) -> str:
        """The last lines of the installer's output."""
        return "\n".join(self.output.splitlines()[-lines:])


def size_text(count: int) -> str:
    """`1024 MiB`, or `65536 bytes` under a mebibyte."""
    return f"{count // 2**20} MiB" if count >= 2**20 else f"{count} bytes"


def tree_bytes(root: Path) -> int:
    """Bytes of the regular files below root (links not followed)."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total


def run_capped(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    watch: Path,
    max_seconds: float,
    max_bytes: int,
) -> Capped:
    """Run argv in cwd; kill its process group past `max_seconds` or when `watch` grows past `max_bytes`."""
    started = time.monotonic()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: proc.stdout.read(65536), b"")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    over_time = over_size = False
    while proc.poll() is None:
        time.sleep(POLL_SECONDS)
        if time.monotonic() - started > max_seconds:
            over_time = True
        elif tree_bytes(watch) > max_bytes:
            over_size = True
        if over_time or over_size:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            break
    code = proc.wait()
    reader.join(timeout=5)
    if proc.stdout is not None:
        proc.stdout.close()
    output = b"".join(chunks).decode("utf-8", errors="replace")
    return Capped(None if over_time or over_size else code, output, time.monotonic() - started, over_time, over_size)
