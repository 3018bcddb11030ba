"""Whether a Python submission is a project that must itself be installed to run, read as data.

A careful reviewer installs the project when its own files say so: `run.sh` calls one of its
console scripts (`[project.scripts]`, `[tool.poetry.scripts]`, setup.cfg `console_scripts`),
its code is under `src/`, its README says `pip install .` / `-e .` (or `uv sync`, `poetry
install`), or `run.sh` starts it through `uv run` / `poetry run`, which install the project
first. Such a project is installed by uv, built by its own build backend, in the sandbox (`pyinstall.py`).
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import shlex
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import buildsystem
from gradelib.environment.buildsystem import BuildSystem
from gradelib.environment.declarationrecords import Reader
from gradelib.environment.pipenv import names_the_project

PYPROJECT = "pyproject.toml"
SETUP_PY = "setup.py"
SETUP_CFG = "setup.cfg"
RUN_SH = "run.sh"
READMES = ("README.md", "README.rst", "README.txt", "README", "INSTALL.md", "SETUP.md")
POETRY_REQUIRES = ("poetry-core>=1.0.0",)
POETRY_BACKEND = "poetry.core.masonry.api"
# Folders never part of the project's source (the digest, the layout checks).
NOT_SOURCE = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache",
                        ".pytest_cache", ".ruff_cache", "build", "dist"})  # fmt: skip
MAX_DIGEST_FILES = 20_000
# `pip install .`, `pip install -e .`, `python -m pip install --editable ".[dev]"`, `uv pip install -e .`
PIP_INSTALL_HERE = re.compile(
    r"\b(?:pip3?|uv\s+pip|pipx)\s+install\s+(?:-[\w-]+\s+)*?(?P<editable>-e\s+|--editable[=\s]+)?[\"']?\.(?:\[(?P<extras>[^\]]*)\])?[\"']?(?=\s|$|`)",
    re.M,
)
# Dependencies only the project's build can name: setup.py's arguments, or `dynamic` in [project].
BUILD_NAMES_DEPENDENCIES = re.compile(r"\b(install_requires|extras_require)\b")
INSTALLS_PROJECT = re.compile(r"\b(?P<tool>uv\s+sync|poetry\s+install|pipenv\s+install\s+(?:-e|--editable))\b")
RUNS_THROUGH = re.compile(r"\b(uv\s+run|poetry\s+run)\b")
SEPARATORS = re.compile(r"&&|\|\||[;|&`]|\$\(")
CASE_BRANCH = re.compile(r"^\s*[\w|*\"'.-]+\)\s*")
SKIPPED_WORDS = frozenset({"exec", "time", "env", "command", "nohup", "then", "do", "else", "if", "while", "!", "{"})
WRAPPER_PREFIXES = (("uv", "run"), ("poetry", "run"), ("pipenv", "run"))
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class Project:
    """A project the kit builds and installs: why, with which backend, and what it declares."""

    reasons: tuple[str, ...]  # `run.sh calls its console script triage-svc`
    system: BuildSystem
    digest: str  # of its source files: the environment is cached by it
    name: str | None = None  # from [project] or [tool.poetry] (None: only the build knows)
    version: str | None = None
    scripts: tuple[str, ...] = ()  # the console scripts it declares
    editable: bool = False  # the README or the tool installs it editable: the copy's code is what runs
    required: bool = True  # False: only a tool's habit says so (uv sync, poetry install); it runs uninstalled too
    extras: tuple[str, ...] = ()  # the extras the README installs it with (`pip install -e ".[dev]"`)
    declared_in: str = ""  # where its dependencies are declared (`setup.py (install_requires)`)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (no paths)."""
        return {
            "name": self.name, "version": self.version, "backend": self.system.backend,
            "build_requires": list(self.system.requires), "why": list(self.reasons), "editable": self.editable,
            "required": self.required,
        }  # fmt: skip


def detect(reader: Reader, doc: Mapping[str, Any] | None) -> Project | None:
    """The project to build, or None when the submission is not one or need not be installed."""
    system = _build_system(reader, doc)
    if system is None:
        return None
    name, version, scripts = _metadata(reader, doc)
    reasons, editable, required, extras = _reasons(reader, scripts, doc)
    if not reasons:
        return None
    return Project(
        tuple(reasons), system, digest(reader.root), name, version, tuple(scripts), editable, required, extras,
        _declared_in(reader, doc),
    )  # fmt: skip


