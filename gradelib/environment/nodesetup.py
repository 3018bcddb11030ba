"""Node projects locked by yarn or pnpm, set up by that tool: the kit's pinned copy (or the version the
project's `packageManager` names, when the registry has it), run in the sandbox whose only network is
the registry proxy, lifecycle scripts off, the lockfile frozen. The tool reads its own lockfile; the
kit only names which tool wrote it (a yarn.lock with `__metadata` is yarn berry's).

npm lockfiles stay with `nodeinstall` (npm on the host, scripts off, its cache shared with
`gradelib deps fetch`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox import Limits, Sandbox
from gradelib.sandbox.mounts import NODE_MODULES, Mounts
from gradelib.sandbox.registryproxy import PORT as PROXY_PORT
from gradelib.sandbox.registryproxy import RegistryProxy, registry_hosts

YARN_LOCK = "yarn.lock"
PNPM_LOCK = "pnpm-lock.yaml"
LOCKS = (PNPM_LOCK, YARN_LOCK)
BERRY_MARK = re.compile(rb"^__metadata:", re.M)
PACKAGE_MANAGER = re.compile(r"^(yarn|pnpm)@(\d+)(\.[0-9A-Za-z.-]+)?(\+.*)?$")
SETUP_MEMORY_BYTES = 3 * 1024**3
ERROR_LINES = 6
TRUST_VARIABLES = ("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR")
SYSTEM_TRUST = ("/etc/", "/usr/")
STORE = ".kit-store"  # the tool's download cache, inside the setup's copy (dropped with it)


@dataclass(frozen=True)
class NodeSetup:
    """Which tool sets a locked Node project up, at which version, and why that version."""

    tool: str  # a name in tools.TOOLS: "yarn", "yarn-berry", "pnpm"
    version: str
    lockfile: str
    pinned_by: str = "the kit"  # or "packageManager"

    def argv(self, registry: str) -> list[str]:
        """The install command, lockfile frozen, scripts off."""
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
        return {"npm_config_ignore_scripts": "true", "SKIP_YARN_COREPACK_CHECK": "1", "COREPACK_ENABLE_STRICT": "0"}

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
    """The tool that wrote `lockfile`, at the version `packageManager` pins when it names that tool."""
    tool = "pnpm" if lockfile == PNPM_LOCK else "yarn-berry" if BERRY_MARK.search(lock) else "yarn"
    wanted = package_json.get("packageManager")
    match = PACKAGE_MANAGER.match(wanted) if isinstance(wanted, str) else None
    if match:
        family = match.group(1)
        major = int(match.group(2))
        names = "pnpm" if family == "pnpm" else ("yarn" if major < 2 else "yarn-berry")
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
) -> tuple[dict[str, Any], Path]:
    """Set the project up in the sandbox and move its node_modules to `folder/node/node_modules`.

    Returns the setup's evidence (tool, version, command, registries reached, refusals) and the
    provisioned tool's bin folder (for the runs' PATH). Raises InstallError with the tool's last lines.
    """
    if settings.offline:
        raise InstallError("node", f"offline: {setup.lockfile} is set up by {setup.tool}, which needs the registry")
    setup, provisioned, note = provision(setup, settings)
    source = Path(tempfile.mkdtemp(prefix=".setup-", dir=folder))
    try:
        (source / "package.json").write_text(json.dumps(package_json, indent=2) + "\n", encoding="utf-8")
        (source / setup.lockfile).write_bytes(lock)
        evidence, modules = _in_sandbox(setup, provisioned, source, registry, settings)
        target = folder / "node"
        target.mkdir(exist_ok=True)
        (target / "package.json").write_text(json.dumps(package_json, indent=2) + "\n", encoding="utf-8")
        shutil.move(str(modules), str(target / NODE_MODULES))
    finally:
        shutil.rmtree(source, ignore_errors=True)
    if note:
        evidence["note"] = note
    return evidence, provisioned.bin_dir


def _in_sandbox(
    setup: NodeSetup, provisioned: tools.Provisioned, source: Path, registry: str, settings: InstallSettings
) -> tuple[dict[str, Any], Path]:
    tool_root = tools.tool_folder(settings, provisioned.tool, provisioned.version)
    mounts = Mounts(
        read_only=(str(tool_root),),
        placeholders=((str(tool_root), f"<{setup.tool}>"),),
        bin_dirs=(str(provisioned.bin_dir),),
    )
    limits = Limits(
        wall_seconds=settings.max_seconds, cpu_seconds=int(settings.max_seconds) + 1,
        memory_bytes=SETUP_MEMORY_BYTES, file_bytes=256 * 1024**2, processes=512, open_files=4096,
    )  # fmt: skip
    proxy = RegistryProxy(registry_hosts(settings.index_url, registry))
    started = time.monotonic()
    cache.readable(tool_root)
    box = Sandbox(source, mounts=mounts, link_venv=False, disk_bytes=settings.max_bytes)
    with box:
        copy = box.copy("setup")
        argv = setup.argv(registry)
        env = trust_settings() | setup.env(registry)
        result = box.run(argv, copy, env=env, limits=limits, services=[proxy.service()])
        network = proxy.evidence()
        if result.timed_out:
            raise InstallError("node", f"{' '.join(argv[:2])} took longer than {settings.max_seconds:.0f} s: stopped")
        if not result.ok:
            raise InstallError("node", f"{_said(setup, result.stdout + chr(10) + result.stderr)}{_refusals(network)}")
        modules = copy / NODE_MODULES
        if not modules.is_dir() or modules.is_symlink():
            raise InstallError("node", f"{' '.join(argv[:2])} succeeded but made no node_modules")
        kept = Path(tempfile.mkdtemp(prefix=".modules-", dir=source))
        shutil.move(str(modules), str(kept / NODE_MODULES))
    evidence = setup.to_dict(registry) | {"seconds": round(time.monotonic() - started, 2), "network": network}
    return evidence, kept / NODE_MODULES


def trust_settings(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The grading machine's certificate authorities, as its own variables name them (a machine behind a
    TLS-inspecting proxy trusts its CA this way), when they are system files the sandbox sees too."""
    return {
        name: value
        for name in TRUST_VARIABLES
        if (value := environ.get(name, "")) and value.startswith(SYSTEM_TRUST) and ".." not in value
    }


def _said(setup: NodeSetup, output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    name = tools.TOOLS[setup.tool].commands[0]
    tail = " | ".join(lines[-ERROR_LINES:])[-1200:] or "it printed nothing"
    return f"{name} {setup.version} could not set the project up from {setup.lockfile}: {tail}"


def _refusals(network: Mapping[str, Any]) -> str:
    refused = list(network.get("refused") or [])
    return f" (the proxy refused: {'; '.join(refused[:3])})" if refused else ""


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
