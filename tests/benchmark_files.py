"""The files in benchmarks/: the scripts (each run at its smallest by tests/e2e/test_benchmark_e2e.py) and the
modules they import. Read from their source, never imported: a benchmark re-executes itself, sets up its venv."""

from __future__ import annotations

import ast
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SMOKE = "--smoke"  # every script's smallest mode: does it still run, and print its last line?
LAST_LINE = "LAST_LINE"  # every script's pattern of the last line it prints (a regular expression)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def is_script(path: Path) -> bool:
    """Whether the file runs as a script: it has an `if __name__ == "__main__":` block."""
    for node in _tree(path).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            names = [node.test.left, *node.test.comparators]
            if any(isinstance(n, ast.Name) and n.id == "__name__" for n in names):
                return True
    return False


def scripts() -> list[Path]:
    """Every benchmark script, by name: a new one is run by the smoke test the moment it is added."""
    return [path for path in sorted(BENCHMARKS.glob("*.py")) if is_script(path)]


def imported(path: Path) -> set[str]:
    """The benchmarks/ modules a file imports, anywhere in it (a function's own import too)."""
    local = {other.stem for other in BENCHMARKS.glob("*.py")}
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & local


def last_line_pattern(path: Path) -> str | None:
    """The script's LAST_LINE: the regular expression its last printed line matches; None when it has none."""
    for node in _tree(path).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == LAST_LINE for t in node.targets):
            value = ast.literal_eval(node.value)
            return value if isinstance(value, str) else None
    return None
