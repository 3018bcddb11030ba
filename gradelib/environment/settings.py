"""How the kit installs declared dependencies: cache folder, indexes, offline, caps."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, replace
from pathlib import Path

ENV_CACHE_DIR = "GRADELIB_CACHE_DIR"
ENV_INDEX_URL = "GRADELIB_INDEX_URL"
ENV_REGISTRY = "GRADELIB_NPM_REGISTRY"
ENV_OFFLINE = "GRADELIB_OFFLINE"
ENV_PYTHON = "GRADELIB_PYTHON"
ENV_BUILD_SOURCE = "GRADELIB_BUILD_SOURCE"
ENV_BUILD_SECONDS = "GRADELIB_BUILD_SECONDS"
SYSTEM_PYTHON = "/usr/bin/python3"  # what the sandbox sees (root's home, pyenv's python, is not there)
MAX_INSTALL_SECONDS = 300.0
MAX_INSTALL_BYTES = 1024**3
MAX_BUILD_SECONDS = 300.0  # one source build, in the sandbox


def default_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """`$GRADELIB_CACHE_DIR`, else `$XDG_CACHE_HOME/gradelib`, else `~/.cache/gradelib`."""
    if environ.get(ENV_CACHE_DIR):
        return Path(environ[ENV_CACHE_DIR]).expanduser().resolve()
    base = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return (base / "gradelib").resolve()


@dataclass(frozen=True)
class InstallSettings:
    """Where environments are cached and which indexes the kit's installers may use.

    `index_url` / `registry` None means the reviewer's own installer configuration
    (by default PyPI and the npm registry). The submission's configuration is never read.
    `build_source` is the reviewer's opt-in to build a package that has no usable wheel
    from its source archive: uv builds it inside the sandbox (`pyinstall.py`).
    """

    cache_dir: Path
    index_url: str | None = None
    registry: str | None = None
    offline: bool = False
    python: str = SYSTEM_PYTHON
    max_seconds: float = MAX_INSTALL_SECONDS
    max_bytes: int = MAX_INSTALL_BYTES
    build_source: bool = False
    build_seconds: float = MAX_BUILD_SECONDS

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> InstallSettings:
        """Settings from GRADELIB_* variables (the CLI sets them, so notebook kernels inherit them)."""
        return cls(
            cache_dir=default_cache_dir(environ),
            index_url=environ.get(ENV_INDEX_URL) or None,
            registry=environ.get(ENV_REGISTRY) or None,
            offline=environ.get(ENV_OFFLINE, "") not in ("", "0"),
            python=environ.get(ENV_PYTHON) or SYSTEM_PYTHON,
            build_source=environ.get(ENV_BUILD_SOURCE, "") not in ("", "0"),
            build_seconds=_seconds(environ.get(ENV_BUILD_SECONDS), MAX_BUILD_SECONDS),
        )

    def with_changes(self, **changes: object) -> InstallSettings:
        """A copy with some fields changed."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def export(self, environ: MutableMapping[str, str]) -> None:
        """Write these settings into an environment (for worker processes and kernels)."""
        environ[ENV_CACHE_DIR] = str(self.cache_dir)
        for key, value in ((ENV_INDEX_URL, self.index_url), (ENV_REGISTRY, self.registry)):
            if value:
                environ[key] = value
            else:
                environ.pop(key, None)
        environ[ENV_OFFLINE] = "1" if self.offline else ""
        environ[ENV_BUILD_SOURCE] = "1" if self.build_source else ""
        environ[ENV_BUILD_SECONDS] = f"{self.build_seconds:g}"


def _seconds(text: str | None, default: float) -> float:
    """A positive number of seconds from an environment variable, else the default."""
    try:
        value = float(text) if text else default
    except ValueError:
        return default
    return value if value > 0 else default
