"""How the kit installs declared dependencies: cache folder, indexes, offline, caps."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, replace
from pathlib import Path

from gradelib.settings import DEFAULT_INSTALL_SECONDS, ENV_NPM_REGISTRY, SYSTEM_PYTHON, Settings, current_settings, load
from gradelib.settings import ENV_BUILD_SOURCE as ENV_BUILD_SOURCE
from gradelib.settings import ENV_CACHE_DIR as ENV_CACHE_DIR
from gradelib.settings import ENV_INDEX_URL as ENV_INDEX_URL
from gradelib.settings import ENV_INSTALL_SECONDS as ENV_INSTALL_SECONDS
from gradelib.settings import ENV_OFFLINE as ENV_OFFLINE

ENV_REGISTRY = ENV_NPM_REGISTRY
MAX_INSTALL_SECONDS = DEFAULT_INSTALL_SECONDS
MAX_INSTALL_BYTES = 1024**3


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

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> InstallSettings:
        """Settings from GRADELIB_* variables (the CLI sets them, so notebook kernels inherit them)."""
        return cls.from_settings(current_settings() if environ is None else load(environ))

    @classmethod
    def from_settings(cls, settings: Settings) -> InstallSettings:
        """The install settings among the kit's settings."""
        return cls(
            cache_dir=settings.cache_dir.resolve(),
            index_url=settings.index_url,
            registry=settings.npm_registry,
            offline=settings.offline,
            python=str(settings.python),
            build_source=settings.build_source,
            max_seconds=settings.install_seconds,
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
        environ[ENV_INSTALL_SECONDS] = f"{self.max_seconds:g}"

    def environment(self) -> dict[str, str]:
        """These settings as the variables `export` writes."""
        environ: dict[str, str] = {}
        self.export(environ)
        return environ
