"""What a submission declares it needs, read as data: requirements, pyproject, Poetry, Pipenv, package.json, locks.

Nothing here runs or installs anything. Every line a submission declares is either
accepted as a plain registry requirement or refused with a reason naming the file and
line: installer options (`-i`, `--extra-index-url`, `-f`, `--trusted-host`, `-e`),
path, `file:`, `link:`, VCS and direct-URL requirements, lockfile URLs outside the
configured registry, package indexes a file names. Installer configuration a submission
ships (`pip.conf`, `uv.toml`, `[tool.uv]`, `.npmrc`) is noted as ignored. A Python project
that must itself be installed to run is described for `pyinstall.py` (`project.py`).
"""

from __future__ import annotations

import configparser
import dataclasses
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import evidence, ownsetup, pipenv, poetry, pysetup, tooltable
from gradelib.environment.declarationrecords import (
    MAX_LOCK_BYTES,
    Declared,
    LockUse,
    Reader,
    Refusal,
    line_of,
    pep508,
)
from gradelib.environment.inventory import node_members
from gradelib.environment.npm import DEFAULT_NPM_REGISTRY
from gradelib.environment.project import Project, detect

REQUIREMENTS_TXT = "requirements.txt"
PYPROJECT = "pyproject.toml"
PYTHON_LOCKS = ("uv.lock", "poetry.lock", "pdm.lock", "Pipfile.lock")  # read by the tool that wrote them
SETUP_CFG = "setup.cfg"
PACKAGE_JSON = "package.json"
NODE_LOCKS = ("npm-shrinkwrap.json", "package-lock.json")  # npm prefers the shrinkwrap
MAX_REQUIREMENTS = 500
# What the kit does not install, and where the same packages can be declared instead.
UNSUPPORTED = {
    "environment.yml": "conda environments are not supported: declare the packages in requirements.txt",
}
IGNORED_CONFIG = {
    "pip.conf": "the submission's pip.conf is ignored (the kit's installer uses the reviewer's configuration)",
    "uv.toml": "the submission's uv.toml is ignored (the kit's installer uses the reviewer's configuration)",
    ".npmrc": "the submission's .npmrc is ignored (the kit's installer uses the reviewer's configuration)",
    ".yarnrc": "the submission's .yarnrc is ignored",
    ".yarnrc.yml": "the submission's .yarnrc.yml is ignored",
}
# A requirements.txt option the kit accepts on a requirement line (a hash pins the file).
ALLOWED_OPTIONS = ("--hash",)
INCLUDE_OPTIONS = ("-r", "--requirement", "-c", "--constraint")
HARMLESS_OPTIONS = ("--require-hashes", "--prefer-binary", "--only-binary", "--pre")
MAX_INCLUDE_DEPTH = 3
# npm dependency specs that do not come from the registry by name and version.
NODE_NON_REGISTRY = re.compile(
    r"^(file:|link:|portal:|workspace:|git(\+[a-z]+)?:|github:|gitlab:|bitbucket:|gist:|https?:|\.{1,2}/|/|~/)"
)
NODE_SHORTHAND = re.compile(r"^[^@\s/][^\s/]*/[^\s/]+(#.*)?$")  # user/repo: a GitHub shorthand
NAME = re.compile(r"^(@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*$", re.I)
# A dependency on a folder: the submission's own code when the folder is inside it (a workspace member).
LOCAL_PROTOCOLS = ("file:", "link:", "portal:", "workspace:")


@dataclass(frozen=True)
class PythonDeclaration:
    """The Python packages to install, the lockfile pins that constrain them, and the project to build."""

    requirements: tuple[Declared, ...]
    pins: tuple[str, ...] = ()  # `name==version` from the requirements' own constraints files (`-c`)
    project: Project | None = None  # the submission itself, when it must be installed to run
    setup: pysetup.PythonSetup | None = None  # the tool its files name sets it up (Hatch), not the kit's uv


