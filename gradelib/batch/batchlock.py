"""One batch at a time on a reports folder and a gradebook: the second `gradelib grade` refuses with one
line naming the first, before it stages or grades anything.

Two batches on the same folder would grade every submission twice, move each other's staged files
and record rows for submissions they never staged. The lock is the operating system's (`flock` on a
file in the reports folder and one beside the gradebook): a batch that dies, however it dies, lets
go of it with its process, so a lock is never stale.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from gradelib.errors import BatchRunning

REPORTS_LOCK = ".gradelib-batch.lock"
GRADEBOOK_LOCK_SUFFIX = ".batch-lock"


def lock_files(reports: Path, gradebook: Path) -> list[Path]:
    """The files whose locks a batch holds: in the reports folder, and beside the gradebook."""
    return [Path(reports) / REPORTS_LOCK, gradebook.with_name(f".{gradebook.name}{GRADEBOOK_LOCK_SUFFIX}")]


@contextlib.contextmanager
def held(reports: Path, gradebook: Path) -> Iterator[None]:
    """Hold both locks for the batch, or raise BatchRunning naming the batch that holds one. A lock file
    that cannot be made (a read-only reports folder) is left to the batch's own checks."""
    with contextlib.ExitStack() as stack:
        for path in lock_files(reports, gradebook):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handle = stack.enter_context(open(path, "a+", encoding="utf-8"))
            except OSError:
                continue  # a folder this batch cannot write: the batch's own checks say so, in their words
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise BatchRunning(_holder(handle), reports, gradebook) from None
            stack.callback(fcntl.flock, handle, fcntl.LOCK_UN)
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps({"pid": os.getpid(), "started": time.strftime("%H:%M UTC", time.gmtime())}))
            handle.flush()
        yield


def _holder(handle: IO[str]) -> str:
    """`pid 1234, started 22:10 UTC`, as the holder wrote it (best effort)."""
    try:
        handle.seek(0)
        doc = json.loads(handle.read() or "{}")
        return f"pid {int(doc['pid'])}, started {str(doc['started'])[:20]}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"
