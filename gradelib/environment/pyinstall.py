"""Python environments: a virtualenv from the system interpreter, filled by uv from the package index."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from gradelib.environment.cache import Manifest
from gradelib.environment.capped import Capped, run_capped, size_text
from gradelib.environment.declaration import PythonDeclaration
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError

if TYPE_CHECKING:
    from gradelib.environment.sourcebuild import SourceBuild

VENV = "python"
REQUIREMENTS = "requirements.in"
CONSTRAINTS = "constraints.txt"
OPT_IN = "--build-source (GRADELIB_BUILD_SOURCE=1) builds it inside the sandbox, offline"
ERROR_LINE = re.compile(r"^\s*(error|cause|caused by|hint|×|╰─▶)(:|\s)", re.I)  # noqa: RUF001 - uv prints a multiplication sign


def uv_binary() -> str:
    """The uv that ships with the kit (the `uv` package), else one on PATH."""
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found is None:
            raise InstallError("python", "uv is not installed (pip install uv)") from None
        return found


@functools.cache
def interpreter_version(python: str) -> str:
    """`3.11.2` for the interpreter that candidate environments are made from."""
    if not os.access(python, os.X_OK):
        raise InstallError("python", f"{python} is missing: install python3 (or set GRADELIB_PYTHON)")
    done = subprocess.run(
        [python, "-I", "-c", "import sys; print('.'.join(map(str, sys.version_info[:3])))"],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    if done.returncode != 0:
        raise InstallError("python", f"{python} does not run: {done.stderr.strip()[:200]}")
    return done.stdout.strip()


def key_parts(declaration: PythonDeclaration, settings: InstallSettings) -> dict[str, object]:
    """What makes two Python environments the same (builds from source only when opted in)."""
    parts: dict[str, object] = {
        "requirements": sorted(r.spec for r in declaration.requirements),
        "pins": list(declaration.pins),
        "python": interpreter_version(settings.python),
        "index": settings.index_url or "default",
    }
    if settings.build_source:  # absent otherwise: the keys of wheels-only environments stay as they were
        parts["build_source"] = True
    return parts


def uv_environment() -> dict[str, str]:
    """The environment the kit runs uv in: the reviewer's, minus what would weaken the kit's choices."""
    env = dict(os.environ)
    # The kit's own choices win over the reviewer's environment where they matter for safety.
    for name in ("UV_NO_BUILD", "UV_NO_BINARY", "UV_FIND_LINKS", "UV_PYTHON", "VIRTUAL_ENV", "UV_PROJECT"):
        env.pop(name, None)
    env["UV_NO_PROGRESS"] = "1"
    return env


def build(folder: Path, declaration: PythonDeclaration, settings: InstallSettings, key: str) -> Manifest:
    """Make `folder/python`, a virtualenv with the declared packages (wheels only); raise InstallError."""
    work = folder / ".build"
    work.mkdir()
    (work / REQUIREMENTS).write_text("".join(f"{r.spec}\n" for r in declaration.requirements))
    (work / CONSTRAINTS).write_text("".join(f"{pin}\n" for pin in declaration.pins))
    uv, venv = uv_binary(), folder / VENV
    env = uv_environment()
    made = run_capped(
        # --seed: pip is there, so a run.sh that starts with `pip install -r requirements.txt` finds
        # everything satisfied (the sandbox sets PIP_NO_INDEX: pip never reaches for the network).
        [uv, "venv", "--quiet", "--seed", "--python", settings.python, "--no-python-downloads", str(venv)],
        cwd=work,
        env=env,
        watch=folder,
        max_seconds=60,
        max_bytes=settings.max_bytes,
    )
    raise_for(made, settings, f"could not make a virtualenv from {settings.python}")
    seeded = set(installed(venv))
    argv = [
        uv, "pip", "install", "--python", str(venv / "bin" / "python"),
        "-r", REQUIREMENTS, "-c", CONSTRAINTS,
        # not --compile-bytecode: uv would start the environment's python on this host, and that
        # runs every .pth file the installed wheels brought (code of the submission's choosing)
        "--no-build", "--link-mode", "copy", "--no-python-downloads",
        *index_options(settings),
    ]  # fmt: skip
    done = run_capped(argv, cwd=work, env=env, watch=folder, max_seconds=settings.max_seconds,
                      max_bytes=settings.max_bytes)  # fmt: skip
    built: list[SourceBuild] = []
    if settings.build_source:
        done, built = _with_source_builds(done, argv, work, folder, declaration, settings)
    shutil.rmtree(work, ignore_errors=True)
    raise_for(done, settings)
    compiled = compile_bytecode(venv, folder, settings)
    declared = {r.name.lower().replace("_", "-") for r in declaration.requirements}
    packages = tuple(p for p in installed(venv) if p not in seeded or p[0] in declared)
    seconds = done.seconds + made.seconds + compiled.seconds + sum(b.seconds for b in built)
    return Manifest(key, "python", packages, round(seconds, 2), tuple(b.to_dict() for b in built))


def compile_bytecode(venv: Path, folder: Path, settings: InstallSettings) -> Capped:
    """Byte-compile the installed packages once, so runs on the read-only mount need not.

    By the interpreter the environment was made from, with `-S`: no `site`, so no `.pth` file of
    an installed package runs here; compiling reads source and writes bytecode, it runs none of it.
    A file that does not compile (Python 2 leftovers) is skipped, as uv would.
    """
    targets = [str(path) for path in sorted(venv.glob("lib/python*/site-packages"))]
    if not targets:
        return Capped(0, "", 0.0, over_time=False, over_size=False)
    done = run_capped(
        [settings.python, "-I", "-S", "-m", "compileall", "-q", "-j", "0", *targets],
        cwd=folder,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
        watch=folder,
        max_seconds=settings.max_seconds,
        max_bytes=settings.max_bytes,
    )
    if done.over_time or done.over_size:
        raise_for(done, settings, "byte-compiling the installed packages")
    return done


def index_options(settings: InstallSettings) -> list[str]:
    """uv's `--index-url` / `--offline` for these settings."""
    options = ["--index-url", settings.index_url] if settings.index_url else []
    return [*options, "--offline"] if settings.offline else options


