"""What several commands share: the install options and the settings they give, a flag's stated default."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from gradelib.settings import Settings, current_settings, default_text, setting_for

if TYPE_CHECKING:
    from gradelib.environment import InstallSettings

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # what each command adds itself to
DEFAULT_IN_HELP = "default: "  # how an option's help states its default (the README's table of defaults reads it)
# `grade --jobs`: the batch's default_jobs() is JOBS_PER_CORE x the cores, said here without importing the batch
# (a second, for every command); tests/unit/test_cli_commands.py compares the two
JOBS_DEFAULT = "twice the CPU count"


def _setting_default(field: str) -> str:
    """A flag's default: the variable it overrides, else that setting's own default (the settings table's)."""
    setting = setting_for(field)
    return f"{setting.name}, else {default_text(setting)}"


def install_options(parser: argparse.ArgumentParser) -> None:
    """How declared dependencies are installed (default: the reviewer's own uv / npm configuration)."""
    group = parser.add_argument_group("declared dependencies")
    index, registry, cache = (_setting_default(field) for field in ("index_url", "npm_registry", "cache_dir"))
    group.add_argument("--index-url", help=f"the Python package index to install from (default: {index})")
    group.add_argument("--registry", help=f"the npm registry to install from (default: {registry})")
    group.add_argument("--offline", action="store_true", help="install only from the cache (see `deps fetch`)")
    group.add_argument("--cache-dir", type=Path, help=f"where environments are cached (default: {cache})")
    group.add_argument(
        "--build-source",
        action="store_true",
        help="let uv build a package that has no usable wheel from its sdist, inside the sandbox"
        " (default: wheels only, such a package is refused)",
    )


def flagged(args: argparse.Namespace) -> Settings:
    """The kit's settings with the flags this command line gave applied (their source: "flag")."""
    given = {
        "index_url": getattr(args, "index_url", None),
        "npm_registry": getattr(args, "registry", None),
        "offline": getattr(args, "offline", False),
        "build_source": getattr(args, "build_source", False),
        "cache_dir": args.cache_dir.resolve() if getattr(args, "cache_dir", None) else None,
    }
    return current_settings().with_flags(**{name: value for name, value in given.items() if value})


def install_settings(args: argparse.Namespace) -> InstallSettings:
    """The install settings from the command line, also exported for worker processes and kernels."""
    from gradelib.environment import InstallSettings

    settings = InstallSettings.from_settings(flagged(args))
    settings.export(os.environ)
    return settings


def runs(parser: argparse.ArgumentParser, run: Any, *, passes_on: bool = False) -> None:
    """What the command does (`run(args)`, or `run(args, rest)` for one that reads its own arguments)."""
    parser.set_defaults(run=run, passes_on=passes_on)