@dataclass(frozen=True)
class NodeDeclaration:
    """package.json's dependencies and devDependencies, and the lockfile to install them from."""

    package_json: bytes
    dependencies: tuple[Declared, ...]
    dev_dependencies: tuple[Declared, ...]
    lockfile: str | None = None  # file name of an npm lockfile
    lock_bytes: bytes | None = None
    setup_lockfile: str | None = None  # another tool's lockfile (yarn, pnpm, bun): that tool sets it up
    setup_lock: bytes | None = None
    setup_id: str = "npm"  # the table's row that sets it up (`tooltable.toml`)
    why: str = ""  # what in the files chose that row
    members: tuple[str, ...] = ()  # its own folders the install reads: workspace members, local path deps
    linker: str = ""  # yarn berry's nodeLinker, as .yarnrc.yml sets it (read as data)

    @property
    def runtime_names(self) -> list[str]:
        """Names of the runtime `dependencies`, sorted."""
        return sorted(d.name for d in self.dependencies)


@dataclass(frozen=True)
class Declaration:
    """Everything a submission declares, what was refused, and what was ignored."""

    python: PythonDeclaration | None = None
    node: NodeDeclaration | None = None
    refused: tuple[Refusal, ...] = ()
    notes: tuple[str, ...] = ()
    locks: tuple[LockUse, ...] = ()  # what was done with each lockfile

    @property
    def empty(self) -> bool:
        """Nothing to install."""
        return self.python is None and self.node is None

    def declared(self) -> list[Declared]:
        """Every accepted declaration, Python first."""
        found: list[Declared] = []
        if self.python:
            found += self.python.requirements
        if self.node:
            found += [*self.node.dependencies, *self.node.dev_dependencies]
        return found


def read_declaration(root: Path, *, registry: str = DEFAULT_NPM_REGISTRY) -> Declaration:
    """Read what the submission folder declares; refusals and notes say what is not acted on."""
    reader = Reader(Path(root))
    for name, why in UNSUPPORTED.items():
        if reader.exists(name):
            reader.notes.append(f"{name}: {why}")
    for name, why in IGNORED_CONFIG.items():
        if reader.exists(name):
            reader.notes.append(why)
    python = _python(reader)
    node = _node(reader, registry)
    return Declaration(python, node, tuple(reader.refused), tuple(reader.notes), tuple(reader.locks))


# -- Python ----------------------------------------------------------------------------------


def _python(reader: Reader) -> PythonDeclaration | None:
    found: list[Declared] = []
    constraints: list[str] = []
    text = reader.text(REQUIREMENTS_TXT)
    if text is not None:
        found += _requirements_txt(reader, REQUIREMENTS_TXT, text, constraints)
    for name, why in ownsetup.requirement_files(reader):  # `pip install -r requirements-dev.txt` in the README
        if name != REQUIREMENTS_TXT and name not in reader.included and (more := reader.text(name)) is not None:
            reader.included.add(name)
            reader.notes.append(f"{name} is installed: {why}")
            found += _requirements_txt(reader, name, more, constraints)
    data = reader.read(PYPROJECT)
    doc = _toml(reader, PYPROJECT, data) if data is not None else None
    if data is not None and doc is not None:
        project_deps = _pyproject(reader, data, doc)
        found += project_deps + poetry.dependencies(reader, doc, data, has_project=bool(project_deps))
    found += pipenv.dependencies(reader) + _setup_cfg(reader)
    project = detect(reader, doc)
    setup = pysetup.detect(reader, doc)
    if not found and project is None and setup is None:
        return None
    if len(found) > MAX_REQUIREMENTS:
        reader.refuse(REQUIREMENTS_TXT, None, f"{len(found)} requirements", f"more than {MAX_REQUIREMENTS}")
        return None
    _tool_locks(reader, setup)
    return PythonDeclaration(tuple(found), tuple(sorted(set(constraints))), project, setup)


def _tool_locks(reader: Reader, setup: pysetup.PythonSetup | None) -> None:
    """What happens to a Python tool's lockfile: the tool that set the project up reads it (the kit does not)."""
    for name in PYTHON_LOCKS:
        if not reader.exists(name):
            continue
        if setup is not None and name in setup.row.locks:
            reader.locks.append(LockUse(name, True, f"the project is set up by {setup.tool}, which reads it"))
        else:
            what = f"{setup.tool} sets the project up" if setup else "the project is set up without it"
            reader.locks.append(LockUse(name, False, f"{what}: not read"))