def _declared_in(reader: Reader, doc: Mapping[str, Any] | None) -> str:
    """Where the project's dependencies are declared, for a reader: setup.py's, setup.cfg's or pyproject's."""
    project = doc.get("project") if doc else None
    if isinstance(project, dict) and "dependencies" in project:
        return PYPROJECT
    if (reader.text(SETUP_CFG) or "").find("install_requires") >= 0:
        return SETUP_CFG
    if BUILD_NAMES_DEPENDENCIES.search(reader.text(SETUP_PY) or ""):
        return f"{SETUP_PY} (install_requires)"
    return "the project's metadata"


def _build_system(reader: Reader, doc: Mapping[str, Any] | None) -> BuildSystem | None:
    """The declared `[build-system]`; setuptools' legacy default for setup.py; poetry-core for classic Poetry."""
    table = doc.get("build-system") if doc else None
    if isinstance(table, dict):
        return buildsystem.from_table(table)  # checked before the build (pyinstall.py)
    tool = doc.get("tool") if doc else None
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if isinstance(poetry, dict) and poetry.get("package-mode", True) is not False and poetry.get("name"):
        return BuildSystem(POETRY_REQUIRES, POETRY_BACKEND)
    if reader.exists(SETUP_PY) or reader.exists(SETUP_CFG):
        return buildsystem.from_table(None)
    return None


def _metadata(reader: Reader, doc: Mapping[str, Any] | None) -> tuple[str | None, str | None, list[str]]:
    """(name, version, console scripts) as the project's files declare them statically."""
    project = doc.get("project") if doc else None
    tool = doc.get("tool") if doc else None
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    scripts: list[str] = []
    name = version = None
    if isinstance(project, dict):
        name, version = _text(project.get("name")), _text(project.get("version"))
        if isinstance(project.get("scripts"), dict):
            scripts += [str(key) for key in project["scripts"]]
    if isinstance(poetry, dict):
        name, version = name or _text(poetry.get("name")), version or _text(poetry.get("version"))
        if isinstance(poetry.get("scripts"), dict):
            scripts += [str(key) for key, value in poetry["scripts"].items() if _console(value)]
    cfg_name, cfg_version, cfg_scripts = _setup_cfg(reader)
    name, version = name or cfg_name, version or cfg_version
    scripts += cfg_scripts + _setup_py_scripts(reader)
    return name, version, list(dict.fromkeys(scripts))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _console(value: object) -> bool:
    """A `[tool.poetry.scripts]` entry that is a console script (not a `file` script)."""
    return isinstance(value, str) or (isinstance(value, dict) and value.get("type", "console") == "console")


def _setup_cfg(reader: Reader) -> tuple[str | None, str | None, list[str]]:
    """(name, version, console scripts) of setup.cfg; a computed version (`attr:`, `file:`) is left to the build."""
    text = reader.text(SETUP_CFG)
    if text is None:
        return None, None, []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None, None, []
    name = parser.get("metadata", "name", fallback=None)
    version = parser.get("metadata", "version", fallback=None)
    literal = version if version and ":" not in version else None
    entries = parser.get("options.entry_points", "console_scripts", fallback="")
    return name, literal, [line.split("=", 1)[0].strip() for line in entries.splitlines() if "=" in line]


def _setup_py_scripts(reader: Reader) -> list[str]:
    """Console scripts named in setup.py's `entry_points` (`"name = module:func"` strings), read as text."""
    text = reader.text(SETUP_PY)
    if text is None or "console_scripts" not in text:
        return []
    return re.findall(r"[\"']\s*([A-Za-z0-9][\w.-]*)\s*=\s*[\w.]+:[\w.]+\s*[\"']", text)


