"""Node projects set up by the tool their files name, from the kit's table (`tooltable.toml`): npm, bun, pnpm,
yarn (classic or berry), deno; the kit's pinned copy (or the version `packageManager` names, when the
registry has it), run in the sandbox whose only network is the registry proxy, lifecycle scripts off, the
lockfile frozen. The tool reads its own lockfile; the kit only names which tool wrote it.

The setup runs on a folder holding package.json, the lockfile and the submission's own folders the install
reads (workspace members, `file:` dependencies), never its installer configuration. What it made that runs
need is kept: every node_modules (the root's and the members'), and what the row keeps (yarn's Plug'n'Play
files). Each run sees node_modules as a folder of links into the kept one, the tool's own links (a
workspace member, pnpm's store) kept as they are, so they resolve inside the run's own copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools, toolsetup, tooltable
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.tooltable import SetupRow
from gradelib.errors import InstallError
from gradelib.sandbox import safefs
from gradelib.sandbox.mounts import COPY, MODULES, NODE_MODULES
from gradelib.sandbox.registryproxy import PORT as PROXY_PORT

PNPM_LOCK = "pnpm-lock.yaml"
NPM_LOCKS = ("npm-shrinkwrap.json", "package-lock.json")
PACKAGE_MANAGER = re.compile(r"^(yarn|pnpm|npm|bun|deno)@(\d+)(\.[0-9A-Za-z.-]+)?(\+.*)?$")
STORE = ".kit-store"  # the tool's download cache, inside the setup's copy (dropped with it)
PNP_CACHE = "yarn-cache"  # where Plug'n'Play's packages are kept, in the environment's folder, for every run
TREE = "node"  # where what the setup made is kept, in the environment's folder, as it lay in the copy
WORKSPACE_FILES = ("pnpm-workspace.yaml",)  # what tells a tool which folders are the project's members
MEMBER_SKIP = frozenset({"node_modules", ".git", "dist", "build", ".yarn", ".pnp.cjs", ".pnp.loader.mjs"})


@dataclass(frozen=True)
class NodeSetup:
    """Which tool sets a Node project up (a row of the table), at which version, and why that version."""

    tool: str  # a name in tools.TOOLS: "npm", "yarn", "yarn-berry", "pnpm", "bun", "deno"
    version: str
    lockfile: str  # "" without one
    pinned_by: str = "the kit"  # or "packageManager"
    setup_id: str = ""  # the table's row ("" for the tool's own row)
    why: str = ""
    linker: str = ""  # yarn berry's nodeLinker when .yarnrc.yml sets one

    @property
    def row(self) -> SetupRow:
        """The table's row."""
        return tooltable.row(self.setup_id or self.tool)

    def _values(self, registry: str, cache_at: str | None = None) -> dict[str, str]:
        proxy = f"http://127.0.0.1:{PROXY_PORT}"
        return {"registry": registry, "registry_bare": registry.rstrip("/"), "store": STORE, "proxy": proxy,
                "cache": cache_at or STORE}  # fmt: skip

    def argv(self, registry: str) -> list[str]:
        """The install command, lockfile frozen when there is one, scripts off."""
        commands = self.row.commands if self.lockfile or not self.row.unlocked else self.row.unlocked
        return [tooltable.expand(word, self._values(registry)) for word in commands[0]]

    def env(self, registry: str, *, run: bool = False, cache_at: str | None = None) -> dict[str, str]:
        """Variables the tool reads its settings from, in the setup and (`run`) in every run (the
        submission's own configuration files are not copied). `cache_at`: where Plug'n'Play's packages are."""
        extra = self.row.run_env if run else self.row.setup_env
        values = self._values(registry, cache_at)
        found = {name: tooltable.expand(value, values) for name, value in {**self.row.env, **extra}.items()}
        if self.row.linker:  # the linker the project chose (.yarnrc.yml), else node_modules as every tool makes
            found["YARN_NODE_LINKER"] = self.linker or "node-modules"
        return found

    def direct(self) -> dict[str, str] | None:
        """For yarn 1, the variables that keep it off the proxy for the registries (its tunnel agent opens a
        tunnel, and a TLS handshake, per package): it reaches them through their passages
        (`toolsetup.run`), keeping its connections alive. None for the others, which do through the proxy."""
        return dict(self.row.direct) if self.row.direct is not None else None

    def kept(self) -> tuple[str, ...]:
        """What the setup made in the copy, besides node_modules, that every run needs."""
        if self.tool == "yarn-berry" and self.linker != "pnp":
            return ()
        return self.row.keep

    def to_dict(self, registry: str) -> dict[str, Any]:
        """The report's account of the setup: tool, version, why that version, the command."""
        return {
            "tool": self.tool, "version": self.version, "version_from": self.pinned_by, "why": self.why,
            "command": " ".join(self.argv(registry)), "lockfile": self.lockfile, "setup": self.row.id,
        } | ({"linker": self.linker} if self.linker else {})  # fmt: skip


