"""Python environments: a virtualenv from the system interpreter, filled by uv from the package index.

A project that must itself be installed (`project.py`) is built by its own backend in the sandbox
first (`projectbuild.py`), and its wheel installed with the declared packages.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from gradelib.environment import projectbuild, sourcebuild
from gradelib.environment.cache import Manifest
from gradelib.environment.capped import Capped, run_capped
from gradelib.environment.declaration import PythonDeclaration
from gradelib.environment.settings import InstallSettings
from gradelib.environment.sourcebuild import SourceBuild
from gradelib.environment.uvtool import index_options, interpreter_version, raise_for, reason, uv_binary, uv_environment
from gradelib.errors import InstallError

VENV = "python"
REQUIREMENTS = "requirements.in"
CONSTRAINTS = "constraints.txt"


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
    if declaration.project is not None:  # the project's own code is in it: one environment per digest
        project = declaration.project
        parts["project"] = {"digest": project.digest, "editable": project.editable, "required": project.required}
    return parts


def build(
    folder: Path, declaration: PythonDeclaration, settings: InstallSettings, key: str, source: Path | None = None
) -> Manifest:
    """Make `folder/python`, a virtualenv with the declared packages (wheels only); raise InstallError.

    `source` is the submission, whose project is built first when it must be installed.
    """
    wheel, project = _project(folder, declaration, settings, source)
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
        "-r", REQUIREMENTS, "-c", CONSTRAINTS, *([str(wheel)] if wheel else []),
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
    seconds += float((project or {}).get("build_seconds") or 0)
    return Manifest(key, "python", packages, round(seconds, 2), tuple(b.to_dict() for b in built), project)


def _project(
    folder: Path, declaration: PythonDeclaration, settings: InstallSettings, source: Path | None
) -> tuple[Path | None, dict[str, Any] | None]:
    """The project's wheel and its evidence; a failed build of a project that runs uninstalled is only noted."""
    project = declaration.project
    if project is None or source is None:
        return None, None
    try:
        built = projectbuild.build(project, source, folder, settings)
    except InstallError as exc:
        if project.required:
            raise
        failed = f"{exc.reason}: its dependencies are installed, and it runs from its own folder"
        return None, project.to_dict() | {"wheel": None, "build_error": failed}
    return built.path, built.record


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


def _with_source_builds(
    done: Capped, argv: list[str], work: Path, folder: Path, declaration: PythonDeclaration, settings: InstallSettings
) -> tuple[Capped, list[SourceBuild]]:
    """While uv names packages with no usable wheel, build them in the sandbox and install again (bounded)."""
    built: list[SourceBuild] = []
    wheelhouse = folder / sourcebuild.WHEELHOUSE
    while done.code not in (0, None):
        wanted = sourcebuild.needs_build(done.output)
        if not wanted:
            break
        again = [name for name in wanted if name in {b.name for b in built}]
        if again:
            raise InstallError(
                "python", f"{again[0]} was built from source, but uv still cannot use it: {reason(done.output)}"
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


def installed(venv: Path) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, False) for every distribution in the virtualenv."""
    found = []
    for info in sorted(venv.glob("lib/python*/site-packages/*.dist-info")):
        name, _, version = info.name[: -len(".dist-info")].rpartition("-")
        if name:
            found.append((name.replace("_", "-").lower(), version, False))
    return tuple(found)
