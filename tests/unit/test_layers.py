"""Layers: no module of the kit imports a layer above its own, and no import cycle.

The layer order is written once, below (`LAYERS`). Every import counts, those inside functions
too: an import moved into a function to dodge a cycle is still a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KIT = "gradelib"
# Bottom to top: a module may import its own layer and those below it. Names are gradelib's
# top-level modules and packages ("gradelib" itself is the package's API, above the sandbox); a
# dotted name places one module of a package on a lower layer than the rest of its package.
# The meeting is one package above the cohort it reads, but what it leaves behind is read below:
# its records are the gradebook's tables, its clarifications show in the reviewer's panel.
LAYERS: tuple[tuple[str, ...], ...] = (
    # the vocabulary every layer shares; `settings` here because the sandbox reads it too
    ("errors", "result", "safetext", "jsonschemapatch", "cached", "runlog", "atomicfile", "servers", "settings"),
    ("sandbox",),
    ("gradelib",),
    ("intake",),
    ("environment",),
    ("gradebook", "meeting.records"),
    ("display",),
    ("similarity",),
    ("takehomes",),
    ("review", "meeting.clarifications"),
    ("notebook",),
    ("execution",),  # one notebook run (papermill, forked kernels, HTML): the batch's and the summary's
    ("cohort",),
    ("meeting",),  # the calibration meeting: agenda, resolutions, decisions, their effect, the lead's panel
    ("batch", "scaffold"),  # scaffold: `new-takehome`, above the take-homes it must not collide with
    ("cli", "__main__"),
)


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


def layer_of(module: str) -> int:
    """The index in `LAYERS` of a module: its own dotted name if listed, else its top-level name's.

    A name in no layer is an error.
    """
    parts = module.split(".")[1:] or [module]
    for size in range(len(parts), 0, -1):
        name = ".".join(parts[:size])
        for index, names in enumerate(LAYERS):
            if name in names:
                return index
    raise AssertionError(f"{module} is in no layer: add its top-level name to LAYERS")


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


def test_a_module_listed_by_its_dotted_name_has_its_own_layer() -> None:
    assert layer_of("gradelib.meeting.records") == layer_of("gradelib.gradebook.store")
    assert layer_of("gradelib.meeting.agenda") == layer_of("gradelib.meeting") > layer_of("gradelib.cohort.table")
    assert layer_of("gradelib.meeting.recordsfoo") == layer_of("gradelib.meeting")  # a prefix is not the module
