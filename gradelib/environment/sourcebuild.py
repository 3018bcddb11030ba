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
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gradelib.environment import sdist
from gradelib.environment.capped import run_capped
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError, UnsafeFile

WHEELHOUSE = "wheelhouse"  # in the environment folder: the wheels built from source
WORK = ".sourcebuild"
FRONTEND = Path(__file__).with_name("buildfrontend.py")
FRONTEND_NAME = "gradelib_build_frontend.py"
MAX_BUILDS = 5  # packages built from source for one environment
MAX_WHEEL_BYTES = 256 * 1024**2
BUILD_MEMORY_BYTES = 2 * 1024**3
ERROR_TAIL = 12  # lines of the build's output kept in the error
DEFAULT_REQUIRES = ("setuptools>=40.8.0", "wheel")  # PEP 518, when pyproject.toml says nothing
DEFAULT_BACKEND = "setuptools.build_meta:__legacy__"
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


@dataclass(frozen=True)
class BuildSystem:
    """An sdist's `[build-system]`: what to install, which backend, where an in-tree backend lives."""

    requires: tuple[str, ...]
    backend: str
    backend_path: tuple[str, ...] = ()


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
    """The `[build-system]` of an unpacked sdist (PEP 518's setuptools default when absent)."""
    pyproject = tree / "pyproject.toml"
    if not pyproject.is_file():
        return BuildSystem(DEFAULT_REQUIRES, DEFAULT_BACKEND)
    try:
        doc = tomllib.loads(pyproject.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError as exc:
        raise InstallError("python", f"{label}: pyproject.toml is not valid TOML: {exc}") from exc
    table = doc.get("build-system")
    if not isinstance(table, dict):
        return BuildSystem(DEFAULT_REQUIRES, DEFAULT_BACKEND)
    requires = table.get("requires", list(DEFAULT_REQUIRES))
    backend = table.get("build-backend", DEFAULT_BACKEND)
    paths = table.get("backend-path", [])
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        raise InstallError("python", f"{label}: [build-system].requires must be a list of requirement strings")
    if not isinstance(backend, str) or not re.fullmatch(r"[\w.]+(:[\w.]+)?", backend.strip()):
        raise InstallError("python", f"{label}: [build-system].build-backend is not `module:object`")
    if not isinstance(paths, list) or not all(isinstance(p, str) and _inside(p) for p in paths):
        raise InstallError("python", f"{label}: [build-system].backend-path must name folders inside the sdist")
    for requirement in requires:
        _registry_requirement(requirement, label)
    return BuildSystem(tuple(requires), backend.strip(), tuple(paths))


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
        _build_env(work / "env", system, folder, settings, label)
        started = time.monotonic()
        wheel, isolation, connections = _run_build(tree, work / "env", system, settings, archive, folder)
        seconds = round(time.monotonic() - started, 2)
    finally:
        shutil.rmtree(folder / WORK, ignore_errors=True)
    return SourceBuild(archive.name, archive.version, archive.filename, archive.sha256, wheel, seconds,
                       isolation, connections)  # fmt: skip


def _build_env(env_folder: Path, system: BuildSystem, watch: Path, settings: InstallSettings, label: str) -> None:
    """`env_folder/python`: a virtualenv with the build requirements, installed by uv from wheels only."""
    from gradelib.environment import pyinstall

    uv, venv = pyinstall.uv_binary(), env_folder / pyinstall.VENV
    env = pyinstall.uv_environment()
    env_folder.mkdir(mode=0o755)
    made = run_capped(
        [uv, "venv", "--quiet", "--python", settings.python, "--no-python-downloads", str(venv)],
        cwd=env_folder, env=env, watch=watch, max_seconds=60, max_bytes=settings.max_bytes,
    )  # fmt: skip
    pyinstall.raise_for(made, settings, f"building {label}: could not make a build virtualenv")
    if not system.requires:
        return
    (env_folder / "build-requires.in").write_text("".join(f"{r}\n" for r in system.requires))
    argv = [
        uv, "pip", "install", "--python", str(venv / "bin" / "python"), "-r", "build-requires.in",
        "--no-build", "--link-mode", "copy", "--no-python-downloads", *pyinstall.index_options(settings),
    ]  # fmt: skip
    done = run_capped(argv, cwd=env_folder, env=env, watch=watch, max_seconds=settings.max_seconds,
                      max_bytes=settings.max_bytes)  # fmt: skip
    pyinstall.raise_for(
        done, settings, f"building {label}: its build requirements ({', '.join(system.requires)}) cannot be installed"
    )


def _run_build(
    tree: Path, env_folder: Path, system: BuildSystem, settings: InstallSettings, archive: sdist.SourceArchive,
    folder: Path,
) -> tuple[str, str, tuple[str, ...]]:  # fmt: skip
    """Run the frontend in the sandbox; move the checked wheel into the wheelhouse: (wheel, isolation, connections)."""
    # Imported here: the sandbox imports this package (its Environment type).
    from gradelib.environment import cache
    from gradelib.environment.prepared import Environment, Installed
    from gradelib.sandbox import Limits, Sandbox

    label = f"{archive.name} {archive.version}"
    cache.readable(env_folder)  # the sandbox's user reads (never writes) the build virtualenv
    environment = Environment(python=Installed("python", env_folder, "build", (), False, 0.0))
    limits = Limits(
        wall_seconds=settings.build_seconds, cpu_seconds=int(settings.build_seconds) + 1,
        memory_bytes=BUILD_MEMORY_BYTES, file_bytes=MAX_WHEEL_BYTES,
    )  # fmt: skip
    with Sandbox(tree, environment=environment) as box:
        # A build from source runs only where the network is really off: never on the host as is.
        probe = box.run(["python", "-I", "-c", "pass"], box.copy("probe"), limits=Limits(wall_seconds=60))
        if not probe.isolation.network_verified:
            raise InstallError("python", f"{label} cannot be built from source here: {probe.isolation.reason}")
        frontend = box.kit_file(FRONTEND_NAME, FRONTEND.read_bytes())
        copy = box.copy("build")
        out = box.output_folder(copy, "wheels")
        argv = ["python", "-I", str(frontend), str(out), system.backend, json.dumps(list(system.backend_path))]
        result = box.run(argv, copy, limits=limits)
        connections = tuple(c.describe() for c in result.network_attempts)
        if result.timed_out:
            raise InstallError(
                "python", f"building {label} from source took longer than {settings.build_seconds:g} s: stopped"
            )
        if not result.ok:
            tail = _tail(result.stdout + "\n" + result.stderr)
            raise InstallError("python", f"building {label} from source failed ({result.status()}): {tail}")
        wheel = _take_wheel(out, archive, folder / WHEELHOUSE)
    return wheel, result.isolation.mode, connections


def _tail(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return " | ".join(lines[-ERROR_TAIL:])[-1500:] or "the build printed nothing"


def _take_wheel(out: Path, archive: sdist.SourceArchive, wheelhouse: Path) -> str:
    """The one wheel of `archive`'s project the build left in `out`, checked and copied to the wheelhouse."""
    label = f"{archive.name} {archive.version}"
    names = sorted(entry.name for entry in os.scandir(out) if entry.name.endswith(".whl"))
    if len(names) != 1:
        raise InstallError("python", f"building {label} from source left {len(names)} wheels, not one: refused")
    try:
        data = _read(out, names[0])
    except UnsafeFile as exc:
        raise InstallError("python", f"building {label}: the wheel {exc.reason}: refused") from exc
    check_wheel(names[0], data, archive.name, archive.version)
    wheelhouse.mkdir(exist_ok=True, mode=0o755)
    target = wheelhouse / names[0]
    target.write_bytes(data)
    os.chmod(target, 0o644)
    return names[0]


def _read(folder: Path, name: str) -> bytes:
    from gradelib.sandbox import safefs

    data = safefs.read_file(folder, name, MAX_WHEEL_BYTES)
    if data is None:
        raise UnsafeFile(name, "is missing")
    return data


def check_wheel(filename: str, data: bytes, name: str, version: str) -> None:
    """Refuse a built wheel that is not `name`'s at `version`, or whose install would run code on the host.

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
    if canonicalize_name(project) != canonicalize_name(name) or built_version != Version(version):
        raise InstallError("python", f"building {name} {version} from source made {filename}: refused")
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
