"""The README's architecture table and the docstrings name the modules that exist, and every one of them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "gradelib"
README = ROOT / "README.md"
MODULE = re.compile(r"`((?:[a-z_][a-z0-9_]*/)*[a-z_][a-z0-9_]*\.py)`")
FOLDER = re.compile(r"^`([a-z_][a-z0-9_/]*)/`")
# A module named in a docstring: `pkg/module.py` or `module.py`, not part of a longer path or word.
NAMED = re.compile(r"(?<![\w./-])((?:[a-z_][a-z0-9_]*/)*[a-z_][a-z0-9_]*\.py)\b")
# Files of a candidate's or a team's, named in docstrings as examples: not the kit's modules.
THEIRS = frozenset({"setup.py", "snippet.py"})
SKIPPED = frozenset({"__init__.py", "__main__.py"})


def architecture_rows(text: str) -> list[tuple[str, str]]:
    """(first cell, second cell) of each row of the README's architecture table."""
    section = text.split("## Architecture", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 2:
            rows.append((cells[0], "|".join(cells[1:])))
    return rows


def _modules(folder: Path, own_rows: set[Path]) -> set[str]:
    """The modules of `folder`, with those of its subfolders that have no row of their own, relative to it."""
    found = set()
    for path in folder.rglob("*.py"):
        if path.name in SKIPPED or "template" in path.relative_to(folder).parts:
            continue
        if any(row != folder and row in path.parents for row in own_rows if folder in row.parents):
            continue
        found.add(path.name)
    return found


def test_the_architecture_table_lists_every_module_and_no_other() -> None:
    rows = architecture_rows(README.read_text(encoding="utf-8"))
    folders = {PACKAGE / match.group(1): holds for first, holds in rows if (match := FOLDER.match(first))}
    top = next(first for first, _ in rows if not FOLDER.match(first))
    problems = []
    for folder, holds in folders.items():
        if folder.name == "notebooks":
            continue
        mentioned = MODULE.findall(holds)
        named = {name for name in mentioned if "/" not in name}  # `sandbox/forkserver.py`: another row's
        there = _modules(folder, set(folders))
        if missing := sorted(there - named):
            problems.append(f"{folder.relative_to(ROOT)}/: not in the table: {', '.join(missing)}")
        extra = [name for name in named - there if not (name == "__init__.py" and (folder / name).is_file())]
        extra += [name for name in mentioned if "/" in name and not (PACKAGE / name).is_file()]
        if extra:
            problems.append(f"{folder.relative_to(ROOT)}/: in the table, not in the tree: {', '.join(sorted(extra))}")
    packages = {path.parent for path in PACKAGE.rglob("__init__.py")} - {PACKAGE}
    unlisted = sorted(
        str(p.relative_to(PACKAGE)) for p in packages if "template" not in p.parts and not any(
            row == p or row in p.parents for row in folders
        )
    )  # fmt: skip
    if unlisted:
        problems.append(f"packages with no row: {', '.join(unlisted)}")
    named_top = set(MODULE.findall(top))
    there_top = {p.name for p in PACKAGE.glob("*.py")} - SKIPPED
    if named_top != there_top:
        problems.append(
            f"top-level modules: missing {sorted(there_top - named_top)}, extra {sorted(named_top - there_top)}"
        )
    assert not problems, "README.md's architecture table and gradelib/ differ:\n" + "\n".join(problems)


def named_modules(source: str) -> list[tuple[int, str]]:
    """(line, name) of every module a docstring of `source` names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc and node.body and isinstance(node.body[0], ast.Expr):
                found += [(node.body[0].lineno, name) for name in NAMED.findall(doc)]
    return found


def _exists(name: str, modules: set[str], paths: set[str]) -> bool:
    if name.startswith("tests/"):
        return (ROOT / name).is_file()
    if "/" in name:
        return any(path == name or path.endswith("/" + name) for path in paths)
    return name in modules or name in THEIRS


def test_every_docstring_names_only_modules_that_exist() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {path.name for path in files}
    paths = {str(path.relative_to(PACKAGE)) for path in files}
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in files
        for line, name in named_modules(path.read_text(encoding="utf-8"))
        if not _exists(name, modules, paths)
    ]
    assert not wrong, "docstrings name modules that do not exist:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("doc", "named"),
    [
        ('"""Built by `projectbuild.py` in the sandbox."""', ["projectbuild.py"]),
        ('"""See environment/sourcebuild.py and cache.py."""', ["environment/sourcebuild.py", "cache.py"]),
        ('"""Nothing here: a .py file, my_file.pyc, x.pyi."""', []),
    ],
)
def test_the_docstring_scan_finds_what_a_docstring_names(doc: str, named: list[str]) -> None:
    assert [name for _, name in named_modules(f"{doc}\n\ndef f() -> None:\n    {doc}\n")] == named * 2
    assert not _exists("projectbuild.py", {"pyinstall.py"}, {"environment/pyinstall.py"})


def test_the_table_reader_reads_each_row() -> None:
    text = (
        "## Architecture\n\n| package | holds |\n|---|---|\n| `a/` | `x.py` (y), `z.py` |\n| `m.py` | m |\n\n## Next\n"
    )
    assert architecture_rows(text) == [("`a/`", "`x.py` (y), `z.py`"), ("`m.py`", "m")]
