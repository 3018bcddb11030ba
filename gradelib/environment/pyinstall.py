"""Python environments from requirements files and `[project]`: the kit's pinned uv, in the sandbox.

A careful reviewer makes a virtualenv and runs `pip install -r requirements.txt` (and `pip install
.` when the project must be installed). The kit runs the same with uv, in the sandbox whose only
network is the registry proxy: `uv venv`, then `uv pip install` of the declared packages (wheels
only, unless the reviewer opted into builds from source: uv then builds them there), then the
project itself, built by its own backend, when it must be installed (`project.py`). The virtualenv
is made at its final path in the cache, which every run mounts read-only at the same path, so the
submission's copy may be anywhere. Nothing of it runs on the grading machine: the kit only reads
the installed packages' metadata.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from gradelib.environment import buildsystem, tools, toolsetup
from gradelib.environment.cache import Manifest, adopt
from gradelib.environment.declaration import PythonDeclaration
from gradelib.environment.declarationrecords import normal_name, some_of
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.projectfiles import editable_roots, project_files, project_requires
from gradelib.environment.pysetup import installed
from gradelib.environment.toolsetup import Step
from gradelib.environment.uvtool import index_options, interpreter_version, wheels_only
from gradelib.errors import InstallError

VENV = "python"
INPUTS = ".inputs"  # the kit's requirements and constraints files, read-only in the setup
REQUIREMENTS = "requirements.in"
CONSTRAINTS = "constraints.txt"
UV_CACHE = ".kit-uv-cache"  # uv's download cache, inside the setup's copy (dropped with it)
# what `uv venv --seed` puts in (wheel needs packaging): listed only when declared
SEED = frozenset({"pip", "setuptools", "wheel", "packaging"})


def key_parts(declaration: PythonDeclaration, settings: InstallSettings) -> dict[str, object]:
    """What makes two Python environments the same (builds from source only when opted in)."""
    parts: dict[str, object] = {
        "requirements": sorted(r.spec for r in declaration.requirements),
        "pins": list(declaration.pins),
        "python": interpreter_version(settings.python),
        "index": settings.index_url or "default",
        "installer": ["uv", tools.TOOLS["uv"].version, "sandbox"],
    }
    if settings.build_source:  # absent otherwise: the keys of wheels-only environments stay as they were
        parts["build_source"] = True
    if hashed(declaration):  # so are the keys of environments without hashes
        parts["hashes"] = sorted(h for r in declaration.requirements for h in r.hashes)
    if declaration.project is not None:  # the project's own code is in it: one environment per digest
        project = declaration.project
        parts["project"] = {"digest": project.digest, "editable": project.editable, "required": project.required}
    return parts


def commands(declaration: PythonDeclaration, settings: InstallSettings, venv: Path, inputs: Path) -> list[Step]:
    """`uv venv`, `uv pip install` of the declared packages, then of the project (built by its own backend,
    without dependencies), then of the project's dependencies as its metadata names them (wheels only,
    unless builds from source were allowed: the project itself is the one thing built)."""
    python = str(venv / "bin" / "python")
    # --seed: pip is there, so a run.sh that starts with `pip install -r requirements.txt` finds
    # everything satisfied (the runs set PIP_NO_INDEX: pip never reaches for the network).
    found: list[Step] = [[
        "uv", "venv", "--quiet", "--seed", "--allow-existing", "--python", settings.python, *index_options(settings),
        str(venv),
    ]]  # fmt: skip
    common = ["--python", python, "--link-mode", "copy", "--compile-bytecode", *index_options(settings)]
    if declaration.requirements:
        found.append([
            "uv", "pip", "install", "-r", str(inputs / REQUIREMENTS), "-c", str(inputs / CONSTRAINTS), *common,
            *([] if settings.build_source else ["--no-build"]), *(["--require-hashes"] if hashed(declaration) else []),
        ])  # fmt: skip
    if declaration.project is not None:  # an editable one runs from each run's copy (`projectfiles.py`)
        found.append(["uv", "pip", "install", "--no-deps", *common, "."])
        found.append(_dependencies_step(declaration, settings, venv, inputs, common))
    return found


def _dependencies_step(
    declaration: PythonDeclaration, settings: InstallSettings, venv: Path, inputs: Path, common: list[str]
) -> Step:
    """The project's own dependencies (setup.py's `install_requires` too), named by installing the project
    by its name once it is there: uv reads them from the metadata its backend built. Nothing when the project
    could not be built."""

    def step(_copy: Path, out: Path | None) -> list[str] | None:
        dist, _scripts, _top = (
            project_files(out, declaration.project.name) if out and declaration.project else (None, [], [])
        )
        if dist is None:
            return None
        name = dist.split(" ", 1)[0]
        extras = (
            f"[{','.join(declaration.project.extras)}]" if declaration.project and declaration.project.extras else ""
        )
        build = [] if settings.build_source else ["--no-build"]
        return ["uv", "pip", "install", *common, "-c", str(inputs / CONSTRAINTS), *build, f"{name}{extras}"]

    return step


def build(
    folder: Path, declaration: PythonDeclaration, settings: InstallSettings, key: str, source: Path | None = None
) -> Manifest:
    """Make `folder/python`, a virtualenv with the declared packages (and the project, when it must be
    installed), in the sandbox; raise InstallError with uv's own last lines. `source` is the submission."""
    if settings.offline:
        raise InstallError("python", "offline: the environment is made by uv, which needs the index")
    project = declaration.project
    if project is not None:
        buildsystem.check(project.system, "the project's [build-system]")
    uv = tools.provision("uv", settings)
    inputs = write_inputs(folder, declaration)
    venv = folder / VENV

    def collect(_: Path, out: Path | None) -> None:
        if out is None or not (out / "bin" / "python").exists():
            raise InstallError("python", f"uv {uv.version} succeeded but made no virtualenv")
        adopt(out, venv)

    env = {"UV_CACHE_DIR": UV_CACHE, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
    argv = commands(declaration, settings, venv, inputs)
    try:
        done = toolsetup.run(
            uv, source or inputs, argv, env, settings, "", collect, ecosystem="python", env_at=str(venv),
            inputs=inputs, may_fail={len(argv) - 2} if project is not None else set(),
            doing=" (uv venv, uv pip install)", checks=[["uv", "pip", "check", "--python", str(venv / "bin/python")]],
        )  # fmt: skip
    except InstallError as exc:
        raise InstallError("python", _hint(exc.reason, declaration, settings)) from exc
    finally:
        shutil.rmtree(inputs, ignore_errors=True)
    if project is not None and project.required and done.get("failed"):
        label = f"the project {project.name}" if project.name else "the project"
        said = done["failed"][-1]["tail"]
        why = f"building {label} with its build backend {project.system.backend} failed: {said}"
        raise InstallError("python", why, subject="")
    declared = {normal_name(r.name) for r in declaration.requirements}
    packages = tuple(p for p in installed(venv) if normal_name(p[0]) not in SEED or normal_name(p[0]) in declared)
    record = _project_record(declaration, venv, Path(source) if source else None, done)
    setup = {
        "tool": "uv", "version": uv.version, "version_from": "the kit", "why": _why(declaration),
        "command": " && ".join(_shown(a, folder) for a in argv if not callable(a)),
        "build_source": settings.build_source,
    } | {k: v for k, v in done.items() if k != "failed"}  # fmt: skip
    return Manifest(key, "python", packages, float(done["seconds"]), record, setup)


def hashed(declaration: PythonDeclaration) -> bool:
    """Every requirement pinned with its hashes (`pip-compile --generate-hashes`): installed with them checked.
    pip's and uv's hash mode takes nothing unhashed in the same install, so a mix installs without it."""
    return bool(declaration.requirements) and all(r.hashes for r in declaration.requirements) and not declaration.pins


def _why(declaration: PythonDeclaration) -> str:
    files = sorted({r.file for r in declaration.requirements if r.file})
    declared = f"{', '.join(files)} declare{'s' if len(files) == 1 else ''} its packages" if files else ""
    declared += ", pinned with their hashes (checked)" if hashed(declaration) else ""
    project = "the project must be installed" if declaration.project is not None else ""
    return "; ".join(part for part in (declared, project) if part) or "nothing declared"


def _shown(argv: list[str], folder: Path) -> str:
    """A command as the report shows it: the cache's paths as placeholders (the same on every machine)."""
    return " ".join(argv).replace(str(folder / INPUTS), "<inputs>").replace(str(folder), "<python-env>")


def _hint(reason: str, declaration: PythonDeclaration, settings: InstallSettings) -> str:
    """uv's words, what it was installing when it was stopped, and what the reviewer can do when a
    package has no wheel."""
    if "took longer than" in reason and declaration.requirements:
        return f"{reason} (installing {some_of([r.spec for r in declaration.requirements])})"
    return reason + wheels_only(reason, build=settings.build_source)


def write_inputs(folder: Path, declaration: PythonDeclaration) -> Path:
    """The requirements and constraints files (`folder/.inputs`), where the setup reads them (read-only)."""
    inputs = folder / INPUTS
    inputs.mkdir(mode=0o755)
    pinned = hashed(declaration)
    lines = [
        f"{r.spec}{''.join(f' --hash={h}' for h in r.hashes) if pinned else ''}\n" for r in declaration.requirements
    ]
    (inputs / REQUIREMENTS).write_text("".join(lines))
    (inputs / CONSTRAINTS).write_text("".join(f"{pin}\n" for pin in declaration.pins))
    for name in (REQUIREMENTS, CONSTRAINTS):
        os.chmod(inputs / name, 0o644)
    return inputs


def _project_record(
    declaration: PythonDeclaration, venv: Path, source: Path | None, done: dict[str, Any]
) -> dict[str, Any] | None:
    """What the report says of the project: why it was installed, how, its console scripts, or why not."""
    project = declaration.project
    if project is None:
        return None
    record = project.to_dict()
    failed = done.get("failed") or []
    if failed:
        why = f"uv could not install it: {failed[-1]['tail']}"
        why += ": its dependencies are installed, and it runs from its own folder"
        return record | {"installed": None, "build_error": why}
    dist, scripts, top_level = project_files(venv, project.name)
    roots = editable_roots(source, top_level) if source is not None and project.editable else []
    command = "uv pip install --no-deps . (then its dependencies, as its metadata names them)"
    requires = project_requires(venv, dist.split(" ", 1)[0], project.extras) if dist else None
    if dist:  # what only its build knew (setup.py's name and version)
        record |= {"name": record["name"] or dist.split(" ", 1)[0], "version": record["version"] or dist.split(" ")[-1]}
    return record | {
        "installed": dist, "command": command, "entry_points": scripts, "editable_roots": roots,
        "requires": requires, "declared_in": project.declared_in,
    }  # fmt: skip
