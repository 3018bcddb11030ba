"""A `[build-system]` table (PEP 517/518): what to install to build, which backend, checked before any build."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from gradelib.errors import InstallError

DEFAULT_REQUIRES = ("setuptools>=40.8.0", "wheel")  # PEP 518, when pyproject.toml says nothing
DEFAULT_BACKEND = "setuptools.build_meta:__legacy__"
BACKEND = re.compile(r"[\w.]+(:[\w.]+)?")


@dataclass(frozen=True)
class BuildSystem:
    """What to install to build, which backend, where an in-tree backend lives (not yet checked)."""

    requires: tuple[str, ...]
    backend: str
    backend_path: tuple[str, ...] = ()


def from_table(table: Mapping[str, Any] | None) -> BuildSystem:
    """The `[build-system]` table as declared (PEP 518's setuptools default when absent); `check` it before use."""
    if not isinstance(table, Mapping):
        return BuildSystem(DEFAULT_REQUIRES, DEFAULT_BACKEND)
    requires = table.get("requires", list(DEFAULT_REQUIRES))
    backend = table.get("build-backend", DEFAULT_BACKEND)
    paths = table.get("backend-path", [])
    return BuildSystem(
        tuple(requires) if isinstance(requires, list) else (requires,),
        backend if isinstance(backend, str) else repr(backend),
        tuple(paths) if isinstance(paths, list) else (paths,),
    )


def check(system: BuildSystem, label: str) -> BuildSystem:
    """The same build system, stripped; InstallError naming `label` for anything the kit will not build with."""
    if not all(isinstance(r, str) for r in system.requires):
        raise InstallError("python", f"{label}: [build-system].requires must be a list of requirement strings")
    if not BACKEND.fullmatch(system.backend.strip()):
        raise InstallError("python", f"{label}: [build-system].build-backend is not `module:object`")
    if not all(isinstance(p, str) and _inside(p) for p in system.backend_path):
        raise InstallError("python", f"{label}: [build-system].backend-path must name folders inside the project")
    for requirement in system.requires:
        _registry_requirement(requirement, label)
    return BuildSystem(system.requires, system.backend.strip(), system.backend_path)


def _inside(path: str) -> bool:
    pure = PurePosixPath(path)
    return not pure.is_absolute() and ".." not in pure.parts


def _registry_requirement(text: str, label: str) -> None:
    """A build requirement must be a plain package from the index, like any declared requirement."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(text)
    except InvalidRequirement as exc:
        raise InstallError("python", f"{label}: build requirement {text!r} is not valid: {exc}") from exc
    if requirement.url:
        raise InstallError("python", f"{label}: build requirement {text!r} is a direct URL: refused")