def choose(
    lockfile: str, lock: bytes, package_json: Mapping[str, Any], setup_id: str = "", why: str = "", linker: str = ""
) -> NodeSetup:
    """The row's tool (the one that wrote `lockfile`; npm for none), at the version `packageManager` pins
    when it names that tool."""
    row = tooltable.row(setup_id) if setup_id else _row_of_lock(lockfile, lock)
    tool = row.tool
    wanted = package_json.get("packageManager")
    match = PACKAGE_MANAGER.match(wanted) if isinstance(wanted, str) else None
    if match and row.pinned_by == "packageManager":
        family, major = match.group(1), int(match.group(2))
        names = "yarn-berry" if family == "yarn" and major >= 2 else family
        if names == tool and match.group(3):
            version = match.group(2) + match.group(3)
            if tools.VERSION.match(version):
                return NodeSetup(tool, version, lockfile, "packageManager", row.id, why, linker)
    return NodeSetup(tool, tools.TOOLS[tool].version, lockfile, "the kit", row.id, why, linker)


def _row_of_lock(lockfile: str, lock: bytes) -> SetupRow:
    """The row of the tool that wrote `lockfile` (a yarn.lock with `__metadata` is berry's), npm for none."""
    berry = b"__metadata:" in lock
    for row in tooltable.rows("node"):
        if (lockfile and lockfile in row.locks and berry == (row.tool == "yarn-berry")) or (
            lockfile in row.locks and row.tool not in ("yarn", "yarn-berry")
        ):
            return row
    return tooltable.row("npm")


def provision(setup: NodeSetup, settings: InstallSettings) -> tuple[NodeSetup, tools.Provisioned, str]:
    """The tool for `setup`, and a note when the project's version could not be had (the kit's is used)."""
    try:
        return setup, tools.provision(setup.tool, settings, setup.version), ""
    except InstallError as exc:
        if setup.pinned_by == "the kit":
            raise
        kit = NodeSetup(setup.tool, tools.TOOLS[setup.tool].version, setup.lockfile, "the kit", setup.setup_id,
                        setup.why, setup.linker)  # fmt: skip
        note = f"packageManager asks for {setup.version}, which could not be provisioned ({exc.reason})"
        note += f"; used {kit.version}"
        return kit, tools.provision(kit.tool, settings, kit.version), note


