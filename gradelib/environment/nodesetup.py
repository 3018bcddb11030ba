"""Node projects set up by the tool their lockfile names: npm (`package-lock.json`, `npm-shrinkwrap.json`,
or no lockfile at all), yarn or pnpm, the kit's pinned copy (or the version the project's
`packageManager` names, when the registry has it), run in the sandbox whose only network is the
registry proxy, lifecycle scripts off, the lockfile frozen (`npm ci`). The tool reads its own lockfile;
the kit only names which tool wrote it (a yarn.lock with `__metadata` is yarn berry's).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools, toolsetup
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox.mounts import NODE_MODULES
from gradelib.sandbox.registryproxy import PORT as PROXY_PORT

PNPM_LOCK = "pnpm-lock.yaml"
NPM_LOCKS = ("npm-shrinkwrap.json", "package-lock.json")
BERRY_MARK = re.compile(rb"^__metadata:", re.M)
PACKAGE_MANAGER = re.compile(r"^(yarn|pnpm|npm)@(\d+)(\.[0-9A-Za-z.-]+)?(\+.*)?$")
STORE = ".kit-store"  # the tool's download cache, inside the setup's copy (dropped with it)


@dataclass(frozen=True)
class NodeSetup:
    """Which tool sets a locked Node project up, at which version, and why that version."""

    tool: str  # a name in tools.TOOLS: "npm", "yarn", "yarn-berry", "pnpm"
    version: str
    lockfile: str  # "" for npm without one
    pinned_by: str = "the kit"  # or "packageManager"

    def argv(self, registry: str) -> list[str]:
        """The install command, lockfile frozen, scripts off."""
        if self.tool == "npm":
            quiet = ["--ignore-scripts", "--include=dev", "--no-audit", "--no-fund", "--loglevel=error"]
            how = ["ci"] if self.lockfile else ["install", "--no-package-lock"]
            return ["npm", *how, *quiet, "--registry", registry, "--cache", STORE]
        if self.tool == "yarn":
            return [
                "yarn", "install", "--frozen-lockfile", "--ignore-scripts", "--non-interactive", "--no-progress",
                "--registry", registry, "--cache-folder", STORE,
            ]  # fmt: skip
        if self.tool == "yarn-berry":
            return ["yarn", "install", "--immutable", "--mode=skip-build"]
        return [
            "pnpm", "install", "--frozen-lockfile", "--ignore-scripts", "--config.confirmModulesPurge=false",
            f"--config.registry={registry}", f"--config.store-dir={STORE}", "--config.package-import-method=copy",
            "--config.manage-package-manager-versions=false", "--config.package-manager-strict=false",
        ]  # fmt: skip

    def env(self, registry: str) -> dict[str, str]:
        """Variables the tool reads its settings from (the submission's own configuration files are not copied)."""
        if self.tool == "yarn-berry":
            proxy = f"http://127.0.0.1:{PROXY_PORT}"
            return {
                "YARN_ENABLE_SCRIPTS": "false", "YARN_NODE_LINKER": "node-modules", "YARN_NPM_REGISTRY_SERVER":
                registry.rstrip("/"), "YARN_HTTPS_PROXY": proxy, "YARN_HTTP_PROXY": proxy,
                "YARN_ENABLE_TELEMETRY": "0", "YARN_ENABLE_GLOBAL_CACHE": "false", "YARN_CACHE_FOLDER": STORE,
                "YARN_ENABLE_IMMUTABLE_CACHE": "false", "YARN_ENABLE_PROGRESS_BARS": "false",
                "YARN_IGNORE_PATH": "1", "COREPACK_ENABLE_STRICT": "0",
            }  # fmt: skip
        return {
            "npm_config_ignore_scripts": "true", "npm_config_update_notifier": "false", "NODE_ENV": "development",
            "SKIP_YARN_COREPACK_CHECK": "1", "COREPACK_ENABLE_STRICT": "0",
        }  # fmt: skip

    def direct(self) -> dict[str, str] | None:
        """For yarn 1, the variables that keep it off the proxy for the registries (its tunnel agent opens a
        tunnel, and a TLS handshake, per package): it reaches them through their passages
        (`toolsetup.run`), keeping its connections alive. None for the others, which do through the proxy."""
        if self.tool != "yarn":
            return None
        return {"npm_config_https_proxy": "", "npm_config_proxy": ""}  # then yarn reads HTTPS_PROXY and NO_PROXY

    def to_dict(self, registry: str) -> dict[str, Any]:
        """The report's account of the setup: tool, version, why that version, the command."""
        return {
            "tool": self.tool,
            "version": self.version,
            "version_from": self.pinned_by,
            "command": " ".join(self.argv(registry)),
            "lockfile": self.lockfile,
        }


def choose(lockfile: str, lock: bytes, package_json: Mapping[str, Any]) -> NodeSetup:
    """The tool that wrote `lockfile` (npm for none), at the version `packageManager` pins when it names
    that tool."""
    if lockfile in NPM_LOCKS or not lockfile:
        tool = "npm"
    else:
        tool = "pnpm" if lockfile == PNPM_LOCK else "yarn-berry" if BERRY_MARK.search(lock) else "yarn"
    wanted = package_json.get("packageManager")
    match = PACKAGE_MANAGER.match(wanted) if isinstance(wanted, str) else None
    if match:
        family = match.group(1)
        major = int(match.group(2))
        names = family if family in ("pnpm", "npm") else ("yarn" if major < 2 else "yarn-berry")
        if names == tool and match.group(3):
            version = match.group(2) + match.group(3)
            if tools.VERSION.match(version):
                return NodeSetup(tool, version, lockfile, "packageManager")
    return NodeSetup(tool, tools.TOOLS[tool].version, lockfile)


def provision(setup: NodeSetup, settings: InstallSettings) -> tuple[NodeSetup, tools.Provisioned, str]:
    """The tool for `setup`, and a note when the project's version could not be had (the kit's is used)."""
    try:
        return setup, tools.provision(setup.tool, settings, setup.version), ""
    except InstallError as exc:
        if setup.pinned_by == "the kit":
            raise
        kit = NodeSetup(setup.tool, tools.TOOLS[setup.tool].version, setup.lockfile)
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
) -> dict[str, Any]:
    """Set the project up in the sandbox and move its node_modules to `folder/node/node_modules`.

    Returns the setup's evidence (tool, version, command, registries reached, refusals); raises
    InstallError with the tool's last lines.
    """
    if settings.offline:
        what = setup.lockfile or "package.json"
        raise InstallError("node", f"offline: {what} is set up by {setup.tool}, which needs the registry")
    setup, provisioned, note = provision(setup, settings)
    target = folder / "node"
    target.mkdir(exist_ok=True)
    text = json.dumps(package_json, indent=2) + "\n"
    (target / "package.json").write_text(text, encoding="utf-8")
    source = Path(tempfile.mkdtemp(prefix=".setup-", dir=folder))

    def collect(copy: Path, _: Path | None) -> None:
        modules = copy / NODE_MODULES
        if not modules.is_dir() or modules.is_symlink():
            raise InstallError("node", f"{setup.tool} {setup.version} succeeded but made no node_modules")
        cache.adopt(modules, target / NODE_MODULES)

    try:
        (source / "package.json").write_text(text, encoding="utf-8")
        if setup.lockfile:
            (source / setup.lockfile).write_bytes(lock)
        argv, env = setup.argv(registry), setup.env(registry)
        done = toolsetup.run(
            provisioned, source, [argv], env, settings, registry, collect, ecosystem="node",
            doing=f" from {setup.lockfile or 'package.json'}", direct=setup.direct(),
        )  # fmt: skip
    finally:
        cache.discard(source)
    return setup.to_dict(registry) | done | ({"note": note} if note else {})


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
