"""The submission's own setup step run (`ownsetup.py` finds it): in the sandbox, at the fixed submission path,
with the environments the tools made and the tools it names, its only network the registry proxy, lifecycle
scripts off, third-party packages as wheels only unless builds were allowed. What it made in its copy (a
`.venv`, `dist/`, generated files) is kept, and every run's copy gets it: dependency folders as links,
everything else as copies (code that reads files beside itself must find them in the run's own copy).
"""

from __future__ import annotations

import dataclasses
import filecmp
import os
import shlex
import stat
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.ownsetup import Step
from gradelib.environment.toolsetup import limits, route, tail, trust_settings
from gradelib.errors import InstallError
from gradelib.sandbox import Sandbox
from gradelib.sandbox.mounts import COPY, LINK, MODULES, NODE_MODULES, OVERLAY, VENV_LINK, Mounts
from gradelib.sandbox.registryproxy import RegistryProxy, registry_hosts

KEPT = "own"  # where what the step made is kept, in its cache folder, as it lay in the copy
# What a step makes that is a store of dependencies, not code: linked into every copy, never copied.
STORES = frozenset(
    {VENV_LINK, "venv", "env", ".nox", ".tox", ".yarn", "__pypackages__", ".pnpm-store", ".cache", ".deno"}
)
MAX_COPIED_BYTES = 32 * 1024 * 1024  # a made folder bigger than this is linked, not copied into every run
ONLINE = {
    "PIP_NO_INDEX": "0", "UV_OFFLINE": "0", "npm_config_offline": "false", "PIP_CONFIG_FILE": "/dev/null",
    "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "npm_config_ignore_scripts": "true",
    "npm_config_update_notifier": "false", "YARN_ENABLE_SCRIPTS": "false", "FLIT_ROOT_INSTALL": "1",
    "COREPACK_ENABLE_STRICT": "0", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
}  # fmt: skip


def run(
    steps: Sequence[Step],
    root: Path,
    folder: Path,
    mounts: Mounts,
    named: Sequence[tools.Provisioned],
    settings: InstallSettings,
    registry: str,
    environments: Sequence[Path] = (),
) -> dict[str, Any]:
    """Run the steps on a copy of the submission at `root`, seeing what `mounts` gives every run and the
    `named` tools; keep what they made under `folder/own`. The kit's `environments` are seen writable
    through an overlay whose writes are dropped (a Makefile's `pip install -r requirements.txt` into the
    active environment is a step a reviewer runs; it changes nothing the runs see). Returns the evidence
    (each command, why, what it made); raises InstallError with the step's own last lines."""
    if settings.offline:
        raise InstallError(
            "setup", f"offline: the submission's own setup `{shlex.join(steps[0].argv)}` needs the index"
        )
    for each in named:
        cache.readable(each.root)
    seen = dataclasses.replace(
        mounts,
        read_only=(*mounts.read_only, *(str(each.root) for each in named)),
        bin_dirs=(*(str(each.bin_dir) for each in named), *mounts.bin_dirs),
        placeholders=(*mounts.placeholders, *((str(each.root), f"<{each.tool.name}>") for each in named)),
        binds=(*mounts.binds, *((str(folder), str(folder), OVERLAY) for folder in environments)),
        stable_paths=True,
    )
    proxy = RegistryProxy(registry_hosts(settings.index_url, registry))
    env = trust_settings() | ONLINE | _indexes(settings, registry)
    started = time.monotonic()
    done: list[dict[str, Any]] = []
    with Sandbox(root, mounts=seen, link_venv=False, disk_bytes=settings.max_bytes) as box:
        copy = box.copy("own-setup")
        placed = _placed(copy, seen)
        services, env = route(proxy, env, None, box)
        for step in steps:
            result = box.run(list(step.argv), copy, env=env | dict(step.env), limits=limits(settings),
                             services=services, log_connections=False)  # fmt: skip
            done.append(step.to_dict() | {"seconds": round(result.duration, 2)})
            if not result.ok:
                refused = proxy.refusals()
                said = f" (the proxy refused: {'; '.join(refused[:3])})" if refused else ""
                raise InstallError(
                    "setup", f"the submission's own setup `{shlex.join(step.argv)}` ({step.why}) {result.status()}: "
                    f"{tail(result)}{said}",
                )  # fmt: skip
        products = [_keep(copy, rel, folder / KEPT) for rel in made(root, copy, placed)]
    return {
        "steps": done, "products": products, "network": proxy.evidence(),
        "seconds": round(time.monotonic() - started, 2),
    }  # fmt: skip


def _indexes(settings: InstallSettings, registry: str) -> dict[str, str]:
    found = {"npm_config_registry": registry} if registry else {}
    if settings.index_url:
        found |= {"PIP_INDEX_URL": settings.index_url, "UV_DEFAULT_INDEX": settings.index_url}
    if not settings.build_source:
        found["PIP_ONLY_BINARY"] = ":all:"
    return found


def _placed(copy: Path, mounts: Mounts) -> dict[str, int]:
    """What the kit put in the copy (node_modules, a setup's products), by path: their inodes, so a step that
    replaced one is told from one that left it alone."""
    found = {}
    for rel in ([NODE_MODULES] if mounts.node_modules else []) + [rel for rel, _p, _h in mounts.products]:
        with_path = copy / rel
        if with_path.is_symlink() or with_path.exists():
            found[rel] = os.lstat(with_path).st_ino
    return found


def made(original: Path, copy: Path, placed: dict[str, int]) -> list[str]:
    """What the steps made or changed in `copy`, relative, compared with the submission at `original`: each
    new folder whole, each new or changed file, never what the kit placed there (left as it was)."""
    found: list[str] = []
    stack = [""]
    while stack:
        here = stack.pop()
        try:
            entries = sorted(os.scandir(copy / here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            rel = f"{here}/{entry.name}" if here else entry.name
            if placed.get(rel) == entry.inode():
                continue
            before = original / rel
            mode = entry.stat(follow_symlinks=False).st_mode
            if not (before.exists() or before.is_symlink()):
                found.append(rel)
            elif stat.S_ISDIR(mode) and before.is_dir() and not before.is_symlink():
                stack.append(rel)
            elif stat.S_ISREG(mode) and before.is_file() and not before.is_symlink():
                if not filecmp.cmp(entry.path, before, shallow=False):
                    found.append(rel)
            elif stat.S_IFMT(mode) != stat.S_IFMT(os.lstat(before).st_mode):
                found.append(rel)
    return sorted(found)


def _keep(copy: Path, rel: str, kept: Path) -> dict[str, str]:
    """Keep one thing the steps made, and say how every copy gets it."""
    made_at = copy / rel
    target = kept / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    cache.adopt(made_at, target)
    name = Path(rel).name
    if name == NODE_MODULES and target.is_dir():
        how = MODULES
    elif target.is_dir() and not target.is_symlink() and (name in STORES or _size(target) > MAX_COPIED_BYTES):
        how = LINK
    else:
        how = COPY
    return {"path": rel, "how": how}


def _size(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            total += os.lstat(os.path.join(dirpath, name)).st_size
            if total > MAX_COPIED_BYTES:
                return total
    return total
