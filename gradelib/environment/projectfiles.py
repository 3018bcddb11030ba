"""The submission's project as uv installed it: its distribution, its console scripts, its top-level
names, and the folders of the copy an editable install runs from (read as metadata, never imported)."""

from __future__ import annotations

import importlib.metadata
import json
import os
from pathlib import Path, PurePosixPath

from gradelib.environment.declarationrecords import normal_name
from gradelib.environment.project import NOT_SOURCE

MAX_ROOTS = 4


def project_files(venv: Path, name: str | None) -> tuple[str | None, list[str], list[str]]:
    """(`name version`, console scripts, top-level importable names) of the project's distribution in
    `venv`: the one installed from a local folder (PEP 610's `dir_info`), by `name` when it declares one."""
    sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
    wanted = normal_name(name or "")
    for dist in importlib.metadata.distributions(path=sites):
        found = str(dist.metadata["Name"] or "")
        if (wanted and normal_name(found) == wanted) or (not wanted and _from_folder(dist)):
            scripts = sorted(ep.name for ep in dist.entry_points if ep.group == "console_scripts")
            return f"{found} {dist.version}", scripts, _top_level(dist)
    return None, [], []


def project_requires(venv: Path, name: str, extras: tuple[str, ...] = ()) -> list[str]:
    """The distributions the installed project requires (its metadata's Requires-Dist, markers met on this
    machine with `extras`): what its build says it declares."""
    from packaging.requirements import InvalidRequirement, Requirement

    sites = [str(site) for site in venv.glob("lib/python*/site-packages")]
    wanted = normal_name(name)
    for dist in importlib.metadata.distributions(path=sites):
        if normal_name(str(dist.metadata["Name"] or "")) != wanted:
            continue
        found = []
        for text in dist.requires or []:
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in ("", *extras)):
                found.append(requirement.name)
        return sorted(set(found))
    return []


def _from_folder(dist: importlib.metadata.Distribution) -> bool:
    try:
        doc = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return False
    return isinstance(doc, dict) and "dir_info" in doc


def _top_level(dist: importlib.metadata.Distribution) -> list[str]:
    top = set()
    for file in dist.files or []:
        parts = PurePosixPath(str(file)).parts
        if not parts or parts[0] == ".." or parts[0].endswith((".dist-info", ".data", ".pth")):
            continue
        top.add(parts[0].removesuffix(".py") if len(parts) == 1 else parts[0])
    return sorted(t for t in top if t.isidentifier() and t != "__pycache__")


def editable_roots(source: Path, top_level: list[str]) -> list[str]:
    """The folders of the submission, relative to it, that hold its top-level packages (`src`, or "" for the root)."""
    roots: list[str] = []
    with os.scandir(source) as entries:
        folders = sorted(
            entry.name for entry in entries
            if entry.is_dir(follow_symlinks=False) and entry.name not in NOT_SOURCE and not entry.name.startswith(".")
        )  # fmt: skip
    candidates = ["src", "", *folders]
    for name in top_level:
        for root in candidates:
            base = source / root if root else source
            package, module = base / name, base / f"{name}.py"
            if (package.is_dir() and not package.is_symlink()) or (module.is_file() and not module.is_symlink()):
                if root not in roots:
                    roots.append(root)
                break
    return roots[:MAX_ROOTS]
