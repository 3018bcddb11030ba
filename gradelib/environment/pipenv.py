"""Pipenv's declarations, read as data: `Pipfile` packages and dev-packages (Pipenv itself reads
`Pipfile.lock` when it sets the project up).

Both sections are installed (the kit runs what a reviewer would, `pipenv install --dev` included).
Git, path and file entries are refused, except the project itself (`path = "."`), which the
project install builds; indexes other than PyPI named in `[[source]]` are refused by name.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from gradelib.environment.declarationrecords import (
    Declared,
    Reader,
    index_names,
    line_of,
    pep508,
)

PIPFILE = "Pipfile"
SECTIONS = ("packages", "dev-packages")
NOT_FROM_INDEX = ("git", "path", "file", "hg", "svn", "bzr")
THE_PROJECT = (".", "./")


def names_the_project(reader: Reader) -> bool:
    """True when the Pipfile installs the project itself (`{path = ".", editable = true}`)."""
    doc = _pipfile(reader, quiet=True)
    for section in SECTIONS:
        table = doc.get(section) if doc else None
        for value in table.values() if isinstance(table, dict) else ():
            if isinstance(value, dict) and str(value.get("path", value.get("file", ""))) in THE_PROJECT:
                return True
    return False


def _pipfile(reader: Reader, *, quiet: bool = False) -> dict[str, Any] | None:
    text = reader.text(PIPFILE) if not quiet else _quiet_text(reader, PIPFILE)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        if not quiet:
            reader.refuse(PIPFILE, None, PIPFILE, f"not valid TOML: {exc}")
        return None


def _quiet_text(reader: Reader, rel: str) -> str | None:
    """The file's text without recording a refusal (the real reading records it once)."""
    probe = Reader(reader.root)
    return probe.text(rel)


def dependencies(reader: Reader) -> list[Declared]:
    """The Pipfile's packages and dev-packages as requirements (Pipenv itself reads Pipfile.lock)."""
    if not reader.exists(PIPFILE):
        return []
    doc = _pipfile(reader)
    if doc is None:
        return []
    data = reader.text(PIPFILE) or ""
    allowed = index_names(reader, doc.get("source"), PIPFILE, data, "[[source]]")
    found = []
    for section in SECTIONS:
        table = doc.get(section)
        for name, value in table.items() if isinstance(table, dict) else ():
            declared = _entry(reader, data, str(name), value, allowed)
            if declared is not None:
                found.append(declared)
        if section == "dev-packages" and isinstance(table, dict) and table:
            reader.notes.append(f"{PIPFILE}: [dev-packages] installed too, as `pipenv install --dev` does")
    return found


def _entry(reader: Reader, data: str, name: str, value: object, allowed: set[str]) -> Declared | None:
    """One `name = "spec"` or `name = {version = ..., extras = [...], markers = ...}` of a Pipfile."""
    line = line_of(data, f"{name} =") or line_of(data, name)
    text = f"{name} = {value!r}"[:200]
    table: Mapping[str, Any] = value if isinstance(value, dict) else {"version": value}
    if str(table.get("path", table.get("file", ""))) in THE_PROJECT and ("path" in table or "file" in table):
        reader.notes.append(f"{PIPFILE}:{line or '?'}: {name} is the project itself: built and installed as such")
        return None
    kinds = [kind for kind in NOT_FROM_INDEX if kind in table]
    if kinds or not isinstance(value, dict | str):
        reason = f"a {kinds[0]} dependency: only packages from the package index" if kinds else "not a version or table"
        reader.refuse(PIPFILE, line, text, reason)
        return None
    index = str(table.get("index", "")).lower()
    if index and index not in allowed:
        reader.refuse(PIPFILE, line, text, f"from the index {index!r} the file names, not the configured one")
        return None
    version = str(table.get("version", "*")).strip()
    specifier = "" if version in ("", "*") else version
    extras = table.get("extras")
    extra = f"[{','.join(str(e) for e in extras)}]" if isinstance(extras, list) and extras else ""
    marker = f"; {table['markers']}" if isinstance(table.get("markers"), str) and table["markers"].strip() else ""
    return pep508(reader, PIPFILE, line, f"{name}{extra}{specifier}{marker}")
