"""The reviewer's opt-in: build a package that has no usable wheel from its sdist, in the sandbox, offline.

The sdist comes from the configured index as data (`sdist.py`); its `[build-system].requires`
are installed, wheels only, into a build virtualenv by uv (installing wheels runs no package
code); then the kit's own PEP 517 frontend (`buildfrontend.py`) runs the build backend inside
the `Sandbox`: no network (loopback only), a copy of the source folder and one output folder
writable, time-capped. The wheel it leaves is checked (its name and version, no `.pth` file,
which uv's bytecode step would run on the host) and put in the environment's wheelhouse, from
which uv installs it with `--find-links` and still `--no-build`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gradelib.environment import buildsystem, cache, sdist, uvtool
from gradelib.environment.buildfrontend import EXIT_MISSING, MISSING_PREFIX
from gradelib.environment.buildsystem import BuildSystem
from gradelib.environment.capped import run_capped
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError, UnsafeFile
from gradelib.sandbox import Limits, Mounts, Sandbox, safefs

WHEELHOUSE = "wheelhouse"  # in the environment folder: the wheels built from source
WORK = ".sourcebuild"
BUILD_VENV = "python"  # in a build folder: the virtualenv with the build requirements
FRONTEND = Path(__file__).with_name("buildfrontend.py")
FRONTEND_NAME = "gradelib_build_frontend.py"
MAX_BUILDS = 5  # packages built from source for one environment
MAX_WHEEL_BYTES = 256 * 1024**2
BUILD_MEMORY_BYTES = 2 * 1024**3
ERROR_TAIL = 12  # lines of the build's output kept in the error
NEEDS_WHEEL = re.compile(r"Wheels are required for `([^`]+)`")
PINNED = re.compile(r"Because ([A-Za-z0-9][\w.-]*)==([\w.!+-]+) has no usable wheels")


@dataclass(frozen=True)
class SourceBuild:
    """One package built from source in the sandbox, for the environment's evidence."""

    name: str
    version: str
    sdist: str  # the archive's file name
    sha256: str
    wheel: str
    seconds: float
    isolation: str
    connections: tuple[str, ...] = ()  # what the build tried to reach (it had no network)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "name": self.name, "version": self.version, "sdist": self.sdist, "sha256": self.sha256,
            "wheel": self.wheel, "build_seconds": self.seconds, "isolation": self.isolation,
            "connections": list(self.connections),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> SourceBuild:
        """Read back from a manifest."""
        return cls(
            str(doc["name"]), str(doc["version"]), str(doc["sdist"]), str(doc["sha256"]), str(doc["wheel"]),
            float(doc["build_seconds"]), str(doc["isolation"]), tuple(str(c) for c in doc.get("connections", ())),
        )  # fmt: skip


def needs_build(uv_output: str) -> list[str]:
    """The packages uv refused because they have no usable wheel (normalised names, in order)."""
    found: list[str] = []
    for name in NEEDS_WHEEL.findall(uv_output):
        if sdist.normalize(name) not in found:
            found.append(sdist.normalize(name))
    return found


def pinned_versions(uv_output: str) -> dict[str, str]:
    """`{name: version}` where uv's message names the exact version that has no wheel."""
    return {sdist.normalize(name): version for name, version in PINNED.findall(uv_output)}


def build_system(tree: Path, label: str) -> BuildSystem:
    """The checked `[build-system]` of an unpacked sdist (PEP 518's setuptools default when absent)."""
    pyproject = tree / "pyproject.toml"
    if not pyproject.is_file():
        return buildsystem.from_table(None)
    try:
        doc = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError as exc:
        raise InstallError("python", f"{label}: pyproject.toml is not valid TOML: {exc}") from exc
    return buildsystem.check(buildsystem.from_table(doc.get("build-system")), label)


