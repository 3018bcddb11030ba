"""Golden-file assertions: write the file when missing, show a unified diff on mismatch."""

from __future__ import annotations

import difflib
from pathlib import Path

from gradelib.settings import ENV_UPDATE_GOLDEN, current_settings

GOLDEN_DIR = Path(__file__).parent / "golden"
UPDATE_ENV = ENV_UPDATE_GOLDEN


def assert_golden(name: str, text: str) -> None:
    """Compare `text` with tests/golden/<name>, writing that file first when it is missing.

    Set GRADELIB_UPDATE_GOLDEN=1 to rewrite every golden file a run touches.
    """
    path = GOLDEN_DIR / name
    if not path.exists() or current_settings().update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    # Bytes, not read_text: line endings must survive untranslated.
    expected = path.read_bytes().decode("utf-8")
    if expected == text:
        return
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            text.splitlines(keepends=True),
            f"golden/{name}",
            "actual",
        )
    )
    raise AssertionError(f"output differs from tests/golden/{name} (set {UPDATE_ENV}=1 to accept it):\n{diff}")
