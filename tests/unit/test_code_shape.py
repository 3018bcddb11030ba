"""Code shape: no function in the kit (or the example plugin) runs over about sixty lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("gradelib", "examples/takehome-webhooks/gradelib_webhooks")
MAX_BODY_LINES = 60


def long_functions(folder: Path, limit: int = MAX_BODY_LINES) -> list[str]:
    """`path:line name (N lines)` for each function whose body (docstring included) is over `limit` lines."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.body[0].lineno + 1
                if lines > limit:
                    found.append(f"{path.relative_to(folder.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_over_sixty_lines() -> None:
    found = [hit for folder in FOLDERS for hit in long_functions(ROOT / folder)]
    assert not found, "split these into well-named helpers:\n" + "\n".join(found)


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_BODY_LINES + 1))
    (tmp_path / "long.py").write_text(f"def long() -> None:\n{body}\n")
    assert long_functions(tmp_path) == [f"{tmp_path.name}/long.py:1 long (61 lines)"]
