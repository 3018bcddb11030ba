"""Layers: no module of the kit imports a layer above its own, no package imports a package above it, and no
import cycle, between modules or between packages.

The layer order is one table in code, `gradelib/layers.py`; the README shows it (compared below). Every
import counts, those inside functions too: an import moved into a function to dodge a cycle is still a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

from golden_util import assert_readme_block

from gradelib.layers import LAYERS as LAYER_ROWS

ROOT = Path(__file__).resolve().parents[2]
KIT = "gradelib"
README = ROOT / "README.md"
LAYERS: tuple[tuple[str, ...], ...] = tuple(names for names, _holds in LAYER_ROWS)
PACKAGES = {f"{KIT}." + ".".join(p.parent.relative_to(ROOT / KIT).parts) for p in (ROOT / KIT).rglob("__init__.py")}


def module_name(path: Path, root: Path) -> str:
    """`gradelib/sandbox/box.py` -> `gradelib.sandbox.box` (a package's `__init__` is the package)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> list[tuple[int, str]]:
    """(line, module) for every module among `modules` that `path` imports, anywhere in the file.

    `from a.b import c` is an import of `a.b.c` when that is a module, else of `a.b`.
    """
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if sub in modules else node.module))
    return sorted({(line, name) for line, name in found if name in modules})


def graph(root: Path) -> dict[str, list[tuple[int, str]]]:
    """Every module under `root` (a package folder) and the modules of that package it imports."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    modules = set(paths)
    return {name: imports_of(path, modules) for name, path in paths.items()}


def package_of(module: str) -> str:
    """The package a module belongs to in `LAYERS`: the longest listed name it is or lies under
    (`gradelib.sandbox.box` -> `sandbox`), and under a `NAME.*` entry each package of NAME is its own
    (`gradelib.takehomes.replay.runs` -> `takehomes.replay`, `gradelib.takehomes.rubric` -> `takehomes`).

    A module in no listed package is an error.
    """
    parts = module.split(".")[1:] or [module]
    listed = {name for names in LAYERS for name in names}
    if len(parts) >= 2 and f"{parts[0]}.*" in listed and f"{KIT}.{parts[0]}.{parts[1]}" in PACKAGES:
        return f"{parts[0]}.{parts[1]}"
    for size in range(len(parts), 0, -1):
        if (name := ".".join(parts[:size])) in listed:
            return name
    raise AssertionError(f"{module} is in no layer: add its top-level name to gradelib/layers.py")


def layer_of(module: str) -> int:
    """The index in `LAYERS` of a module's package (`package_of`)."""
    package = package_of(module)
    for index, names in enumerate(LAYERS):
        if package in names or (f"{package.split('.')[0]}.*" in names and "." in package):
            return index
    raise AssertionError(f"{package} is in no layer")


def packages(edges: dict[str, list[tuple[int, str]]]) -> dict[str, list[tuple[int, str]]]:
    """The package graph: each package and the other packages its modules import (line 0: many places)."""
    found: dict[str, set[str]] = {}
    for name, targets in edges.items():
        found.setdefault(package_of(name), set()).update(
            package_of(target) for _line, target in targets if package_of(target) != package_of(name)
        )
    return {name: [(0, target) for target in sorted(targets)] for name, targets in found.items()}


def layers_table() -> str:
    """The README's table of layers, top first (as the architecture reads from the command line down)."""
    lines = ["| layer | packages and modules | holds |", "|---|---|---|"]
    for index in range(len(LAYER_ROWS) - 1, -1, -1):
        names, holds = LAYER_ROWS[index]
        lines.append(f"| {index + 1} | {', '.join(f'`{name}`' for name in names)} | {holds} |")
    return "\n".join(lines)


def upward(edges: dict[str, list[tuple[int, str]]]) -> list[str]:
    """`module:line -> imported` for each import of a layer above the importer's own."""
    return [
        f"{name}:{line} -> {target}"
        for name, targets in edges.items()
        for line, target in targets
        if layer_of(target) > layer_of(name)
    ]