def run(
    setup: NodeSetup,
    folder: Path,
    package_json: Mapping[str, Any],
    lock: bytes,
    registry: str,
    settings: InstallSettings,
    *,
    root: Path | None = None,
    members: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Set the project up in the sandbox and keep what it made under `folder/node`, as it lay in the copy.

    `members` are the submission's (at `root`) own folders the install reads: copied in whole, without
    what a tool made there. Returns the setup's evidence (tool, version, command, registries reached,
    refusals, what was kept and how runs see it); raises InstallError with the tool's last lines.
    """
    if settings.offline:
        what = setup.lockfile or "package.json"
        raise InstallError("node", f"offline: {what} is set up by {setup.tool}, which needs the registry")
    setup, provisioned, note = provision(setup, settings)
    target = folder / TREE
    target.mkdir(exist_ok=True)
    text = json.dumps(package_json, indent=2) + "\n"
    (target / "package.json").write_text(text, encoding="utf-8")
    source = Path(tempfile.mkdtemp(prefix=".setup-", dir=folder))
    products: list[dict[str, str]] = []

    pnp = setup.tool == "yarn-berry" and setup.linker == "pnp"
    cache_at = target / PNP_CACHE if pnp else None

    def collect(copy: Path, out: Path | None) -> None:
        if cache_at is not None and out is not None:
            cache.adopt(out, cache_at)
        for rel in ("", *members):
            where = f"{rel}/{NODE_MODULES}" if rel else NODE_MODULES
            modules = copy / where
            if modules.is_dir() and not modules.is_symlink():
                (target / where).parent.mkdir(parents=True, exist_ok=True)
                cache.adopt(modules, target / where)
                products.append({"path": where, "how": MODULES})
        for rel in setup.kept():
            made = copy / rel
            if (made.exists() or made.is_symlink()) and not made.is_symlink():
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                cache.adopt(made, target / rel)
                products.append({"path": rel, "how": COPY})
        if not products:
            raise InstallError("node", f"{setup.tool} {setup.version} succeeded but made no node_modules")

    try:
        (source / "package.json").write_text(text, encoding="utf-8")
        if setup.lockfile:
            (source / setup.lockfile).write_bytes(lock)
        for rel in members:
            _copy_member(Path(root) / rel if root else None, source / rel)
        for name in WORKSPACE_FILES if members and root else ():
            data = safefs.read_file(Path(root), name, 1024 * 1024) if root else None
            if data is not None:
                (source / name).write_bytes(data)
        argv, env = setup.argv(registry), setup.env(registry, cache_at=str(cache_at) if cache_at else None)
        done = toolsetup.run(
            provisioned, source, [argv], env, settings, registry, collect, ecosystem="node",
            doing=f" from {setup.lockfile or 'package.json'}", direct=setup.direct(),
            stable=pnp, env_at=str(cache_at) if cache_at else None,
        )  # fmt: skip
    finally:
        cache.discard(source)
    kept = {"products": products} if products != [{"path": NODE_MODULES, "how": MODULES}] else {}
    at = {"cache_at": str(cache_at), "stable": True} if cache_at else {}
    return setup.to_dict(registry) | done | ({"note": note} if note else {}) | kept | at


def _copy_member(source: Path | None, target: Path) -> None:
    """One of the submission's own folders, for the install to read (without what a tool made in it)."""
    if source is None or not source.is_dir() or source.is_symlink():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    safefs.copy_tree(source, target)
    for name in MEMBER_SKIP:
        made = target / name
        if made.is_symlink() or made.is_file():
            made.unlink()
        elif made.exists():
            shutil.rmtree(made)


def installed(node_modules: Path, dev_names: frozenset[str]) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, dev) of each package at the top of node_modules, from its own package.json."""
    found = []
    root = node_modules.resolve()
    for entry in _top_level(node_modules):
        manifest = entry / "package.json"
        try:
            real = manifest.resolve()
            if not real.is_relative_to(root):
                continue
            doc = json.loads(real.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        name = entry.relative_to(node_modules).as_posix()
        version = doc.get("version") if isinstance(doc, dict) else None
        if isinstance(version, str):
            found.append((name, version, name in dev_names))
    return tuple(sorted(found))


def _top_level(node_modules: Path) -> list[Path]:
    found = []
    try:
        entries = sorted(os.scandir(node_modules), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.name.startswith("@") and entry.is_dir(follow_symlinks=False):
            try:
                found += [Path(inner.path) for inner in sorted(os.scandir(path), key=lambda e: e.name)]
            except OSError:
                continue
        else:
            found.append(path)
    return found