def _setup_cfg(reader: Reader) -> list[Declared]:
    """setup.cfg's `[options] install_requires` (read as data: setup.py is never run to find more)."""
    text = reader.text(SETUP_CFG)
    if text is None:
        return []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        reader.refuse(SETUP_CFG, None, SETUP_CFG, f"not a valid setup.cfg: {str(exc).splitlines()[0][:120]}")
        return []
    found = []
    for line in parser.get("options", "install_requires", fallback="").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            declared = pep508(reader, SETUP_CFG, line_of(text, requirement), requirement)
            found += [declared] if declared is not None else []
    return found


def _toml(reader: Reader, file: str, data: bytes) -> dict[str, Any] | None:
    try:
        return tomllib.loads(data.decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError as exc:
        reader.refuse(file, None, file, f"not valid TOML: {exc}")
        return None


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """requirements.txt lines with continuations joined and comments dropped: (first line number, text)."""
    lines: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        line = re.sub(r"(^|\s)#.*$", "", raw)
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if full:
            lines.append((start, full))
    if pending.strip():
        lines.append((start, pending.strip()))
    return lines


def _requirements_txt(reader: Reader, file: str, text: str, constraints: list[str], depth: int = 0) -> list[Declared]:
    """The requirements of one file; `-r` / `-c` files inside the submission are followed."""
    found: list[Declared] = []
    for number, line in _logical_lines(text):
        if line.startswith("-"):
            option, _, value = line.replace("=", " ", 1).partition(" ")
            if option in INCLUDE_OPTIONS:
                found += _included(reader, file, number, line, value.strip(), option, constraints, depth)
            elif option in HARMLESS_OPTIONS:
                reader.notes.append(f"{file}:{number}: {option} ignored (the kit installs wheels from the index)")
            else:
                reader.refuse(file, number, line, f"installer option {option} is not allowed")
            continue
        requirement_text, options = _split_options(line)
        bad = [o for o in options if not o.startswith(ALLOWED_OPTIONS)]
        if bad:
            reader.refuse(file, number, line, f"installer option {bad[0].split('=')[0]} is not allowed")
            continue
        declared = pep508(reader, file, number, requirement_text)
        if declared is not None:
            hashes = tuple(o.split("=", 1)[1].strip() for o in options if o.startswith("--hash=") and "=" in o)
            found.append(dataclasses.replace(declared, hashes=hashes) if hashes else declared)
    return found


def _included(
    reader: Reader, file: str, number: int, line: str, target: str, option: str, constraints: list[str], depth: int
) -> list[Declared]:
    """A `-r other.txt` / `-c constraints.txt` line: another file of the submission, read the same way."""
    rel = os.path.normpath(os.path.join(os.path.dirname(file), target)) if target else ""
    if not target or depth >= MAX_INCLUDE_DEPTH or rel.startswith("..") or os.path.isabs(target) or "://" in target:
        reader.refuse(
            file, number, line, f"{option} must name a file inside the submission (at most {MAX_INCLUDE_DEPTH} deep)"
        )
        return []
    if rel in reader.included or rel == REQUIREMENTS_TXT:
        reader.notes.append(f"{file}:{number}: {target} is already included (a cycle): not read twice")
        return []
    reader.included.add(rel)
    data = reader.read(rel)
    if data is None:
        if not any(r.file == rel for r in reader.refused):
            reader.refuse(file, number, line, f"{rel} does not exist")
        return []
    if option in ("-c", "--constraint"):
        pins = _requirements_txt(reader, rel, data.decode("utf-8", errors="replace"), constraints, depth + 1)
        constraints += [d.spec for d in pins]
        return []
    return _requirements_txt(reader, rel, data.decode("utf-8", errors="replace"), constraints, depth + 1)


def _split_options(line: str) -> tuple[str, list[str]]:
    """`pkg==1 --hash=sha256:x` -> ("pkg==1", ["--hash=sha256:x"])."""
    parts = re.split(r"\s+(?=--?[a-zA-Z])", line)
    return parts[0].strip(), [p.strip() for p in parts[1:]]


def _pyproject(reader: Reader, data: bytes, doc: dict[str, Any]) -> list[Declared]:
    tool = doc.get("tool") if isinstance(doc.get("tool"), dict) else {}
    if isinstance(tool, dict) and "uv" in tool:
        reader.notes.append("pyproject.toml [tool.uv] is ignored (the kit uses the reviewer's configuration)")
    project = doc.get("project")
    if not isinstance(project, dict):
        return []
    deps = project.get("dependencies", [])
    if not isinstance(deps, list):
        reader.refuse(PYPROJECT, None, "[project].dependencies", "must be a list of requirement strings")
        return []
    found = []
    for item in deps:
        if not isinstance(item, str):
            reader.refuse(PYPROJECT, None, repr(item)[:80], "not a requirement string")
            continue
        declared = pep508(reader, PYPROJECT, line_of(data, item), item)
        if declared is not None:
            found.append(declared)
    return found


# -- Node ------------------------------------------------------------------------------------


def _node(reader: Reader, registry: str) -> NodeDeclaration | None:
    data = reader.read(PACKAGE_JSON)
    if data is None:
        return None
    try:
        doc = json.loads(data)
    except ValueError as exc:
        reader.refuse(PACKAGE_JSON, None, PACKAGE_JSON, f"not valid JSON: {exc}")
        return None
    if not isinstance(doc, dict):
        reader.refuse(PACKAGE_JSON, None, PACKAGE_JSON, "not a JSON object")
        return None
    runtime = _node_section(reader, data, doc, "dependencies")
    dev = _node_section(reader, data, doc, "devDependencies")
    for section in ("optionalDependencies", "bundleDependencies", "bundledDependencies"):
        if doc.get(section):
            reader.refuse(PACKAGE_JSON, line_of(data, f'"{section}"'), section, "not installed by the kit")
    members = tuple(sorted({*node_members(reader).values(), *_local_folders(runtime, dev)}))
    if not runtime and not dev and not members:
        return None
    row, why = _node_row(reader)
    if row.tool == "npm":
        lockfile, lock = _node_lock(reader, registry)
        setup_lockfile, setup_lock = None, None
    else:
        lockfile, lock = None, None
        setup_lockfile, setup_lock = _tool_lock(reader, row)
    return NodeDeclaration(
        data, tuple(runtime), tuple(dev), lockfile, lock, setup_lockfile, setup_lock, row.id, why, members,
        _linker(reader) if row.linker else "",
    )  # fmt: skip


def _node_row(reader: Reader) -> tuple[tooltable.SetupRow, str]:
    """The first Node row of the table whose evidence the files hold: a lockfile names the tool that wrote
    it before anything else (packageManager, what runs the code) names one; npm when nothing does."""
    for locks_only in (True, False):
        for row in tooltable.rows("node"):
            if row.phase:
                continue  # it runs with the submission's own setup step (deno)
            words = evidence.found(row, reader, None, locks_only=locks_only)
            if words is not None:
                return row, row.why.replace("{found}", words)
    return tooltable.row("npm"), "npm is the kit's default"


def _tool_lock(reader: Reader, row: tooltable.SetupRow) -> tuple[str | None, bytes | None]:
    """The row's lockfile, for its own tool to set the project up from (the kit does not read it)."""
    for name in row.locks:
        data = reader.read(name, MAX_LOCK_BYTES)
        if data is None:
            continue
        reader.locks.append(LockUse(name, True, "the project is set up by the tool that wrote it, lockfile frozen"))
        return name, data
    return None, None


def _linker(reader: Reader) -> str:
    """yarn berry's `nodeLinker` from .yarnrc.yml (`pnp`, `node-modules`, `pnpm`), read as data; "" when unset."""
    text = reader.text(".yarnrc.yml") or ""
    match = re.search(r"(?m)^nodeLinker:\s*[\"']?(pnp|node-modules|pnpm)[\"']?\s*$", text)
    return match.group(1) if match else ""


def _local_folders(*sections: list[Declared]) -> list[str]:
    """The submission's own folders that path dependencies name (`file:libs/keys`), relative to it."""
    found = []
    for declared in (d for section in sections for d in section):
        spec = declared.spec.split(":", 1)[1] if declared.spec.startswith(LOCAL_PROTOCOLS) else ""
        if spec and not declared.spec.startswith("workspace:"):
            found.append(os.path.normpath(spec))
    return found


def _node_section(reader: Reader, data: bytes, doc: dict[str, Any], section: str) -> list[Declared]:
    entries = doc.get(section)
    if entries is None:
        return []
    if not isinstance(entries, dict):
        reader.refuse(PACKAGE_JSON, line_of(data, f'"{section}"'), section, "must be an object of name: version")
        return []
    found = []
    for name, spec in entries.items():
        line = line_of(data, f'"{name}"')
        text = f"{name}: {spec}"
        if not isinstance(spec, str) or not NAME.match(str(name)):
            reader.refuse(PACKAGE_JSON, line, text, "not a package name and version range")
        elif spec.startswith("npm:"):
            alias = spec[4:].rsplit("@", 1)[0] if "@" in spec[5:] else spec[4:]
            if NAME.match(alias):
                found.append(Declared("node", PACKAGE_JSON, line, name, spec))
            else:
                reader.refuse(PACKAGE_JSON, line, text, "an alias to something that is not a registry package")
        elif spec.startswith(LOCAL_PROTOCOLS) and _inside(reader, spec):
            found.append(Declared("node", PACKAGE_JSON, line, name, spec))  # the candidate's own code
        elif NODE_NON_REGISTRY.match(spec.strip()) or NODE_SHORTHAND.match(spec.strip()):
            why = "a path outside the submission" if spec.startswith(LOCAL_PROTOCOLS) else "a link, git or URL"
            reader.refuse(PACKAGE_JSON, line, text, f"{why} dependency: only registry packages and its own folders")
        else:
            found.append(Declared("node", PACKAGE_JSON, line, name, spec))
    return found


def _inside(reader: Reader, spec: str) -> bool:
    """Whether a path dependency names a folder inside the submission (`workspace:` always does)."""
    protocol, _, path = spec.partition(":")
    if protocol == "workspace":
        return True
    path = path.strip()
    if not path or os.path.isabs(path) or path.startswith("~"):
        return False
    rel = os.path.normpath(path)
    return not rel.startswith("..") and (reader.root / rel).is_dir() and not (reader.root / rel).is_symlink()


def _node_lock(reader: Reader, registry: str) -> tuple[str | None, bytes | None]:
    for name in NODE_LOCKS:
        data = reader.read(name, MAX_LOCK_BYTES)
        if data is None:
            continue
        try:
            doc = json.loads(data)
        except ValueError as exc:
            reader.refuse(name, None, name, f"not valid JSON: {exc}; installing without it")
            reader.locks.append(LockUse(name, False, "not valid JSON: resolved from package.json"))
            return None, None
        problems = list(_lock_problems(doc, registry))
        if problems:
            for where, text, why in problems[:20]:
                reader.refuse(name, line_of(data, f'"{where}"'), text, why)
            reader.notes.append(f"{name} was not used: it names sources outside the registry {registry}")
            reader.locks.append(LockUse(name, False, f"names sources outside the registry {registry}: resolved"))
            return None, None
        reader.locks.append(LockUse(name, True, "installed as locked (npm ci)"))
        return name, data
    return None, None


def _lock_problems(doc: Any, registry: str) -> list[tuple[str, str, str]]:
    """(entry, text, reason) for every lockfile entry that does not come from the registry."""
    if not isinstance(doc, dict):
        return [("", "lockfile", "not a JSON object")]
    found: list[tuple[str, str, str]] = []
    packages = doc.get("packages")
    entries: list[tuple[str, Any]] = list(packages.items()) if isinstance(packages, dict) else []
    stack = [("", doc.get("dependencies"))] if not entries else []
    while stack:  # lockfileVersion 1: nested "dependencies"
        prefix, deps = stack.pop()
        if isinstance(deps, dict):
            for dep, info in deps.items():
                entries.append((f"{prefix}{dep}", info))
                if isinstance(info, dict):
                    stack.append((f"{prefix}{dep}/", info.get("dependencies")))
    for where, info in entries:
        if where == "" or not isinstance(info, dict):
            continue
        if info.get("link"):
            target = os.path.normpath(str(info.get("resolved") or ""))
            if not target or target.startswith("..") or os.path.isabs(target):
                found.append((where, f"{where} -> {info.get('resolved')}", "a linked folder outside the submission"))
            continue  # a workspace member, or another folder of its own: the candidate's code
        resolved = info.get("resolved")
        if isinstance(resolved, str) and not resolved.startswith(registry):
            found.append((where, f"{where}: {resolved[:120]}", f"resolved outside the registry {registry}"))
        version = info.get("version")
        if isinstance(version, str) and NODE_NON_REGISTRY.match(version) and not version[:1].isdigit():
            found.append((where, f"{where}: {version[:120]}", "not a registry version"))
    return found