def _reasons(
    reader: Reader, scripts: list[str], doc: Mapping[str, Any] | None
) -> tuple[list[str], bool, bool, tuple[str, ...]]:
    """Why the project is installed (empty: it need not be), whether editable, whether it cannot run
    without, and the extras its README installs.

    A console script that run.sh calls, a src/ layout or a README's `pip install .` mean the code
    does not run uninstalled; `uv run`, `uv sync`, `poetry install` and the like install the
    project out of habit, and its code may well run from its folder without that. Dependencies only
    its build can name (setup.py's `install_requires`, `dynamic` dependencies) are had by installing it.
    """
    required: list[str] = []
    habit: list[str] = []
    editable = False
    extras: tuple[str, ...] = ()
    run_sh = reader.text(RUN_SH) or ""
    called = sorted(set(scripts) & set(commands(run_sh)))
    if called:
        required.append(f"{RUN_SH} calls its console script {', '.join(called)}")
    if wrapper := RUNS_THROUGH.search(_code(run_sh)):
        habit.append(f"{RUN_SH} runs it through `{' '.join(wrapper.group(1).split())}`, which installs the project")
        editable = True
    if layout := _src_layout(reader.root):
        required.append(f"its code is under src/ ({layout})")
    for readme in READMES:
        text = reader.text(readme)
        if text is None:
            continue
        if found := PIP_INSTALL_HERE.search(text):
            required.append(f"{readme} says `{' '.join(found.group(0).split())}`")
            editable = editable or bool(found.group("editable"))
            extras = tuple(e.strip() for e in (found.group("extras") or "").split(",") if e.strip().isidentifier())
        if found := INSTALLS_PROJECT.search(text):
            habit.append(f"{readme} says `{' '.join(found.group(0).split())}`")
            editable = True
        break
    if names_the_project(reader):
        habit.append('the Pipfile installs the project itself (path = ".")')
        editable = True
    if not required and not habit and (why := _dependencies_by_build(reader, doc)):
        habit.append(why)
        editable = True
    return required + habit, editable, bool(required), extras


def _dependencies_by_build(reader: Reader, doc: Mapping[str, Any] | None) -> str | None:
    """Why only the project's build can name its dependencies, when so: the project is then installed (from
    its own folder, editable) so that they are."""
    project = doc.get("project") if doc else None
    if isinstance(project, dict) and "dependencies" in (project.get("dynamic") or []):
        return "its [project] dependencies are dynamic: only its build names them"
    if BUILD_NAMES_DEPENDENCIES.search(reader.text(SETUP_PY) or ""):
        return f"its dependencies are declared in {SETUP_PY}, which only its build reads"
    return None


def _code(script: str) -> str:
    """A shell script without its comments (a `#` at a word start)."""
    return "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in script.splitlines())


def commands(script: str) -> Iterator[str]:
    """The command names a shell script runs (best effort, read as text): `exec triage "$@"` gives `triage`."""
    for line in _code(script).splitlines():
        for segment in SEPARATORS.split(CASE_BRANCH.sub("", line)):
            try:
                words = shlex.split(segment)
            except ValueError:
                words = segment.split()
            words = _strip_prefix(words)
            if words:
                yield os.path.basename(words[0])


def _strip_prefix(words: list[str]) -> list[str]:
    """The words from the command on: without `exec`, `env A=b`, assignments, and `uv run [opts]` wrappers."""
    while words:
        if words[0] in SKIPPED_WORDS or ASSIGNMENT.match(words[0]):
            words = words[1:]
        elif tuple(words[:2]) in WRAPPER_PREFIXES:
            words = words[2:]
            while words and words[0].startswith("-"):
                words = words[1:]
        else:
            break
    return words


def _src_layout(root: Path) -> str | None:
    """`src/triage` when the code lives in a package under src/ (it only imports once installed)."""
    src = root / "src"
    if src.is_symlink() or not src.is_dir():
        return None
    with os.scandir(src) as found:
        entries = sorted(found, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False) and entry.name not in NOT_SOURCE and "." not in entry.name:
            init = Path(entry.path) / "__init__.py"
            if init.is_file() and not init.is_symlink():
                return f"src/{entry.name}"
    return None


def digest(root: Path) -> str:
    """A digest of the project's source files (paths, modes, bytes), the same from any folder."""
    sha = hashlib.sha256()
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in NOT_SOURCE and not os.path.islink(f"{dirpath}/{d}"))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            count += 1
            if count > MAX_DIGEST_FILES:
                return "too-many-files-" + sha.hexdigest()
            sha.update(os.path.relpath(full, root).encode("utf-8", "surrogateescape") + b"\0")
            if stat.S_ISLNK(info.st_mode):
                sha.update(b"L" + os.readlink(full).encode("utf-8", "surrogateescape"))
            elif stat.S_ISREG(info.st_mode):
                sha.update(b"x" if info.st_mode & 0o111 else b"-")
                with open(full, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        sha.update(block)
            sha.update(b"\0")
    return sha.hexdigest()