def build(
    name: str,
    specifiers: list[str],
    folder: Path,
    settings: InstallSettings,
    python_version: str,
) -> SourceBuild:
    """Build `name` from its sdist into `folder/wheelhouse`; raise InstallError naming it on any failure."""
    archive = sdist.find(name, specifiers, settings, python_version)
    label = f"{archive.name} {archive.version}"
    path = sdist.download(archive, settings)
    work = folder / WORK / archive.name
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, mode=0o755)
    try:
        tree = sdist.unpack(path, work / "source")
        system = build_system(tree, label)
        build_env(work / "env", system, folder, settings, label)
        started = time.monotonic()
        wheel, isolation, connections = _run_build(tree, work / "env", system, settings, archive, folder)
        seconds = round(time.monotonic() - started, 2)
    finally:
        shutil.rmtree(folder / WORK, ignore_errors=True)
    return SourceBuild(archive.name, archive.version, archive.filename, archive.sha256, wheel, seconds,
                       isolation, connections)  # fmt: skip


def build_env(env_folder: Path, system: BuildSystem, watch: Path, settings: InstallSettings, label: str) -> None:
    """`env_folder/python`: a virtualenv with the build requirements, installed by uv from wheels only."""
    uv, venv = uvtool.uv_binary(), env_folder / BUILD_VENV
    env = uvtool.uv_environment()
    env_folder.mkdir(mode=0o755)
    made = run_capped(
        [uv, "venv", "--quiet", "--python", settings.python, "--no-python-downloads", str(venv)],
        cwd=env_folder, env=env, watch=watch, max_seconds=60, max_bytes=settings.max_bytes,
    )  # fmt: skip
    uvtool.raise_for(made, settings, f"building {label}: could not make a build virtualenv")
    if not system.requires:
        return
    (env_folder / "build-requires.in").write_text("".join(f"{r}\n" for r in system.requires))
    argv = [
        uv, "pip", "install", "--python", str(venv / "bin" / "python"), "-r", "build-requires.in",
        "--no-build", "--link-mode", "copy", "--no-python-downloads", *uvtool.index_options(settings),
    ]  # fmt: skip
    done = run_capped(argv, cwd=env_folder, env=env, watch=watch, max_seconds=settings.max_seconds,
                      max_bytes=settings.max_bytes)  # fmt: skip
    uvtool.raise_for(
        done, settings, f"building {label}: its build requirements ({', '.join(system.requires)}) cannot be installed"
    )


@dataclass(frozen=True)
class BuiltWheel:
    """The one wheel a sandboxed build left, read safely, and how the build was isolated."""

    filename: str
    data: bytes
    isolation: str
    connections: tuple[str, ...]  # what the build tried to reach (it had no network)


def _run_build(
    tree: Path, env_folder: Path, system: BuildSystem, settings: InstallSettings, archive: sdist.SourceArchive,
    folder: Path,
) -> tuple[str, str, tuple[str, ...]]:  # fmt: skip
    """Build the sdist's wheel in the sandbox, check it, put it in the wheelhouse: (wheel, isolation, connections)."""
    label = f"{archive.name} {archive.version}"
    built = build_in_sandbox(tree, env_folder, system, settings, f"building {label} from source")
    check_wheel(built.filename, built.data, archive.name, archive.version)
    store_wheel(built, folder / WHEELHOUSE)
    return built.filename, built.isolation, built.connections


