"""A run's output, read as it comes (the first bytes kept, the last ones too, a flood noticed), and its
strace log."""

from __future__ import annotations

import os
import select
import threading
from pathlib import Path
from typing import IO

MAX_TRACE_BYTES = 32 * 1024 * 1024
OUTPUT_KILL_FACTOR = 16
TAIL_BYTES = 64 * 1024


class Capture:
    """Reads one output stream in a thread, keeping the first `cap` bytes."""

    def __init__(self, stream: IO[bytes] | None, cap: int) -> None:
        self.cap, self.total, self.chunks = cap, 0, bytearray()
        self.last = bytearray()  # the last TAIL_BYTES: where a flood would push a final result line
        self.fd = stream.fileno() if stream is not None else None
        self.stream = stream
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        if self.fd is None:
            return
        while not self.stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.total += len(chunk)
            if len(self.chunks) < self.cap:
                self.chunks += chunk[: self.cap - len(self.chunks)]
            elif self.total > self.cap:
                self.last += chunk[-TAIL_BYTES:]
                del self.last[:-TAIL_BYTES]

    @property
    def flooding(self) -> bool:
        return self.total > self.cap * OUTPUT_KILL_FACTOR

    def join(self) -> None:
        """Wait briefly for the rest; a process that escaped with our pipe must not block us."""
        self.thread.join(timeout=2)
        self.stop.set()
        self.thread.join()
        if self.stream is not None:
            self.stream.close()

    def text(self) -> str:
        """The first `cap` bytes and, past them, a marker and the last TAIL_BYTES."""
        body = self.chunks.decode("utf-8", errors="replace")
        skipped = self.total - len(self.chunks) - len(self.last)
        if skipped > 0:
            body += f"\n[... {skipped} bytes not kept ...]\n"
        return body + self.last.decode("utf-8", errors="replace")


def read_trace(path: Path) -> str:
    """The strace log of a run (its first MAX_TRACE_BYTES), empty when there is none."""
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_TRACE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
