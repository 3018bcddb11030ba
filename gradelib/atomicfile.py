"""A file that appears at its path only once fully written: a reader never sees half of it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


@contextmanager
def atomic_file(path: Path, newline: str | None = None) -> Iterator[IO[str]]:
    """A UTF-8 text file written beside `path` and renamed over it when the block ends without error.

    On an error nothing at `path` changes and the partial file is removed; OSError passes through.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as out:
            yield out
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (see `atomic_file`)."""
    with atomic_file(path) as out:
        out.write(text)