def build_in_sandbox(
    tree: Path,
    env_folder: Path,
    system: BuildSystem,
    settings: InstallSettings,
    doing: str,
    *,
    require_isolation: bool = True,
    install_missing: Callable[[list[str]], None] | None = None,
) -> BuiltWheel:
    """Run the kit's PEP 517 frontend on a copy of `tree` in the sandbox, with `env_folder` as its python.

    `doing` starts every error (`building the project with hatchling.build`). A backend that asks
    for more build requirements gets them through `install_missing` (wheels only) and one more
    run; without it, it is refused by name. `require_isolation` refuses to build at all where the
    network cannot be turned off.
    """
    venv = env_folder / BUILD_VENV
    mounts = Mounts(
        read_only=(str(env_folder),),
        placeholders=((str(env_folder), "<python-env>"),),
        bin_dirs=(str(venv / "bin"),),
        venv=venv,
    )
    limits = Limits(
        wall_seconds=settings.build_seconds, cpu_seconds=int(settings.build_seconds) + 1,
        memory_bytes=BUILD_MEMORY_BYTES, file_bytes=MAX_WHEEL_BYTES,
    )  # fmt: skip
    with Sandbox(tree, mounts=mounts, link_venv=False) as box:
        if require_isolation:  # never on the host as is: probe before the build runs at all
            cache.readable(env_folder)
            probe = box.run(["python", "-I", "-c", "pass"], box.copy("probe"), limits=Limits(wall_seconds=60))
            if not probe.isolation.network_verified:
                raise InstallError("python", f"{doing}: not possible here: {probe.isolation.reason}")
        frontend = box.kit_file(FRONTEND_NAME, FRONTEND.read_bytes())
        for attempt in range(2):
            cache.readable(env_folder)  # the sandbox's user reads (never writes) the build virtualenv
            copy = box.copy("build")
            out = box.output_folder(copy, "wheels")
            argv = ["python", "-I", str(frontend), str(out), system.backend, json.dumps(list(system.backend_path))]
            result = box.run(argv, copy, limits=limits)
            missing = _missing(result.stderr) if result.exit_code == EXIT_MISSING else []
            if not (missing and install_missing and attempt == 0):
                break
            install_missing(missing)
        connections = tuple(c.describe() for c in result.network_attempts)
        if result.timed_out:
            raise InstallError("python", f"{doing} took longer than {settings.build_seconds:g} s: stopped")
        if not result.ok:
            tail = _tail(result.stdout + "\n" + result.stderr)
            raise InstallError("python", f"{doing} failed ({result.status()}): {tail}")
        with os.scandir(out) as entries:
            names = sorted(entry.name for entry in entries if entry.name.endswith(".whl"))
        if len(names) != 1:
            raise InstallError("python", f"{doing} left {len(names)} wheels, not one: refused")
        try:
            data = _read(out, names[0])
        except UnsafeFile as exc:
            raise InstallError("python", f"{doing}: the wheel {exc.reason}: refused") from exc
    return BuiltWheel(names[0], data, result.isolation.mode, connections)


def _missing(stderr: str) -> list[str]:
    """The build requirements the frontend said the backend lacks."""
    for line in stderr.splitlines():
        if line.startswith(MISSING_PREFIX):
            return [part.strip() for part in line[len(MISSING_PREFIX) :].split(",") if part.strip()]
    return []


def _tail(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return " | ".join(lines[-ERROR_TAIL:])[-1500:] or "the build printed nothing"


def store_wheel(built: BuiltWheel, wheelhouse: Path) -> Path:
    """Write a checked wheel into the environment's wheelhouse, readable by the sandbox's user."""
    wheelhouse.mkdir(exist_ok=True, mode=0o755)
    target = wheelhouse / built.filename
    target.write_bytes(built.data)
    os.chmod(target, 0o644)
    return target


def _read(folder: Path, name: str) -> bytes:
    data = safefs.read_file(folder, name, MAX_WHEEL_BYTES)
    if data is None:
        raise UnsafeFile(name, "is missing")
    return data


def check_wheel(filename: str, data: bytes, name: str | None, version: str | None) -> None:
    """Refuse a built wheel that is not `name`'s at `version` (where known), or whose install would run code.

    uv compiles bytecode with the environment's interpreter, which runs every `.pth` file
    in site-packages: a build must not be able to plant one.
    """
    import io

    from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
    from packaging.version import Version

    try:
        project, built_version, _build, _tags = parse_wheel_filename(filename)
    except InvalidWheelFilename as exc:
        raise InstallError("python", f"building {name}: {filename} is not a wheel file name: refused") from exc
    other_name = name is not None and canonicalize_name(project) != canonicalize_name(name)
    if other_name or (version is not None and built_version != Version(version)):
        raise InstallError("python", f"building {name} {version or ''} made {filename}: refused")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as wheel:
            members = wheel.namelist()
    except zipfile.BadZipFile as exc:
        raise InstallError("python", f"building {name}: {filename} is not a zip archive: refused") from exc
    for member in members:
        path = PurePosixPath(member)
        if path.is_absolute() or ".." in path.parts or "\\" in member:
            raise InstallError("python", f"building {name}: {filename} holds {member!r}, outside the wheel: refused")
        in_lib = len(path.parts) == 3 and path.parts[0].endswith(".data") and path.parts[1] in ("purelib", "platlib")
        if (len(path.parts) == 1 or in_lib) and member.endswith(".pth"):
            raise InstallError(
                "python", f"building {name}: {filename} holds {member}, a .pth file that runs at start-up: refused"
            )
