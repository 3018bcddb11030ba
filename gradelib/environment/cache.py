"""The environment cache: one folder per distinct dependency set, built once under a lock."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENVS = "envs"
LOCKS = "locks"
MANIFEST = "gradelib-environment.json"
FORMAT = 3  # bump when the layout of a cached environment changes (3: what a setup kept, a project's requires)
KEY_CHARS = 24


def environment_key(ecosystem: str, parts: dict[str, Any]) -> str:
    """A stable key for a dependency set: normalised declaration, lockfile, interpreter, index."""
    blob = json.dumps({"ecosystem": ecosystem, "format": FORMAT, **parts}, sort_keys=True, default=str)
    return f"{ecosystem[:2]}-{hashlib.sha256(blob.encode()).hexdigest()[:KEY_CHARS]}"


@dataclass(frozen=True)
class Manifest:
    """What a finished environment holds: its packages and how long it took to build."""

    key: str
    ecosystem: str
    packages: tuple[tuple[str, str, bool], ...]  # name, version, dev
    seconds: float
    project: dict[str, Any] | None = None  # the submission's own project, installed in the sandbox (pyinstall.py)
    setup: dict[str, Any] | None = None  # the real tool that set it up: name, version, command, network

    def to_json(self) -> str:
        """As stored beside the environment."""
        doc: dict[str, Any] = {"key": self.key, "ecosystem": self.ecosystem, "packages": self.packages,
                               "seconds": self.seconds}  # fmt: skip
        if self.project is not None:
            doc["project"] = self.project
        if self.setup is not None:
            doc["setup"] = self.setup
        return json.dumps(doc, indent=1)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o755)
    return path


def env_folder(cache_dir: Path, key: str) -> Path:
    """Where the environment with this key lives."""
    return Path(cache_dir) / ENVS / key


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest of a finished environment, or None (missing, or an interrupted build)."""
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        packages = tuple((str(n), str(v), bool(d)) for n, v, d in doc["packages"])
        project = dict(doc["project"]) if isinstance(doc.get("project"), dict) else None
        setup = dict(doc["setup"]) if isinstance(doc.get("setup"), dict) else None
        return Manifest(str(doc["key"]), str(doc["ecosystem"]), packages, float(doc["seconds"]), project, setup)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Mark an environment finished (written last, so a half-built one is never used)."""
    readable(folder)
    target = folder / MANIFEST
    partial = target.with_suffix(".partial")
    partial.write_text(manifest.to_json(), encoding="utf-8")
    os.chmod(partial, 0o644)
    partial.rename(target)


def readable(folder: Path) -> None:
    """Everything in the environment readable (and nothing writable) by the sandbox's user, and no
    set-id bit a setup left (what it made is owned by the kit once adopted)."""
    subprocess.run(["chmod", "-R", "a+rX,go-w,ug-s", str(folder)], capture_output=True, check=False)


def adopt(made: Path, target: Path) -> None:
    """Take what a setup made in the sandbox's workspace (another file system) into the cache at `target`,
    which must not exist: one native copy, links kept as links and never followed, modes and times kept
    (compiled bytecode stays valid), owned by the kit. The workspace drops the original with the sandbox.
    Raises OSError with cp's words."""
    if target.exists() or target.is_symlink():
        raise FileExistsError(f"{target} exists")
    argv = ["cp", "-R", "--no-dereference", "--preserve=mode,timestamps,links", "--", str(made), str(target)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OSError(f"could not keep the environment: {done.stderr.strip()[-400:]}")
    readable(target)


def discard(folder: Path) -> None:
    """Remove a folder a setup wrote (however it left its modes), never following a link out of it."""
    if folder.exists() or folder.is_symlink():
        subprocess.run(["chmod", "-R", "u+rwX", str(folder)], capture_output=True, check=False)
        subprocess.run(["rm", "-rf", "--one-file-system", str(folder)], capture_output=True, check=False)


@contextlib.contextmanager
def locked(cache_dir: Path, key: str) -> Iterator[None]:
    """Hold the build lock of one key: parallel gradings of the same dependency set build it once."""
    lock = _mkdir(Path(cache_dir) / LOCKS) / f"{key}.lock"
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fresh_folder(cache_dir: Path, key: str) -> Path:
    """An empty folder for a new build of `key` (what an interrupted build left is removed)."""
    _mkdir(Path(cache_dir) / ENVS)
    os.chmod(Path(cache_dir) / ENVS, 0o755)
    folder = env_folder(cache_dir, key)
    discard(folder)
    folder.mkdir(mode=0o755)
    return folder
