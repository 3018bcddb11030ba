"""The version of its tool a Python project asks for, honoured when the registry has it.

Poetry 2 reads `requires-poetry` in `[tool.poetry]`, uv `required-version` in `[tool.uv]`: PEP 440
specifiers (`>=2.0,<3`). The kit's pinned copy is used when it satisfies them. Otherwise the newest
release that does, as the index answers uv (`uv pip compile`, no dependencies), is provisioned; when
none can be had, the kit's copy is used and the report says why (the tool then refuses the project in
its own words, if it checks). Hatch, PDM and Pipenv have no such setting.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gradelib.environment import tools, tooltable
from gradelib.environment.capped import run_capped
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.uvtool import index_options, reason, uv_binary, uv_environment
from gradelib.errors import InstallError

MAX_SPEC_CHARS = 100
if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

RESOLVE_SECONDS = 60
WANTED = "wanted.in"


@dataclass(frozen=True)
class Chosen:
    """The version a setup runs with, why, and a note when the project's ask could not be met."""

    version: str
    version_from: str  # "the kit", or the setting (`requires-poetry >=2.0,<2.3`)
    note: str = ""


def asked(setting: str, pyproject: Mapping[str, Any] | None) -> str:
    """The project's version specifier at `setting`, a dotted pyproject key (`tool.poetry.requires-poetry`,
    the table's `pinned_by`); `""` when it names none, names it badly, or the setting is not a pyproject key."""
    if not setting.startswith("tool."):
        return ""
    node: Any = pyproject or {}
    for part in setting.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    return node.strip() if isinstance(node, str) and len(node) <= MAX_SPEC_CHARS else ""


def setting_of(tool: str) -> str:
    """Where a project names `tool`'s version in its pyproject.toml (the table's `pinned_by`), or `""`."""
    for row in tooltable.rows("python"):
        if row.tool == tool and row.pinned_by.startswith("tool."):
            return row.pinned_by
    return ""


def choose(tool: str, spec: str, settings: InstallSettings, *, setting: str = "") -> Chosen:
    """The version to set the project up with: the kit's when it satisfies `spec` (asked at `setting`),
    else the newest release that does (from the index), else the kit's with a note saying why."""
    # packaging is the kit's dependency, imported here only: the take-homes' modules load this one, and a
    # grading run by the system interpreter alone (as an ordinary user's, say) needs it only for a pin.
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    kit = tools.TOOLS[tool].version
    if not spec:
        return Chosen(kit, "the kit")
    setting = f"{(setting or setting_of(tool)).rsplit('.', 1)[-1]} {spec}"
    try:
        wanted = SpecifierSet(spec)
    except InvalidSpecifier:
        return Chosen(kit, "the kit", f"{setting} is not a version specifier; used {kit}")
    if wanted.contains(kit, prereleases=True):
        return Chosen(kit, f"the kit (within {setting})")
    try:
        return Chosen(newest(tools.TOOLS[tool].package, wanted, settings), setting)
    except InstallError as exc:
        return Chosen(kit, "the kit", f"{setting}: {exc.reason}; used {kit}")


def newest(package: str, wanted: SpecifierSet, settings: InstallSettings) -> str:
    """The newest release of `package` within `wanted`, as uv resolves it from the index; InstallError."""
    if settings.offline:
        raise InstallError("tools", "offline, so no other release can be looked up")
    with tempfile.TemporaryDirectory(prefix="gradelib-toolpin-") as work:
        (Path(work) / WANTED).write_text(f"{package}{wanted}\n", encoding="utf-8")
        argv = [
            uv_binary(), "pip", "compile", WANTED, "--no-deps", "--no-header", "--no-annotate", "--quiet",
            "--python", settings.python, "--no-python-downloads", *index_options(settings),
        ]  # fmt: skip
        done = run_capped(
            argv, cwd=Path(work), env=uv_environment(), watch=Path(work), max_seconds=RESOLVE_SECONDS, max_bytes=2**20
        )
    if done.code != 0:
        raise InstallError("tools", f"no release of {package} within {wanted}: {reason(done.output)}")
    for line in done.output.splitlines():
        name, _, version = line.strip().partition("==")
        if name.lower() == package.lower() and _release(version):
            return version
    raise InstallError("tools", f"uv named no release of {package} within {wanted}")


def _release(version: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        Version(version)
    except InvalidVersion:
        return False
    return bool(tools.VERSION.match(version))
