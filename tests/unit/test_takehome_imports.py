"""A take-home reaches the kit through one public module, `gradelib.takehome`; the old names still work, for now.

Every take-home the kit ships or makes (its own, the example, the scaffold's template) and its notebook
import from gradelib only `gradelib.takehome`, anywhere in a file (in a function too). The deprecated alias
modules a team's take-home may still import give the public module's objects, and the kit never imports them.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from pathlib import Path

import pytest

import gradelib.takehome as public

ROOT = Path(__file__).resolve().parents[2]
KIT = "gradelib"
PUBLIC = "gradelib.takehome"
TEMPLATE = ROOT / "gradelib" / "scaffold" / "template"
PLACEHOLDER = re.compile(r"\{\{\s*\w+\s*\}\}")
# The take-homes and what their notebooks are: the kit's own two (notebooks in the top-level notebooks/), the
# example plugin, the scaffold's template (a team's package as `new-takehome` writes it, its tests included).
# Each with its own package, which it imports as it likes.
TAKEHOMES = {
    ROOT / "gradelib" / "takehomes" / "replay": "gradelib.takehomes.replay",
    ROOT / "gradelib" / "takehomes" / "payments": "gradelib.takehomes.payments",
    ROOT / "examples" / "takehome-webhooks" / "gradelib_webhooks": "gradelib_webhooks",
    TEMPLATE: "x",
}
KIT_NOTEBOOKS = {
    ROOT / "notebooks" / "replay.ipynb": "gradelib.takehomes.replay",
    ROOT / "notebooks" / "payments.ipynb": "gradelib.takehomes.payments",
}
# Deprecated alias -> where each of its names now comes from; kept one release for a team's take-home.
ALIASES = {
    "gradelib.takehomes.base": ("BaseGrading",),
    "gradelib.takehomes.plugin": ("TakeHome", "Grading", "FailureMode", "EntryView", "fact_is", "outcome_is"),
    "gradelib.takehomes.installguard": ("install_failed",),
    "gradelib.lazy": ("cached", "computed"),
    "gradelib.review.panel": ("panel_for",),
}


def python_of(path: Path) -> list[tuple[str, str]]:
    """(where, Python source) of a file: a module, a template of one, or each code cell of a notebook."""
    text = path.read_text(encoding="utf-8")
    if path.name.endswith((".ipynb", ".ipynb.tmpl")):
        cells = json.loads(PLACEHOLDER.sub("x", text))["cells"]
        return [
            (f"{path.relative_to(ROOT)} cell {number}", "".join(cell["source"]))
            for number, cell in enumerate(cells)
            if cell["cell_type"] == "code"
        ]
    return [(str(path.relative_to(ROOT)), PLACEHOLDER.sub("x", text))]


def kit_imports(source: str, own: str = "") -> list[tuple[int, str]]:
    """(line, module) of every import of a gradelib module other than the public one and the take-home's `own`
    package, anywhere in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != KIT else [f"{KIT}.{alias.name}" for alias in node.names]
        found += [(node.lineno, name) for name in names if name.split(".")[0] == KIT and not _allowed(name, own)]
    return sorted(found)


def _allowed(module: str, own: str) -> bool:
    return module == PUBLIC or (bool(own) and (module == own or module.startswith(f"{own}.")))


def takehome_files() -> list[tuple[Path, str]]:
    """Every Python module, template of one and notebook of the take-homes, each with its own package."""
    suffixes = (".py", ".py.tmpl", ".ipynb", ".ipynb.tmpl")
    found = [
        (path, own) for folder, own in TAKEHOMES.items() for path in sorted(folder.rglob("*"))
        if path.name.endswith(suffixes)
    ]  # fmt: skip
    return found + list(KIT_NOTEBOOKS.items())


def test_every_take_home_and_its_notebook_import_only_the_public_module() -> None:
    files = takehome_files()
    assert len([f for f, _ in files if f.suffix == ".ipynb" or f.name.endswith(".ipynb.tmpl")]) == 4
    wrong = [
        f"{where}:{line}: {module}"
        for path, own in files
        for where, source in python_of(path)
        for line, module in kit_imports(source, own)
    ]
    assert not wrong, f"take-homes import gradelib modules other than {PUBLIC}:\n" + "\n".join(wrong)


def test_the_import_check_sees_every_kind_of_import() -> None:
    source = (
        "import gradelib.takehome\nfrom gradelib.takehome import line\nfrom gradelib import safetext\n"
        "def f():\n    from gradelib.sandbox import safefs\n    import gradelib.result\n"
        "from gradelib_webhooks import views\nfrom gradelib.takehomes.replay import runs\n"
        "from gradelib.takehomes.replayer import x\n"
    )
    found = [(3, "gradelib.safetext"), (5, "gradelib.sandbox"), (6, "gradelib.result")]
    assert kit_imports(source, "gradelib.takehomes.replay") == [*found, (9, "gradelib.takehomes.replayer")]


def test_the_public_module_has_every_name_it_lists() -> None:
    missing = [name for name in public.__all__ if getattr(public, name, None) is None]
    assert not missing
    assert public.open_grading.__module__ == "gradelib.notebook"  # what a notebook calls, imported on first use
    with pytest.raises(AttributeError):
        _ = public.no_such_name


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_a_deprecated_alias_gives_the_public_modules_objects_and_says_what_to_import(alias: str) -> None:
    sys.modules.pop(alias, None)
    with pytest.warns(DeprecationWarning, match=r"gradelib\.takehome"):
        module = importlib.import_module(alias)
    assert "gradelib.takehome" in (module.__doc__ or "")
    for name in ALIASES[alias]:
        assert getattr(module, name) is getattr(public, name), f"{alias}.{name}"


def test_the_kit_never_imports_a_deprecated_alias() -> None:
    aliases = {name for name in ALIASES}
    wrong = []
    for path in sorted((ROOT / KIT).rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module in aliases:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                names = {alias.name for alias in node.names}
            else:
                continue
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: {name}" for name in sorted(names & aliases)]
    assert not wrong, "the kit imports deprecated aliases:\n" + "\n".join(wrong)