def _with_source_builds(
    done: Capped, argv: list[str], work: Path, folder: Path, declaration: PythonDeclaration, settings: InstallSettings
) -> tuple[Capped, list[SourceBuild]]:
    """While uv names packages with no usable wheel, build them in the sandbox and install again (bounded)."""
    from gradelib.environment import sourcebuild  # it uses this module's uv helpers

    built: list[SourceBuild] = []
    wheelhouse = folder / sourcebuild.WHEELHOUSE
    while done.code not in (0, None):
        wanted = sourcebuild.needs_build(done.output)
        if not wanted:
            break
        again = [name for name in wanted if name in {b.name for b in built}]
        if again:
            raise InstallError(
                "python", f"{again[0]} was built from source, but uv still cannot use it: {_reason(done.output)}"
            )
        if len(built) + len(wanted) > sourcebuild.MAX_BUILDS:
            raise InstallError("python", f"more than {sourcebuild.MAX_BUILDS} packages need a build from source")
        exact = sourcebuild.pinned_versions(done.output)
        for name in wanted:
            specifiers = _specifiers(declaration, name) + ([f"=={exact[name]}"] if name in exact else [])
            built.append(sourcebuild.build(name, specifiers, folder, settings, interpreter_version(settings.python)))
        done = run_capped([*argv, "--find-links", str(wheelhouse)], cwd=work, env=uv_environment(), watch=folder,
                          max_seconds=settings.max_seconds, max_bytes=settings.max_bytes)  # fmt: skip
    return done, built


def _specifiers(declaration: PythonDeclaration, name: str) -> list[str]:
    """The version specifiers the declaration and its pins give `name` (markers ignored)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    found = []
    for text in [*(r.spec for r in declaration.requirements), *declaration.pins]:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == name and str(requirement.specifier):
            found.append(str(requirement.specifier))
    return found


def raise_for(done: Capped, settings: InstallSettings, what: str = "") -> None:
    """InstallError for an installer run that went over a cap or failed."""
    prefix = f"{what}: " if what else ""
    if done.over_time:
        raise InstallError("python", f"{prefix}install took longer than {settings.max_seconds:.0f} s: stopped")
    if done.over_size:
        raise InstallError("python", f"{prefix}the environment grew past {size_text(settings.max_bytes)}: stopped")
    if done.code != 0:
        reason = _reason(done.output, offline=settings.offline, build=settings.build_source)
        raise InstallError("python", prefix + reason)


def _reason(output: str, *, offline: bool = False, build: bool = False) -> str:
    """uv's own explanation, in a few lines (it names the package it could not install)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    wanted = [line for line in lines if ERROR_LINE.match(line)] or lines[-3:]
    text = " ".join(wanted)[:600] or "the installer failed without saying why"
    if ("no usable wheels" in output or "--no-build" in output) and not build:
        text += f" (the kit installs wheels only: a package that must be built from source is refused; {OPT_IN})"
    if re.search(r"(dns|connect|network|timed out|failed to fetch)", output, re.I) and not offline:
        text += " (registry unreachable?)"
    return text


def installed(venv: Path) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, False) for every distribution in the virtualenv."""
    found = []
    for info in sorted(venv.glob("lib/python*/site-packages/*.dist-info")):
        name, _, version = info.name[: -len(".dist-info")].rpartition("-")
        if name:
            found.append((name.replace("_", "-").lower(), version, False))
    return tuple(found)
