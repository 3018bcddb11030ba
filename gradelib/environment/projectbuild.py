"""The submission's own project, built into a wheel by its own build backend inside the sandbox, offline.

The build requirements come from the configured index as wheels (a build virtualenv, as for the
source-build opt-in); the kit's PEP 517 frontend then runs the backend on a copy of the
submission in the sandbox, with no network, capped in time. The wheel is checked (its name and
version where the project declares them, no `.pth` file, no paths out) and installed with its
dependencies into the submission's environment. An editable install (`pip install -e .`, `uv
sync`, `poetry install`) is honoured at run time: the copy's own source folders come first on
`PYTHONPATH`, so the code that runs is the copy's, as it would be on the candidate's machine.
"""

from __future__ import annotations

import configparser
import io
import os
import subprocess
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gradelib.environment import buildsystem, uvtool
from gradelib.environment.capped import run_capped
from gradelib.environment.project import NOT_SOURCE, Project
from gradelib.environment.settings import InstallSettings
from gradelib.environment.sourcebuild import WHEELHOUSE, build_env, build_in_sandbox, check_wheel, store_wheel
from gradelib.errors import InstallError

WORK = ".projectbuild"
MAX_ROOTS = 4


@dataclass(frozen=True)
class ProjectWheel:
    """The project's wheel in the environment's wheelhouse, and what the report says about its build."""

    path: Path
    record: dict[str, Any]  # JSON-ready: backend, wheel, build time, entry points, editable roots


def build(project: Project, source: Path, folder: Path, settings: InstallSettings) -> ProjectWheel:
    """Build the project's wheel in the sandbox into `folder/wheelhouse`; InstallError naming the backend."""
    try:
        return _build(project, source, folder, settings)
    except InstallError as exc:  # its own words: "building the project x with its build backend y failed ..."
        raise InstallError("python", exc.reason, subject="") from exc


def _build(project: Project, source: Path, folder: Path, settings: InstallSettings) -> ProjectWheel:
    system = buildsystem.check(project.system, "the project's [build-system]")
    label = f"the project {project.name}" if project.name else "the project"
    doing = f"building {label} with its build backend {system.backend}"
    env_folder = folder / WORK / "env"
    env_folder.parent.mkdir(mode=0o755, exist_ok=True)
    try:
        build_env(env_folder, system, folder, settings, label)
        started = time.monotonic()
        built = build_in_sandbox(
            source, env_folder, system, settings, doing, require_isolation=False,
            install_missing=lambda wanted: _install_more(env_folder, wanted, folder, settings, label),
        )  # fmt: skip
        seconds = round(time.monotonic() - started, 2)
    finally:
        _remove(folder / WORK)
    check_wheel(built.filename, built.data, project.name, project.version)
    path = store_wheel(built, folder / WHEELHOUSE)
    scripts, top_level = wheel_contents(built.data)
    roots = editable_roots(source, top_level) if project.editable else []
    record = project.to_dict() | {
        "wheel": built.filename,
        "build_seconds": seconds,
        "entry_points": scripts,
        "editable_roots": roots,
        "isolation": built.isolation,
        "connections": list(built.connections),
    }
    return ProjectWheel(path, record)


def _install_more(env_folder: Path, wanted: list[str], watch: Path, settings: InstallSettings, label: str) -> None:
    """Install the extra build requirements a backend asked for (`get_requires_for_build_wheel`), wheels only."""
    for requirement in wanted:
        buildsystem.check(buildsystem.BuildSystem((requirement,), "x"), label)  # a plain index package, or refused
    argv = [
        uvtool.uv_binary(), "pip", "install", "--python", str(env_folder / "python" / "bin" / "python"), *wanted,
        "--no-build", "--link-mode", "copy", "--no-python-downloads", *uvtool.index_options(settings),
    ]  # fmt: skip
    done = run_capped(argv, cwd=env_folder, env=uvtool.uv_environment(), watch=watch,
                      max_seconds=settings.max_seconds, max_bytes=settings.max_bytes)  # fmt: skip
    uvtool.raise_for(done, settings, f"building {label}: the backend's build requirements {', '.join(wanted)}")


def wheel_contents(data: bytes) -> tuple[list[str], list[str]]:
    """(console scripts, top-level importable names) of a wheel, from its metadata and file list."""
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        names = wheel.namelist()
        entry_points = next((n for n in names if n.count("/") == 1 and n.endswith(".dist-info/entry_points.txt")), None)
        text = wheel.read(entry_points).decode("utf-8", errors="replace") if entry_points else ""
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # script names keep their case
    try:
        parser.read_string(text)
        scripts = sorted(parser.options("console_scripts")) if parser.has_section("console_scripts") else []
    except configparser.Error:
        scripts = []
    top = set()
    for name in names:
        first = PurePosixPath(name).parts[0]
        if first.endswith((".dist-info", ".data")):
            continue
        top.add(first.removesuffix(".py") if "/" not in name else first)
    return scripts, sorted(t for t in top if t.isidentifier())


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


def _remove(path: Path) -> None:
    subprocess.run(["rm", "-rf", "--one-file-system", str(path)], capture_output=True, check=False)
