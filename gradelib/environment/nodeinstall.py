"""Node environments: `node_modules` set up in the sandbox by the tool the lockfile names (npm, yarn, pnpm),
lifecycle scripts never run."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from gradelib.environment import nodesetup
from gradelib.environment.cache import Manifest
from gradelib.environment.declaration import NodeDeclaration
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.npm import node_version, registry
from gradelib.environment.project import digest
from gradelib.sandbox.mounts import NODE_MODULES

FOLDER = "node"
ROW_LAYOUT = 2  # how a setup by another row than npm's keeps what it made (bump when that changes)
HIDDEN_LOCK = ".package-lock.json"
# `peerDependencies` too: a lockfile records them (bun's does), and a frozen install checks package.json against it
KEPT_FIELDS = (
    "name", "version", "type", "dependencies", "devDependencies", "peerDependencies", "peerDependenciesMeta",
    "overrides", "resolutions", "workspaces",
)  # fmt: skip
PNPM_KEPT = ("overrides",)  # of package.json's `pnpm` settings: what pnpm's frozen lockfile is checked against


def package_json(declaration: NodeDeclaration) -> dict[str, Any]:
    """The submission's package.json reduced to what its tool needs to install (no scripts)."""
    doc = json.loads(declaration.package_json)
    kept = {k: doc[k] for k in KEPT_FIELDS if k in doc}
    kept["dependencies"] = {d.name: d.spec for d in declaration.dependencies}
    kept["devDependencies"] = {d.name: d.spec for d in declaration.dev_dependencies}
    pnpm = doc.get("pnpm")
    if declaration.setup_lockfile and isinstance(pnpm, dict) and any(k in pnpm for k in PNPM_KEPT):
        kept["pnpm"] = {k: pnpm[k] for k in PNPM_KEPT if k in pnpm}
    kept["private"] = True
    if not declaration.members:
        kept.pop("workspaces", None)
    return kept


def setup_of(declaration: NodeDeclaration) -> nodesetup.NodeSetup:
    """Which tool sets the project up: the table's row its files chose (npm with none)."""
    doc = json.loads(declaration.package_json)
    manifest = doc if isinstance(doc, dict) else {}
    lockfile = declaration.setup_lockfile or declaration.lockfile or ""
    lock = declaration.setup_lock if declaration.setup_lockfile else declaration.lock_bytes
    return nodesetup.choose(lockfile, lock or b"", manifest, declaration.setup_id, declaration.why, declaration.linker)


def key_parts(declaration: NodeDeclaration, settings: InstallSettings, root: Path | None = None) -> dict[str, object]:
    """What makes two Node environments the same."""
    setup = setup_of(declaration)
    parts: dict[str, object] = {
        "package": package_json(declaration),
        "lock": (declaration.lock_bytes or declaration.setup_lock or b"").decode("utf-8", errors="replace"),
        "setup": [setup.tool, setup.version, "sandbox"],
        "node": node_version(),
        "registry": registry(settings),
    }
    if setup.setup_id not in ("", setup.tool) or setup.linker:  # absent otherwise: earlier keys stay as they were
        parts["row"] = [setup.setup_id, setup.linker, ROW_LAYOUT]
    if declaration.members and root is not None:  # the candidate's own folders the install reads
        parts["members"] = {member: digest(Path(root) / member) for member in declaration.members}
        parts["workspace"] = {
            name: (Path(root) / name).read_text(encoding="utf-8", errors="replace")
            for name in nodesetup.WORKSPACE_FILES
            if (Path(root) / name).is_file() and not (Path(root) / name).is_symlink()
        }
    return parts


def build(
    folder: Path, declaration: NodeDeclaration, settings: InstallSettings, key: str, root: Path | None = None
) -> Manifest:
    """Set `folder/node/node_modules` up with the tool the files name (npm, yarn, pnpm, bun ...), in the
    sandbox, scripts off; raise InstallError with the tool's own last lines."""
    setup = setup_of(declaration)
    started = time.monotonic()
    lock = declaration.setup_lock if declaration.setup_lockfile else declaration.lock_bytes
    evidence = nodesetup.run(
        setup, folder, package_json(declaration), lock or b"", registry(settings), settings,
        root=root, members=declaration.members,
    )  # fmt: skip
    modules = folder / FOLDER / NODE_MODULES
    dev = frozenset(d.name for d in declaration.dev_dependencies)
    packages = installed(modules) if evidence["tool"] == "npm" else nodesetup.installed(modules, dev)
    return Manifest(key, "node", packages, round(time.monotonic() - started, 2), setup=evidence)


def installed(node_modules: Path) -> tuple[tuple[str, str, bool], ...]:
    """(name, version, dev) of every installed package, from npm's hidden lockfile."""
    try:
        doc = json.loads((node_modules / HIDDEN_LOCK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    found = set()
    for path, info in (doc.get("packages") or {}).items():
        if isinstance(info, dict) and "node_modules/" in path and isinstance(info.get("version"), str):
            name = path.rsplit("node_modules/", 1)[1]
            found.add((name, info["version"], bool(info.get("dev"))))
    return tuple(sorted(found))
