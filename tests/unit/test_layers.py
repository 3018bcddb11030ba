"""Layers: the sandbox, the kit's lowest layer, imports nothing of the kit above it.

Every import counts, those inside functions too: an import moved into a function to dodge a
cycle is still a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KIT = "gradelib"
# What the sandbox may use of the kit: itself and the exception types every layer shares.
SANDBOX_MAY_IMPORT = ("gradelib.sandbox", "gradelib.errors")


def kit_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every module of the kit that `path` imports, anywhere in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == KIT:  # `from gradelib import takehomes`: the module is the name imported
                found += [(node.lineno, f"{KIT}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name == KIT or name.startswith(f"{KIT}.")]


def outside(folder: Path, allowed: tuple[str, ...]) -> list[str]:
    """`path:line module` for each import of the kit under `folder` that is not in `allowed` (or below it)."""
    return [
        f"{path.relative_to(folder.parent)}:{line} {name}"
        for path in sorted(folder.rglob("*.py"))
        for line, name in kit_imports(path)
        if not any(name == prefix or name.startswith(f"{prefix}.") for prefix in allowed)
    ]


def test_the_sandbox_imports_nothing_of_the_layers_above_it() -> None:
    found = outside(ROOT / KIT / "sandbox", SANDBOX_MAY_IMPORT)
    assert not found, "the sandbox must not know these (give it plain data instead):\n" + "\n".join(found)


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    folder = tmp_path / "sandbox"
    folder.mkdir()
    (folder / "box.py").write_text(
        "from gradelib.sandbox import safefs\nfrom gradelib import errors\n\n"
        "def run():\n    from gradelib.environment import Environment\n    import gradelib.takehomes\n"
    )
    assert outside(folder, SANDBOX_MAY_IMPORT) == [
        "sandbox/box.py:5 gradelib.environment",
        "sandbox/box.py:6 gradelib.takehomes",
    ]
