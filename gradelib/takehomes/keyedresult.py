"""The keyed result line: how a take-home's driver, run in the sandbox beside the candidate's code, reports.

A take-home that runs the candidate's code through a driver of its own (a script it ships, run in the
sandbox with the candidate's code) cannot trust the run's output: the candidate's code prints there too.
So each run gets a secret key, written into the copy (`result_key`); the driver reads it and deletes the
file before the candidate's code starts, and prints its result as one line, `GRADELIB_RESULT <key> <JSON
object>`. The kit takes the last line carrying this run's key (`parse_result`); a line without it, whoever
printed it, is ignored.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULT_MARKER = "GRADELIB_RESULT "
KEY_FILE = ".gradelib-result-key"  # in the copy: the driver reads and deletes it before the candidate's code runs
KEY_BYTES = 16


@dataclass(frozen=True)
class ResultKey:
    """One run's secret key and the file in the copy that hands it to the driver."""

    key: str
    file: Path

    def parse(self, stdout: str) -> dict[str, Any] | None:
        """The driver's result in this run's output (`parse_result` with this key)."""
        return parse_result(stdout, self.key)


@contextlib.contextmanager
def result_key(copy: Path) -> Iterator[ResultKey]:
    """A fresh key for one run, written to `KEY_FILE` in `copy` for the driver; the file is gone after the block."""
    key = secrets.token_hex(KEY_BYTES)
    file = copy / KEY_FILE
    file.write_text(key)
    try:
        yield ResultKey(key, file)
    finally:
        file.unlink(missing_ok=True)


def parse_result(stdout: str, key: str) -> dict[str, Any] | None:
    """The driver's result: the last `GRADELIB_RESULT` line carrying this run's key, or None.

    Lines without the key are the candidate's (its output shares the run) and are ignored; so is a key-less
    call (an empty key matches nothing).
    """
    prefix = f"{RESULT_MARKER}{key} "
    for line in reversed(stdout.splitlines()):
        if key and line.startswith(prefix):
            try:
                result = json.loads(line[len(prefix) :])
            except ValueError:
                return None
            return result if isinstance(result, dict) else None
    return None


def without_result(output: str) -> str:
    """A run's output as the candidate's: every result line left out (the driver's is shown parsed instead)."""
    return "\n".join(line for line in output.splitlines() if not line.startswith(RESULT_MARKER)).strip("\n")
