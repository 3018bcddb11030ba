"""Whether a submission's files hold a setup row's evidence (`tooltable.toml`), read as data, and in words.

A row's evidence is a list of alternatives; an alternative holds when each of its conditions does. The
words say what was found (`run.sh runs `nox``, `the submission has a uv.lock`), for the report.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gradelib.environment.declarationrecords import Reader
from gradelib.environment.tooltable import SetupRow

PYPROJECT = "pyproject.toml"
PACKAGE_JSON = "package.json"
RUN_SH = "run.sh"
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")
TASK_FILES = (*MAKEFILES, *JUSTFILES)
READMES = ("README.md", "README.rst", "README.txt", "README", "INSTALL.md", "SETUP.md", "CONTRIBUTING.md")
# Where a submission names the commands it runs: its scripts, task files and READMEs.
NAMING = (RUN_SH, *TASK_FILES, *READMES)
SCRIPT_BLOCK = re.compile(rb"^# /// script\s*$", re.M)
MAX_SCRIPTS = 20
COMMENT = re.compile(r"(^|\s)#.*$", re.M)
TASK_CALL = re.compile(r"(?<![\w-])(make|just)(?![\w-])")


def found(
    row: SetupRow, reader: Reader, pyproject: Mapping[str, Any] | None, *, locks_only: bool = False
) -> str | None:
    """What the submission's files hold of the row's evidence, in words; None when none of it holds. With
    `locks_only`, only the alternatives that name one of the row's lockfiles count."""
    for alternative in row.evidence:
        if locks_only and not _names_lock(alternative, row):
            continue
        said = []
        for kind, value in alternative.items():
            words = _condition(kind, value, reader, pyproject, row)
            if words is None:
                break
            said.append(words)
        else:
            return " and ".join(said) if said else "nothing else names another tool"
    return None


def _names_lock(alternative: Mapping[str, Any], row: SetupRow) -> bool:
    lockfile = alternative.get("file") or (alternative.get("contains") or [None])[0]
    return lockfile in row.locks


def _condition(kind: str, value: Any, reader: Reader, pyproject: Mapping[str, Any] | None, row: SetupRow) -> str | None:
    if kind == "file":
        return f"the submission has a {value}" if reader.exists(str(value)) else None
    if kind == "contains":
        name, pattern = value
        text = reader.text(str(name), 16 * 1024 * 1024)
        return f"its {name} is {row.tool}'s" if text and re.search(str(pattern), text) else None
    if kind == "pyproject":
        return f"{PYPROJECT} has [{value}]" if _has(pyproject, str(value)) else None
    if kind == "backend":
        backend = _backend(pyproject)
        return f"its build backend is {backend}" if backend and backend.startswith(str(value)) else None
    if kind in ("names", "runs"):
        return _named(reader, str(value), runs=kind == "runs")
    if kind == "package_manager":
        manager = _package_json(reader).get("packageManager")
        if isinstance(manager, str) and re.search(str(value), manager):
            return f"{PACKAGE_JSON}'s packageManager is {manager[:60]}"
        return None
    if kind == "script_metadata":
        scripts = inline_scripts(reader)
        if not scripts:
            return None
        return f"{', '.join(scripts)} declare{'s' if len(scripts) == 1 else ''}"
    return None


def _has(doc: Mapping[str, Any] | None, dotted: str) -> bool:
    node: Any = doc or {}
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def _backend(doc: Mapping[str, Any] | None) -> str | None:
    system = (doc or {}).get("build-system")
    backend = system.get("build-backend") if isinstance(system, Mapping) else None
    return backend if isinstance(backend, str) else None


def _named(reader: Reader, pattern: str, *, runs: bool) -> str | None:
    """`{file} runs `{match}`` for the first of the files that name it, or None."""
    for name, text in texts(reader, runs=runs):
        if match := re.search(pattern, text):
            return f"{name} runs `{' '.join(match.group(0).split())[:60]}`"
    return None


def texts(reader: Reader, *, runs: bool = False) -> list[tuple[str, str]]:
    """(file, text without comments) of where the submission names commands. With `runs`, only what runs
    its code: run.sh, package.json's scripts, and the Makefile or justfile run.sh or a script calls."""
    found: list[tuple[str, str]] = []
    run_sh = reader.text(RUN_SH)
    scripts = _package_json(reader).get("scripts")
    script_text = "\n".join(str(v) for v in scripts.values()) if isinstance(scripts, dict) else ""
    if run_sh:
        found.append((RUN_SH, COMMENT.sub("", run_sh)))
    if script_text:
        found.append((f"{PACKAGE_JSON}'s scripts", script_text))
    calls_tasks = bool(TASK_CALL.search(f"{run_sh or ''}\n{script_text}"))
    for name in TASK_FILES:
        if (not runs or calls_tasks) and (text := reader.text(name)):
            found.append((name, COMMENT.sub("", text)))
    if not runs:
        for name in READMES:
            if text := reader.text(name):
                found.append((name, text))
    return found


def inline_scripts(reader: Reader) -> list[str]:
    """The scripts at the submission's top that declare their dependencies inline (PEP 723)."""
    try:
        names = sorted(p.name for p in reader.root.iterdir() if p.suffix == ".py" and p.is_file())[:MAX_SCRIPTS]
    except OSError:
        return []
    return [name for name in names if (data := reader.read(name)) is not None and SCRIPT_BLOCK.search(data)]


def _package_json(reader: Reader) -> dict[str, Any]:
    data = reader.read(PACKAGE_JSON)
    try:
        doc = json.loads(data) if data else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def files_read(reader: Reader, patterns: tuple[str, ...]) -> list[str]:
    """The submission's files that match a row's `reads` globs (relative, sorted): what its cache key digests."""
    found: set[str] = set()
    root = Path(reader.root)
    for pattern in patterns:
        for path in root.glob(pattern):
            if path.is_file() and not path.is_symlink() and "node_modules" not in path.parts:
                found.add(path.relative_to(root).as_posix())
    return sorted(found)
