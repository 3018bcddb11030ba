"""Node environments: `node_modules` installed by npm from the lockfile, lifecycle scripts never run."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from gradelib.environment import nodesetup
from gradelib.environment.cache import Manifest
from gradelib.environment.capped import run_capped, size_text
from gradelib.environment.declaration import NodeDeclaration
from gradelib.environment.npm import node_version, npm_binary, registry
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox.mounts import NODE_MODULES

FOLDER = "node"
HIDDEN_LOCK = ".package-lock.json"
NPM_ERROR = re.compile(r"^npm (error|ERR!) (?!A complete log|Log files|\s*$)(.*)", re.M)
KEPT_FIELDS = ("name", "version", "dependencies", "devDependencies", "overrides", "resolutions")
PNPM_KEPT = ("overrides",)  # of package.json's `pnpm` settings: what pnpm's frozen lockfile is checked against


def package_json(declaration: NodeDeclaration) -> dict[str, Any]:
    """The submission's package.json reduced to what npm needs to install (no scripts, no workspaces)."""
    doc = json.loads(declaration.package_json)
    kept = {k: doc[k] for k in KEPT_FIELDS if k in doc}
    kept["dependencies"] = {d.name: d.spec for d in declaration.dependencies}
    kept["devDependencies"] = {d.name: d.spec for d in declaration.dev_dependencies}
    pnpm = doc.get("pnpm")
    if declaration.setup_lockfile and isinstance(pnpm, dict) and any(k in pnpm for k in PNPM_KEPT):
        kept["pnpm"] = {k: pnpm[k] for k in PNPM_KEPT if k in pnpm}
    kept["private"] = True
    return kept


def setup_of(declaration: NodeDeclaration) -> nodesetup.NodeSetup | None:
    """Which tool sets the project up from its yarn or pnpm lockfile (None: npm, on the host)."""
    if not declaration.setup_lockfile or declaration.setup_lock is None:
        return None
    doc = json.loads(declaration.package_json)
    return nodesetup.choose(declaration.setup_lockfile, declaration.setup_lock, doc if isinstance(doc, dict) else {})


def key_parts(declaration: NodeDeclaration, settings: InstallSettings) -> dict[str, object]:
    """What makes two Node environments the same."""
    return {
        "package": package_json(declaration),
        "lock": (declaration.lock_bytes or declaration.setup_lock or b"").decode("utf-8", errors="replace"),
        "setup": [setup.tool, setup.version] if (setup := setup_of(declaration)) else None,
        "node": node_version(),
        "registry": registry(settings),
    }


def build(folder: Path, declaration: NodeDeclaration, settings: InstallSettings, key: str) -> Manifest:
    """Install `folder/node/node_modules` with npm (scripts off), or set it up with the yarn or pnpm its
    lockfile names (in the sandbox); raise InstallError."""
    setup = setup_of(declaration)
    if setup is not None:
        started = time.monotonic()
        evidence = nodesetup.run(
            setup, folder, package_json(declaration), declaration.setup_lock or b"", registry(settings), settings
        )
        dev = frozenset(d.name for d in declaration.dev_dependencies)
        packages = nodesetup.installed(folder / FOLDER / NODE_MODULES, dev)
        return Manifest(key, "node", packages, round(time.monotonic() - started, 2), setup=evidence)
    work = folder / FOLDER
    work.mkdir()
    (work / "package.json").write_text(json.dumps(package_json(declaration), indent=2))
    if declaration.lockfile and declaration.lock_bytes is not None:
        (work / declaration.lockfile).write_bytes(declaration.lock_bytes)
        argv = [npm_binary(), "ci"]
    else:
        argv = [npm_binary(), "install", "--no-package-lock"]
    argv += [
        "--ignore-scripts", "--include=dev", "--no-audit", "--no-fund", "--no-update-notifier",
        "--loglevel=error", "--registry", registry(settings),
    ]  # fmt: skip
    argv.append("--offline" if settings.offline else "--prefer-offline")
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
    env |= {"npm_config_ignore_scripts": "true", "NODE_ENV": "development"}
    env.update({k: v for k, v in os.environ.items() if k.lower() in ("npm_config_userconfig", "npm_config_cache")})
    done = run_capped(argv, cwd=work, env=env, watch=folder, max_seconds=settings.max_seconds,
                      max_bytes=settings.max_bytes)  # fmt: skip
    if done.over_time:
        raise InstallError("node", f"npm took longer than {settings.max_seconds:.0f} s: stopped")
    if done.over_size:
        raise InstallError("node", f"node_modules grew past {size_text(settings.max_bytes)}: stopped")
    if done.code != 0:
        raise InstallError("node", _reason(done.output, offline=settings.offline))
    return Manifest(key, "node", installed(work / NODE_MODULES), round(done.seconds, 2))


def _reason(output: str, *, offline: bool) -> str:
    said = [m.group(2).strip() for m in NPM_ERROR.finditer(output)]
    text = " ".join(s for s in said if s)[:600] or (output.strip().splitlines() or ["npm failed"])[-1][:300]
    if not offline and re.search(r"(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|network)", output):
        text += " (registry unreachable?)"
    return text


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
