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


def assert_readme_block(readme: Path, marker: str, wanted: str, what: str, rerun: str) -> None:
    """README.md's block between `<!-- marker -->` and `<!-- /marker -->` is `wanted` (generated from the code).

    With GRADELIB_UPDATE_GOLDEN=1 the block is written instead. `what` names the table and its source in the
    message, `rerun` the test file that regenerates it.
    """
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    text = readme.read_text(encoding="utf-8")
    assert text.count(start) == 1 and text.count(end) == 1, f"{readme.name} needs {start} ... {end}"
    before, rest = text.split(start)
    shown, after = rest.split(end)
    wanted = f"\n{wanted}\n"
    if shown != wanted and current_settings().update_golden:
        readme.write_text(before + start + wanted + end + after, encoding="utf-8")
        return
    assert shown == wanted, (
        f"{readme.name}'s {what}: regenerate it with {UPDATE_ENV}=1 .venv/bin/python -m pytest {rerun} -k readme"
    )
