"""Pipenv's declarations, read as data: `Pipfile` packages and dev-packages, `Pipfile.lock` pins.

Both sections are installed (the kit runs what a reviewer would, `pipenv install --dev` included).
Git, path and file entries are refused, except the project itself (`path = "."`), which the
project install builds; indexes other than PyPI named in `[[source]]` are refused by name.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from typing import Any

from gradelib.environment.declared import (
    MAX_LOCK_BYTES,
    Declared,
    LockUse,
    Reader,
    index_names,
    line_of,
    pep508,
    pin_from_lock,
)

PIPFILE = "Pipfile"
PIPFILE_LOCK = "Pipfile.lock"
SECTIONS = ("packages", "dev-packages")
LOCK_SECTIONS = ("default", "develop")
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
    """The Pipfile's packages and dev-packages as requirements (the lock's, when there is no Pipfile)."""
    if not reader.exists(PIPFILE):
        return _from_lock(reader) if reader.exists(PIPFILE_LOCK) else []
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


def _lock(reader: Reader) -> tuple[dict[str, Any] | None, str]:
    data = reader.text(PIPFILE_LOCK, MAX_LOCK_BYTES)
    if data is None:
        return None, ""
    try:
        doc = json.loads(data)
    except ValueError as exc:
        reader.refuse(PIPFILE_LOCK, None, PIPFILE_LOCK, f"not valid JSON: {exc}")
        reader.locks.append(LockUse(PIPFILE_LOCK, False, "not valid JSON: resolved from the Pipfile"))
        return None, data
    return (doc, data) if isinstance(doc, dict) else (None, data)


def _lock_entries(reader: Reader) -> list[tuple[str, dict[str, Any], str]]:
    """(name, entry, lock text) of every registry package in Pipfile.lock; the others are refused."""
    doc, data = _lock(reader)
    if doc is None:
        return []
    meta = doc.get("_meta")
    allowed = index_names(reader, meta.get("sources") if isinstance(meta, dict) else None, PIPFILE_LOCK, data,
                           "_meta.sources")  # fmt: skip
    found = []
    for section in LOCK_SECTIONS:
        table = doc.get(section)
        for name, entry in table.items() if isinstance(table, dict) else ():
            if not isinstance(entry, dict):
                continue
            kinds = [kind for kind in NOT_FROM_INDEX if kind in entry]
            where = line_of(data, f'"{name}"')
            if kinds:
                if str(entry.get(kinds[0])) not in THE_PROJECT:
                    reader.refuse(PIPFILE_LOCK, where, f"{name} ({kinds[0]})", "not from the configured package index")
                continue
            if str(entry.get("index", "pypi")).lower() not in allowed:
                what = f"{name} (index {entry.get('index')})"
                reader.refuse(PIPFILE_LOCK, where, what, "not from the configured index")
                continue
            found.append((str(name), entry, data))
    return found


def lock_pins(reader: Reader) -> tuple[str, ...]:
    """`name==version` for every registry package in Pipfile.lock, beside a Pipfile (installed as constraints)."""
    if not (reader.exists(PIPFILE) and reader.exists(PIPFILE_LOCK)):
        return ()
    pins = []
    for name, entry, data in _lock_entries(reader):
        version = str(entry.get("version", "")).removeprefix("==")
        pin = pin_from_lock(reader, PIPFILE_LOCK, data, name, version)
        if pin is not None:
            pins.append(pin)
    if not any(lock.file == PIPFILE_LOCK for lock in reader.locks):
        reader.locks.append(LockUse(PIPFILE_LOCK, True, f"{len(set(pins))} locked versions installed"))
    return tuple(sorted(set(pins)))


def _from_lock(reader: Reader) -> list[Declared]:
    """A Pipfile.lock shipped without its Pipfile: its packages are the declaration."""
    found = []
    for name, entry, data in _lock_entries(reader):
        version = str(entry.get("version", ""))
        marker = f"; {entry['markers']}" if isinstance(entry.get("markers"), str) else ""
        declared = pep508(reader, PIPFILE_LOCK, line_of(data, f'"{name}"'), f"{name}{version}{marker}")
        if declared is not None:
            found.append(declared)
    if not any(lock.file == PIPFILE_LOCK for lock in reader.locks):
        reader.locks.append(LockUse(PIPFILE_LOCK, True, f"no Pipfile: its {len(found)} locked versions are installed"))
    return found