def cycles(edges: dict[str, list[tuple[int, str]]]) -> list[list[str]]:
    """The import cycles among the modules (strongly connected components of more than one, or a self-import)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for _line, target in edges.get(node, ()):
            if target not in order:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            component = []
            while (member := stack.pop()) != node:
                component.append(member)
            component.append(node)
            if len(component) > 1 or any(t == node for _l, t in edges.get(node, ())):
                found.append(sorted(component))

    for node in edges:
        if node not in order:
            visit(node)
    return found


def test_no_module_imports_a_layer_above_its_own() -> None:
    found = upward(graph(ROOT / KIT))
    assert not found, "these import a higher layer (move the concept down, or pass plain data):\n" + "\n".join(found)


def test_no_import_cycle_inside_the_kit() -> None:
    found = cycles(graph(ROOT / KIT))
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_package_imports_a_package_above_it_and_no_package_cycle() -> None:
    edges = packages(graph(ROOT / KIT))
    above = [f"{name} -> {target}" for name, targets in edges.items() for _l, target in targets if _above(target, name)]
    assert not above, "these packages import a package above them:\n" + "\n".join(above)
    found = cycles(edges)
    assert not found, "package cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def _above(target: str, name: str) -> bool:
    return layer_of(f"{KIT}.{target}") > layer_of(f"{KIT}.{name}")


def test_every_package_and_top_level_module_has_a_layer_and_each_only_one() -> None:
    listed = [name for names in LAYERS for name in names]
    assert len(listed) == len(set(listed)), "a name is in two layers"
    tops = {path.stem for path in (ROOT / KIT).glob("*.py")} | {
        path.parent.name for path in (ROOT / KIT).glob("*/__init__.py")
    }
    tops = (tops - {"__init__"}) | {"gradelib"}
    assert sorted(tops - set(listed)) == [], "gradelib/layers.py lacks these"
    assert sorted(name for name in listed if "." not in name and name not in tops) == [], "not in the tree"


def test_the_readmes_table_of_layers_is_the_modules() -> None:
    what = "table of layers differs from gradelib/layers.py"
    assert_readme_block(README, "layers-table", layers_table(), what, "tests/unit/test_layers.py")


def test_the_checks_see_an_import_inside_a_function_and_a_cycle(tmp_path: Path) -> None:
    package = tmp_path / KIT
    (package / "sandbox").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sandbox" / "__init__.py").write_text("")
    (package / "sandbox" / "box.py").write_text("def run():\n    from gradelib.takehomes import basegrading\n")
    (package / "takehomes").mkdir()
    (package / "takehomes" / "__init__.py").write_text("")
    (package / "takehomes" / "basegrading.py").write_text("from gradelib.sandbox import box\n")
    edges = graph(package)
    assert upward(edges) == ["gradelib.sandbox.box:2 -> gradelib.takehomes.basegrading"]
    assert cycles(edges) == [["gradelib.sandbox.box", "gradelib.takehomes.basegrading"]]


def test_each_package_under_a_starred_name_is_a_package_of_its_own() -> None:
    assert package_of("gradelib.takehomes.replay.lines.record") == "takehomes.replay"
    assert package_of("gradelib.takehomes.payments") == "takehomes.payments"
    assert package_of("gradelib.takehomes.rubric") == package_of("gradelib.takehomes") == "takehomes"
    assert package_of("gradelib.takehomes.replayfoo") == "takehomes"  # not a package of takehomes/
    assert layer_of("gradelib.takehomes.payments") > layer_of("gradelib.notebook") > layer_of("gradelib.takehomes")
    assert layer_of("gradelib.meeting.agenda") == layer_of("gradelib.meeting") > layer_of("gradelib.cohort.table")


def test_the_package_check_sees_a_package_cycle_the_module_check_does_not(tmp_path: Path) -> None:
    package = tmp_path / KIT
    files = {"sandbox/a.py": "from gradelib.intake import c\n", "sandbox/b.py": "", "intake/c.py": ""}
    files |= {"intake/d.py": "from gradelib.sandbox import b\n", "__init__.py": ""}
    files |= {"sandbox/__init__.py": "", "intake/__init__.py": ""}
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    edges = graph(package)
    assert cycles(edges) == []  # a -> c and d -> b: no cycle between modules
    assert cycles(packages(edges)) == [["intake", "sandbox"]]
    assert upward(edges) == ["gradelib.sandbox.a:1 -> gradelib.intake.c"]
