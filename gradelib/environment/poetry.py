"""Poetry's declarations, read as data: `[tool.poetry]` dependencies and groups, its sources (Poetry itself
reads `poetry.lock` when it sets the project up).

Poetry's own constraint language becomes PEP 440 (`^1.2.3` is `>=1.2.3,<2.0.0`, `~1.2` is
`>=1.2,<1.3`, a bare `1.2.3` is `==1.2.3`); `python` is a constraint on the interpreter, not a
package. Optional dependencies (extras) and optional groups are installed too, since the kit runs
`poetry install --all-groups --all-extras` (what a README's `--with cli` or `-E cli` asks for); git,
path and URL dependencies and packages from an index the file names are refused like any other
declaration.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from gradelib.environment.declarationrecords import (
    Declared,
    Reader,
    index_names,
    line_of,
    pep508,
)

PYPROJECT = "pyproject.toml"
POETRY_LOCK = "poetry.lock"
NOT_FROM_INDEX = ("git", "path", "url", "file")
TOKEN = re.compile(r"(\^|~=|~|===|==|!=|>=|<=|>|<|=)?\s*([0-9*][^\s,]*)")
MAIN_GROUP = "main"


def constraint(text: str) -> str | None:
    """A Poetry version constraint as a PEP 440 specifier ("" for any version); None when it has no equivalent.

    `^` and `~` follow Poetry's documented rules; an `||` of alternatives has no single PEP 440
    specifier.
    """
    text = text.strip()
    if text in ("", "*"):
        return ""
    if "||" in text or "|" in text:
        return None
    parts: list[str] = []
    for operator, version in TOKEN.findall(text):
        converted = _one(operator, version)
        if converted is None:
            return None
        parts += [converted] if converted else []
    return ",".join(parts) if parts or TOKEN.search(text) else None


def _one(operator: str, version: str) -> str | None:
    from packaging.version import InvalidVersion, Version

    if version == "*":
        return ""
    if operator in ("", "=", "==") and "*" in version:
        return f"=={version}"
    try:
        release = list(Version(version).release)
    except InvalidVersion:
        return None
    if operator == "^":
        first = next((i for i, part in enumerate(release) if part != 0), len(release) - 1)
        return f">={version},<{_bump(release, first)}"
    if operator == "~":
        return f">={version},<{_bump(release, 0 if len(release) == 1 else 1)}"
    if operator in ("", "="):
        return f"=={version}"
    return f"{operator}{version}"


def _bump(release: list[int], index: int) -> str:
    """`[1, 2, 3]` bumped at 0 is `2.0.0`: the exclusive upper bound of a caret or tilde range."""
    bumped = [*release[:index], release[index] + 1]
    return ".".join(str(part) for part in bumped + [0] * (len(release) - len(bumped)))


def python_marker(text: str) -> str | None:
    """A dependency's `python = "^3.8"` restriction as a PEP 508 marker; None when it cannot be one."""
    specifier = constraint(text)
    if specifier is None:
        return None
    clauses = []
    for part in filter(None, specifier.split(",")):
        operator = re.match(r"[<>=!~]+", part)
        if operator is None:
            return None
        clauses.append(f'python_full_version {operator.group()} "{part[operator.end() :]}"')
    return " and ".join(clauses)


def dependencies(reader: Reader, doc: Mapping[str, Any], data: bytes, *, has_project: bool) -> list[Declared]:
    """Every package the kit's `poetry install --all-groups --all-extras` installs: the main dependencies, every
    group and every extra (a README's `--with cli` or `-E cli` asks for them)."""
    poetry = doc.get("tool", {}).get("poetry") if isinstance(doc.get("tool"), dict) else None
    if not isinstance(poetry, dict):
        return []
    allowed = index_names(reader, poetry.get("source"), PYPROJECT, data, "[[tool.poetry.source]]")
    found: list[Declared] = []
    for group, table in _groups(reader, poetry, has_project=has_project):
        before = len(found)
        for name, value in table.items():
            if not isinstance(name, str) or name.lower() == "python":
                continue
            for spec in value if isinstance(value, list) else [value]:
                declared = _dependency(reader, data, name, spec, allowed)
                if declared is not None:
                    found.append(declared)
        if group != MAIN_GROUP and len(found) > before:
            count = len(found) - before
            reader.notes.append(f"{PYPROJECT}: Poetry group {group!r} installed ({count} packages), as poetry does")
    return found


def _groups(reader: Reader, poetry: Mapping[str, Any], *, has_project: bool) -> Iterator[tuple[str, dict[str, Any]]]:
    """(group, dependency table) for the main dependencies (unless `[project]` has them) and each group."""
    main = poetry.get("dependencies")
    if isinstance(main, dict) and not has_project:
        yield MAIN_GROUP, main
    legacy = poetry.get("dev-dependencies")
    if isinstance(legacy, dict):
        yield "dev", legacy
    groups = poetry.get("group")
    for group, table in groups.items() if isinstance(groups, dict) else ():
        if not isinstance(table, dict) or not isinstance(table.get("dependencies"), dict):
            continue
        if table.get("optional") is True:  # a README's `poetry install --with cli`: the kit installs every group
            reader.notes.append(
                f"{PYPROJECT}: Poetry group {group!r} is optional: installed (poetry install --all-groups)"
            )
        yield str(group), table["dependencies"]


def _dependency(reader: Reader, data: bytes, name: str, value: object, allowed: set[str]) -> Declared | None:
    """One `name = value` of a Poetry dependency table as a requirement, or a refusal or note."""
    line = line_of(data, f"{name} =") or line_of(data, f'"{name}"') or line_of(data, name)
    text = f"{name} = {value!r}"[:200]
    table = value if isinstance(value, dict) else {"version": value}
    if not isinstance(value, dict | str):
        reader.refuse(PYPROJECT, line, text, "not a Poetry version constraint or table")
        return None
    kinds = [kind for kind in NOT_FROM_INDEX if kind in table]
    if kinds:
        reader.refuse(PYPROJECT, line, text, f"a {kinds[0]} dependency: only packages from the package index")
        return None
    source = str(table.get("source", "")).lower()
    where = f"{PYPROJECT}:{line or '?'}"
    if source and source not in allowed:
        reader.refuse(PYPROJECT, line, text, f"from the index {source!r} the file names, not the configured one")
        return None
    if table.get("optional") is True:  # a README's `poetry install -E cli`: the kit installs every extra
        reader.notes.append(f"{where}: {name} is optional (an extra): installed (poetry install --all-extras)")
    specifier = constraint(str(table.get("version", "*")))
    if specifier is None:
        reader.notes.append(f"{where}: {name} {table.get('version')!r} has no PEP 440 form: any version")
        specifier = ""
    extras = table.get("extras")
    extra = f"[{','.join(str(e) for e in extras)}]" if isinstance(extras, list) and extras else ""
    markers = [str(table["markers"])] if isinstance(table.get("markers"), str) else []
    python = table.get("python")
    if isinstance(python, str) and (marker := python_marker(python)):
        markers.append(marker)
    if isinstance(table.get("platform"), str):
        markers.append(f'sys_platform == "{table["platform"]}"')
    requirement = f"{name}{extra}{specifier}" + (f"; {' and '.join(f'({m})' for m in markers)}" if markers else "")
    return pep508(reader, PYPROJECT, line, requirement)
