"""A submission's environment, ready for the sandbox: what was declared, installed, refused."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gradelib.environment import (
    cache,
    evidence,
    inventory,
    nodeinstall,
    npm,
    ownrun,
    ownsetup,
    pyinstall,
    pysetup,
    tools,
    toolsetup,
    tooltable,
    uvtool,
)
from gradelib.environment.declaration import LOCAL_PROTOCOLS, Declaration, read_declaration
from gradelib.environment.declarationrecords import Declared, Reader, some_of
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.inventory import Inventory
from gradelib.environment.project import digest as project_digest
from gradelib.errors import InstallError
from gradelib.sandbox.mounts import NODE_MODULES, OVERLAY, STABLE_ENV, VENV_LINK, Mounts

SHIMS = "shims"
SHIM_BIN = "bin"
RUNTIME_DEPENDENCY_FLAG = "runtime dependency {name}: the handout allows no new dependencies"
# How the kit's uv runs in every run: offline, the submission's own uv configuration unread, never a
# downloaded interpreter.
UV_RUN_ENV = {"UV_OFFLINE": "1", "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}
OWN = "own"  # the ecosystem name of what the submission's own setup step made
SESSION_TOOLS = frozenset({"nox", "tox"})  # they keep an environment per session, each with what it installs


@dataclass(frozen=True)
class Installed:
    """One cached environment (Python virtualenv or node_modules) and how it was had."""

    ecosystem: str
    folder: Path  # the cache entry, mounted read-only into every run
    key: str
    packages: tuple[tuple[str, str, bool], ...]
    cache_hit: bool
    seconds: float  # install time (0 on a cache hit)
    project: dict[str, Any] | None = None  # the submission's own project, installed in the sandbox
    setup: dict[str, Any] | None = None  # the real tool that set it up (nodesetup), and what it reached
    tool: Path | None = None  # that tool's folder (mounted read-only in every run)
    tool_bin: Path | None = None  # its commands' folder, first on the runs' PATH

    @property
    def stable(self) -> bool:
        """Made by a tool at the sandbox's fixed environment path, where every run sees it."""
        return bool(self.setup and self.setup.get("stable"))

    @property
    def venv(self) -> Path:
        """The virtualenv (Python), where the kit reads it."""
        if self.stable and self.setup:
            return self.folder / toolsetup.ENV_OUT / str(self.setup.get("venv") or pysetup.VENV)
        return self.folder / pyinstall.VENV

    @property
    def run_venv(self) -> Path:
        """The virtualenv where runs see it."""
        if self.stable and self.setup:
            return Path(STABLE_ENV) / str(self.setup.get("venv") or pysetup.VENV)
        return self.venv

    @property
    def node_modules(self) -> Path:
        """The node_modules folder (Node)."""
        return self.folder / nodeinstall.FOLDER / NODE_MODULES

    @property
    def products(self) -> tuple[tuple[str, Path, str], ...]:
        """What a setup kept of its copy for every copy (a Node setup's beyond the root's node_modules, the
        submission's own setup step's): (path, kept at, how)."""
        kept = (self.setup or {}).get("products") or []
        base = self.folder / (ownrun.KEPT if self.ecosystem == OWN else nodeinstall.FOLDER)
        return tuple(
            (str(item["path"]), base / str(item["path"]), str(item["how"]))
            for item in kept
            if isinstance(item, dict) and {"path", "how"} <= set(item)
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (no paths: they differ between machines)."""
        return {
            "ecosystem": self.ecosystem,
            "key": self.key,
            "cache": "hit" if self.cache_hit else "miss",
            "install_seconds": self.seconds,
            "packages": [{"name": n, "version": v, "dev": d} for n, v, d in self.packages],
        } | ({"setup": {k: v for k, v in self.setup.items() if k != "seconds"}} if self.setup else {})

    def editable_roots(self) -> list[str]:
        """The submission's folders (relative) whose code runs in place of the installed project's, if any."""
        if self.project is None or not self.project.get("installed"):
            return []
        return [str(root) for root in self.project.get("editable_roots") or []]


@dataclass(frozen=True)
class Environment:
    """What a submission's runs see: the installed environments, or why they are missing."""

    declaration: Declaration = field(default_factory=Declaration)
    python: Installed | None = None
    node: Installed | None = None
    errors: tuple[str, ...] = ()
    python_version: str | None = None
    node_version: str | None = None
    shims: Path | None = None  # `python` for a submission that declares no Python packages
    uv: tools.Provisioned | None = None  # the kit's uv, on every run's PATH (`uv run`, `uv pip`)
    tool_env: Mapping[str, str] = field(default_factory=dict)  # what the setup tool reads in every run
    inventory: Inventory = field(default_factory=Inventory)  # what it declares, owns, names; what setup left out
    named: tuple[tools.Provisioned, ...] = ()  # the table's tools its files run (just, bun), on every run's PATH
    named_why: Mapping[str, str] = field(default_factory=dict)  # each one's name -> what in the files named it
    own: Installed | None = None  # what the submission's own setup step (make setup, npm run build) made

    def _installed(self) -> tuple[Installed, ...]:
        return tuple(i for i in (self.python, self.node, self.own) if i is not None)

    @property
    def error(self) -> str | None:
        """Why a valid declaration could not be installed (the lines are then `error`), or None."""
        return "; ".join(self.errors) or None

    def read_only_paths(self) -> list[str]:
        """Folders the sandbox mounts read-only at the same path."""
        found = [str(i.folder) for i in self._installed()]
        found += [str(i.tool) for i in (self.python, self.node) if i is not None and i.tool_bin]
        found += [str(each.root) for each in self.named]
        found += [str(self.uv.root)] if self.uv else []
        return found + ([str(self.shims)] if self.shims and not self.python else [])

    def placeholders(self) -> dict[str, str]:
        """How runs show the environment's folders (`<python-env>/lib/...`): the same on every machine."""
        found = {}
        for installed in (self.python, self.node):
            if installed is not None:
                found[str(installed.folder)] = f"<{installed.ecosystem}-env>"
            if installed is not None and installed.tool_bin and installed.setup:
                found[str(installed.tool)] = f"<{installed.setup['tool']}>"
        if self.own is not None:
            found[str(self.own.folder)] = "<own-setup>"
        for each in self.named:
            found.setdefault(str(each.root), f"<{each.tool.name}>")
        if self.shims:
            found[str(self.shims)] = "<shims>"
        if self.uv:
            found.setdefault(str(self.uv.root), "<uv>")
        return found

    def bin_dirs(self) -> list[str]:
        """Folders first on the sandbox PATH: the tool that set the submission up, the kit's uv, then the
        virtualenv's bin (or the `python` shim). npm's own `npx` is the machine's, with Node."""
        found = [
            str(i.setup["wrappers"]) for i in (self.python, self.node) if i and i.setup and i.setup.get("wrappers")
        ]
        found += [str(i.tool_bin) for i in (self.python, self.node) if i is not None and i.tool_bin]
        found += [str(each.bin_dir) for each in self.named if str(each.bin_dir) not in found]
        found += [str(self.uv.bin_dir)] if self.uv and str(self.uv.bin_dir) not in found else []
        if self.python:
            return [*found, str(self.python.run_venv / "bin")]
        return found + ([str(self.shims / SHIM_BIN)] if self.shims else [])

    def mounts(self) -> Mounts:
        """What the sandbox mounts, puts on PATH and links into every copy for this environment's runs."""
        return Mounts(
            read_only=tuple(self.read_only_paths()),
            placeholders=tuple(self.placeholders().items()),
            bin_dirs=tuple(self.bin_dirs()),
            node_modules=self.node.node_modules if self.node and not self.node.products else None,
            products=(*(self.node.products if self.node else ()), *(self.own.products if self.own else ())),
            venv=self.python.run_venv if self.python else None,
            venv_names=tuple(dict.fromkeys((VENV_LINK, *self.inventory.venvs))),
            editable_roots=tuple(self.python.editable_roots()) if self.python else (),
            binds=(*self._binds(), *self._made_venv_binds()),
            stable_paths=bool(self._binds()) or self.own is not None or bool(self.node and self.node.stable),
            env=tuple(self.tool_env.items()),
        )

    def _binds(self) -> tuple[tuple[str, str, str], ...]:
        """A tool's environment, made at the fixed path, seen there by every run (each run's writes, a
        tool's cache bookkeeping, kept in its own scratch)."""
        if self.python is None or not self.python.stable:
            return ()
        return ((str(self.python.folder / toolsetup.ENV_OUT), STABLE_ENV, OVERLAY),)

    def _made_venv_binds(self) -> tuple[tuple[str, str, str], ...]:
        """The kit's virtualenv, seen writable by a run that makes its own there (`python3 -m venv .venv`, then
        `pip install -r requirements.txt`), each run's writes kept in its own scratch and dropped."""
        if self.python is None or not self.inventory.made_venvs:
            return ()
        return tuple((str(self.python.venv), name, OVERLAY) for name in self.inventory.made_venvs)

    def script_runner(self) -> tuple[str, ...] | None:
        """How a run starts package.json's scripts when `npm run` cannot (yarn's Plug'n'Play: `yarn run`, its
        command's path first); None for npm."""
        setup = self.node.setup if self.node else None
        if not setup or setup.get("linker") != "pnp" or self.node is None or self.node.tool_bin is None:
            return None
        scripts = tooltable.row(str(setup.get("setup") or setup.get("tool"))).scripts
        return (str(self.node.tool_bin / scripts[0]), *scripts[1:]) if scripts else None

    def python_runner(self) -> str | None:
        """The Python package manager of the tool table that set the submission up (Hatch, Poetry), if one did:
        its runs may start the program through it (`poetry run`, `hatch run`)."""
        python = self.python
        tool = str((python.setup or {}).get("tool")) if python is not None and python.setup else ""
        return tool if tool in tools.TOOLS and tools.TOOLS[tool].ecosystem == "python" else None

    def runtime_dependencies(self) -> list[str]:
        """package.json `dependencies` names, sorted (`[]` when none)."""
        return self.declaration.node.runtime_names if self.declaration.node else []

    def evidence(self, *, flag_runtime: bool = False) -> dict[str, Any]:
        """The report's environment section: declared, installed, built, refused, locks, errors."""
        flags = [RUNTIME_DEPENDENCY_FLAG.format(name=n) for n in self.runtime_dependencies()] if flag_runtime else []
        return {
            "declared": [d.to_dict() for d in self.declaration.declared()],
            "installed": [i.to_dict() for i in (self.python, self.node) if i is not None],
            "project": self.python.project if self.python else None,
            "lockfiles": [lock.to_dict() for lock in self.declaration.locks],
            "refused": [r.to_dict() for r in self.declaration.refused],
            "setup_steps": self._own_steps(),
            "tools": [
                {"tool": t.tool.name, "version": t.version, "why": self.named_why.get(t.tool.name, "")}
                for t in self.named
            ],
            "notes": list(self.declaration.notes),
            "flags": flags,
            "error": self.error,
            "python": self.python_version,
            "node": self.node_version,
        }

    def _own_steps(self) -> dict[str, Any] | None:
        """What the submission's own setup step ran, why, and what it made (for the report), or None."""
        if self.own is None or not self.own.setup:
            return None
        setup = self.own.setup
        return {
            "steps": setup.get("steps") or [], "made": setup.get("products") or [], "network": setup.get("network"),
            "cache": "hit" if self.own.cache_hit else "miss",
        }  # fmt: skip

    def summary(self) -> str:
        """One line: `python: 14 packages (cache hit); 1 refused`."""
        parts = []
        project = self.python.project if self.python else None
        if project and project.get("installed"):
            parts.append(f"project {project['installed']} built with {project.get('backend')}")
        elif project:
            parts.append("the project itself could not be installed: it runs from its folder")
        for installed in (self.python, self.node):
            if installed is not None:
                how = "cache hit" if installed.cache_hit else f"installed in {installed.seconds:.1f} s"
                if installed.setup and installed.setup.get("build_source"):
                    how += ", builds from source allowed"
                if installed.setup:
                    how = f"set up by {installed.setup.get('tool')} {installed.setup.get('version')}, {how}"
                parts.append(f"{installed.ecosystem}: {len(installed.packages)} packages ({how})")
        if own := self._own_steps():
            parts.append("its own setup: " + "; ".join(f"`{step['command']}`" for step in own["steps"]))
        if self.named:
            parts.append("tools it runs: " + ", ".join(f"{t.tool.name} {t.version}" for t in self.named))
        if self.declaration.refused:
            parts.append(f"{len(self.declaration.refused)} declaration(s) refused")
        if self.errors:
            parts.append("install failed: " + self.error)  # type: ignore[operator]
        return "; ".join(parts) or "no dependencies declared"


def _obtain(
    ecosystem: str,
    parts: dict[str, object],
    settings: InstallSettings,
    build: Callable[[Path, str], cache.Manifest],
) -> Installed:
    key = cache.environment_key(ecosystem, parts)
    folder = cache.env_folder(settings.cache_dir, key)
    manifest = cache.read_manifest(folder)
    if manifest is not None:
        return _installed(ecosystem, folder, manifest, settings, hit=True, seconds=0.0)
    with cache.locked(settings.cache_dir, key):
        manifest = cache.read_manifest(folder)  # another grading may have built it meanwhile
        if manifest is not None:
            return _installed(ecosystem, folder, manifest, settings, hit=True, seconds=0.0)
        folder = cache.fresh_folder(settings.cache_dir, key)
        started = time.monotonic()
        try:
            manifest = build(folder, key)
        except BaseException:
            cache.discard(folder)  # a failed setup leaves nothing on the kit's disk
            raise
        cache.write_manifest(folder, manifest)
        seconds = round(time.monotonic() - started, 2)
        return _installed(ecosystem, folder, manifest, settings, hit=False, seconds=seconds)


def _installed(
    ecosystem: str, folder: Path, manifest: cache.Manifest, settings: InstallSettings, *, hit: bool, seconds: float
) -> Installed:
    tool = None
    setup = manifest.setup
    if setup and setup.get("tool") in tools.TOOLS and isinstance(setup.get("version"), str):
        # from the cache (provisioned again if the tools folder was cleared since the environment was made)
        tool = tools.provision(str(setup["tool"]), settings, str(setup["version"]))
    return Installed(
        ecosystem, folder, manifest.key, manifest.packages, hit, seconds, manifest.project, setup,
        tool.root if tool else None, tool.bin_dir if tool else None,
    )  # fmt: skip


def _offline(exc: Exception, wanted: Sequence[Declared]) -> str:
    """What an offline grading lacks, named (the installer's own words follow)."""
    names = some_of([f"{d.name} {d.spec}".strip() if d.ecosystem == "node" else d.spec for d in wanted])
    return f"offline, and the cache lacks {names} (run `gradelib deps fetch` while online): {exc}"


def python_shims(settings: InstallSettings) -> Path:
    """A folder whose `bin/python` and `bin/python3` are the clean interpreter: the system's standard library
    and nothing else. It is a virtualenv without packages (its `pyvenv.cfg`), so what the grading machine's
    distribution installed beside its Python (Debian's `dist-packages`: PyYAML, requests ...) is not there
    for a submission that declares nothing, as it is not on a reviewer's fresh machine.

    It lives in the cache, at the same path for every grading, so nothing a run sees varies.
    """
    folder = settings.cache_dir / SHIMS
    config = f"home = {Path(settings.python).parent}\ninclude-system-site-packages = false\n"
    _place(folder / "pyvenv.cfg", lambda partial: partial.write_text(config), config)
    for name in ("python", "python3"):
        _place(folder / SHIM_BIN / name, lambda partial: partial.symlink_to(settings.python), None)
    cache.readable(folder)
    return folder


def _place(path: Path, write: Callable[[Path], object], text: str | None) -> None:
    """`path` as `write` makes it, atomically, unless it is already there (as `text` says, for a file)."""
    if path.is_symlink() or (text is not None and path.is_file() and path.read_text() == text):
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    partial = path.with_name(f".{path.name}-{os.getpid()}")
    partial.unlink(missing_ok=True)
    write(partial)
    partial.rename(path)


def prepare(root: Path, settings: InstallSettings | None = None) -> Environment:
    """Read what the submission declares and set it up (or take it from the cache): the tools its files name,
    then its own setup step; checked whole. Never raises."""
    settings = settings or InstallSettings.from_env()
    try:
        registry = npm.registry(settings)
    except InstallError:
        registry = settings.registry or ""
    declaration = read_declaration(root, registry=registry)
    errors: list[str] = []
    python, python_version, tool_env = _python_env(Path(root), declaration, settings, errors)
    node, node_version, node_tool_env = _node_env(Path(root), declaration, settings, registry, errors)
    if python is not None and not python.stable:
        # `uv run` in a project the kit installed runs in that environment as it is (it is read-only)
        tool_env = {"UV_NO_SYNC": "1", "UV_PROJECT_ENVIRONMENT": str(python.run_venv)}
    reader = Reader(Path(root))
    table_steps, table_env = ownsetup.table_steps(reader, registry)
    steps = [*table_steps, *ownsetup.steps(reader)]
    named, named_why = _named(reader, (python, node), steps, settings)
    taken = _inventory(
        Path(root), declaration, python, node, _unmet(Path(root), settings, python_version, node_version)
    )
    errors += _not_whole(taken, python)
    made = Environment(
        declaration, python, node, tuple(errors), python_version, node_version, python_shims(settings),
        _kit_uv(settings), UV_RUN_ENV | node_tool_env | tool_env | table_env, taken, named, named_why,
    )  # fmt: skip
    if not steps or errors:
        return made
    try:
        own = _obtain(
            OWN, _own_key(Path(root), steps, made, settings, registry), settings,
            lambda folder, key: _own(steps, Path(root), folder, key, made, settings, registry),
        )  # fmt: skip
    except (InstallError, OSError) as exc:
        return dataclasses.replace(made, errors=(*made.errors, str(exc)))
    return dataclasses.replace(made, own=own)


def _python_env(
    root: Path, declaration: Declaration, settings: InstallSettings, errors: list[str]
) -> tuple[Installed | None, str | None, dict[str, str]]:
    """The Python environment (a tool of the table's, or the kit's uv), its interpreter version, and what the
    tool reads in every run; a failure is added to `errors`."""
    py = declaration.python
    if py is None:
        return None, None, {}
    python_version = None
    try:
        python_version = uvtool.interpreter_version(settings.python)
        if py.setup is None:
            python = _obtain(
                "python", pyinstall.key_parts(py, settings), settings,
                lambda folder, key: pyinstall.build(folder, py, settings, key, root),
            )  # fmt: skip
            return python, python_version, {}
        setup = py.setup
        python = _obtain(
            "python", _setup_key(setup, python_version, settings), settings,
            lambda folder, key: _set_up(setup, root, folder, key, settings),
        )  # fmt: skip
        # the tool as it set the environment up (the version the project asked for, when had)
        root_of_tool = python.tool or tools.provision(setup.tool, settings, setup.version).root
        return python, python_version, setup.env(settings, root_of_tool, run=True)
    except (InstallError, OSError) as exc:
        errors.append(_offline(exc, py.requirements) if settings.offline else str(exc))
        return None, python_version, {}


def _node_env(
    root: Path, declaration: Declaration, settings: InstallSettings, registry: str, errors: list[str]
) -> tuple[Installed | None, str | None, dict[str, str]]:
    """The Node environment (the table's tool for it), Node's version, and what the tool reads in every run; a
    failure is added to `errors`."""
    nd = declaration.node
    if nd is None:
        return None, None, {}
    node_version = None
    try:
        node_version = npm.node_version() or None
        node = _obtain(
            "node", nodeinstall.key_parts(nd, settings, root), settings,
            lambda folder, key: nodeinstall.build(folder, nd, settings, key, root),
        )  # fmt: skip
        cache_at = (node.setup or {}).get("cache_at")
        return node, node_version, nodeinstall.setup_of(nd).env(registry, run=True, cache_at=cache_at)
    except (InstallError, OSError) as exc:
        errors.append(_offline(exc, [*nd.dependencies, *nd.dev_dependencies]) if settings.offline else str(exc))
        return None, node_version, {}


def _named(
    reader: Reader, installed: tuple[Installed | None, ...], steps: list[ownsetup.Step], settings: InstallSettings
) -> tuple[tuple[tools.Provisioned, ...], dict[str, str]]:
    """The table's tools that what runs the code names (run.sh, package.json's scripts, the task files they
    call) or the own setup step needs, beyond those that set the submission up: provisioned for the runs'
    PATH, with what named each. One the kit cannot have is left out (a run that needs it ends as the kit's
    shortfall, `error`)."""
    where: dict[str, str] = {}
    for name, text in evidence.texts(reader, runs=True):
        for word in re.findall(r"[\w.-]+", text):
            where.setdefault(word, f"{name} runs `{word}`")
    for step in steps:
        if step.tool:
            where.setdefault(step.tool, f"its setup step `{' '.join(step.argv)}` needs it")
    words = set(where)
    taken = {str(i.setup.get("tool")) for i in installed if i is not None and i.setup}
    commands = {command for name in taken if name in tools.TOOLS for command in tools.TOOLS[name].commands}
    found: list[tools.Provisioned] = []
    why: dict[str, str] = {}
    for name, tool in tools.TOOLS.items():
        if tool.ecosystem == "kit" or name in taken or not words & set(tool.commands):
            continue
        if set(tool.commands) & commands:
            continue  # another tool of that command set the submission up (yarn, yarn berry)
        try:
            found.append(tools.provision(name, settings))
        except (InstallError, OSError):
            continue
        commands |= set(tool.commands)
        why[name] = next(where[command] for command in tool.commands if command in where)
    return tuple(found), why


def _own_key(
    root: Path, steps: list[ownsetup.Step], made: Environment, settings: InstallSettings, registry: str
) -> dict[str, object]:
    """What makes two runs of a submission's own setup the same: its files, the steps, what they saw."""
    return {
        "digest": project_digest(root), "steps": [list(step.argv) for step in steps],
        "environments": [i.key for i in made._installed()], "tools": [[t.tool.name, t.version] for t in made.named],
        "index": settings.index_url or "", "registry": registry, "build_source": settings.build_source,
    }  # fmt: skip


def _own(
    steps: list[ownsetup.Step], root: Path, folder: Path, key: str, made: Environment, settings: InstallSettings,
    registry: str,
) -> cache.Manifest:  # fmt: skip
    environments = [i.folder for i in made._installed() if not i.stable]  # a tool's own: overlaid already
    evidence_of = ownrun.run(steps, root, folder, made.mounts(), made.named, settings, registry, environments)
    return cache.Manifest(key, OWN, (), float(evidence_of["seconds"]), setup=evidence_of)


def _inventory(
    root: Path,
    declaration: Declaration,
    python: Installed | None,
    node: Installed | None,
    unmet: tuple[tuple[str, str, str] | None, tuple[str, str, str] | None],
) -> Inventory:
    """What the submission declares (its files, and its project's metadata as its backend built it) against
    what the setup installed, and a Python it asks for that the grading machine's does not meet."""
    declared = [(d.name, d.file) for d in declaration.declared() if d.ecosystem == "python"]
    read = _files_the_tool_read(root, python)
    direct = [
        (d.name, d.file) for d in declaration.declared()
        if d.ecosystem == "python" and _applies(d.spec) and (read is None or d.file in read)
    ]  # fmt: skip
    project = python.project if python else None
    if project and project.get("requires") is not None:
        where = project.get("declared_in") or "the project's metadata"
        requires = [(str(name), str(where)) for name in project["requires"]]
        declared += requires
        direct += requires
    elif project and project.get("build_error"):
        direct.append(("the project's own dependencies", "its metadata, which could not be built"))
    node_declared = [(d.name, d.file) for d in declaration.declared() if d.ecosystem == "node"]
    # what a setup must have put in node_modules: registry packages (a folder of its own is linked, not put),
    # unless Plug'n'Play keeps them outside any node_modules
    pnp = bool(node and node.setup and node.setup.get("linker") == "pnp")
    node_direct = [
        (d.name, d.file) for d in declaration.declared()
        if d.ecosystem == "node" and not d.spec.startswith(LOCAL_PROTOCOLS) and not pnp
    ]  # fmt: skip
    return inventory.take(
        root, python=declared, node=node_declared, direct_python=direct, direct_node=node_direct,
        installed_python=[name for name, _version, _dev in python.packages] if python else (),
        installed_node=[name for name, _version, _dev in node.packages] if node else (),
        venv=python.venv if python else None, python_unmet=unmet[0], node_unmet=unmet[1],
    )  # fmt: skip


def _unmet(
    root: Path, settings: InstallSettings, python_version: str | None, node_version: str | None
) -> tuple[tuple[str, str, str] | None, tuple[str, str, str] | None]:
    """The Python and the Node the submission asks for that the grading machine's do not meet, if any: each
    version as the setup read it, else read here, and only when the submission asks for one."""
    reader = Reader(root)
    python = node = None
    with contextlib.suppress(InstallError, OSError, subprocess.SubprocessError):  # the setup says what is missing
        if inventory.python_asked(reader):
            python = inventory.python_unmet(reader, python_version or uvtool.interpreter_version(settings.python))
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        if inventory.node_asked(reader) and (version := node_version or npm.node_version()):
            node = inventory.node_unmet(reader, version)
    return python, node


def _files_the_tool_read(root: Path, python: Installed | None) -> set[str] | None:
    """The files a tool of the table set the Python environment up from (what it must have installed is
    declared there); None for the kit's own installers, which read every declaration."""
    row_id = str((python.setup or {}).get("setup") or "") if python else ""
    if not row_id:
        return None
    try:
        row = tooltable.row(row_id)
    except KeyError:
        return None
    return set(evidence.files_read(Reader(root), row.reads))


def _not_whole(taken: Inventory, python: Installed | None) -> list[str]:
    """The setup checked before it is trusted: every package the submission declares directly is there, or
    the setup is an error naming what it left out (the tool's own check ran in the setup already). A tool
    that keeps an environment per session (nox, tox) is not held to the whole list."""
    per_session = bool(python and python.setup and python.setup.get("setup") in SESSION_TOOLS)
    left = [
        *(item for item in taken.python_left_out if not per_session and not item[0].startswith("the project's")),
        *taken.node_left_out,
    ]
    if not left:
        return []
    names = some_of([f"{name} (declared in {where})" for name, where in left])
    return [f"the setup left out {names}: it ended without installing them"]


def _applies(spec: str) -> bool:
    """Whether a requirement applies on this machine (its environment marker, if any, holds)."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        marker = Requirement(spec).marker
    except InvalidRequirement:
        return False
    return marker is None or marker.evaluate({"extra": ""})


def _kit_uv(settings: InstallSettings) -> tools.Provisioned | None:
    """The kit's own uv for the runs' PATH, or None when the kit has not the pinned one (a run's `uv` is
    then missing, which the lines call the kit's fault)."""
    try:
        return tools.provision("uv", settings)
    except (InstallError, OSError):
        return None


def _setup_key(setup: pysetup.PythonSetup, python_version: str, settings: InstallSettings) -> dict[str, object]:
    """What makes two environments set up by a tool the same: the tool, its commands as the table has them,
    its files, the interpreter, the index."""
    return {
        "tool": [setup.tool, setup.version], "files": setup.digest, "python": python_version,
        "index": settings.index_url or "", "commands": setup.commands(settings),
    }  # fmt: skip


def _set_up(
    setup: pysetup.PythonSetup, root: Path, folder: Path, key: str, settings: InstallSettings
) -> cache.Manifest:
    started = time.monotonic()
    evidence = pysetup.run(setup, Path(root), folder, settings)
    packages = pysetup.installed(folder / toolsetup.ENV_OUT / str(evidence.get("venv") or pysetup.VENV))
    return cache.Manifest(key, "python", packages, round(time.monotonic() - started, 2), setup=evidence)
