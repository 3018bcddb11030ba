"""The package managers candidates set their projects up with, as the real tools: one table of pinned
versions, each provisioned from the configured registries into the kit's cache on first use and kept
there (never from a submission). A version a project pins (`packageManager`, `requires-poetry`, uv's
`required-version`) is provisioned instead when it is a plain version the registry has.

uv is the kit's own (a dependency of the kit; another version a project asks for comes from PyPI); the
others come from PyPI (into a virtual environment of their own, made by uv) or the npm registry (by the
grading machine's npm, which comes with Node, lifecycle scripts off: npm itself too).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from gradelib.environment import cache, npm, tooltable
from gradelib.environment.capped import Capped, run_capped
from gradelib.environment.installsettings import InstallSettings
from gradelib.environment.tooltable import Tool
from gradelib.environment.uvtool import index_options, reason, uv_binary, uv_environment
from gradelib.errors import InstallError

FOLDER = "tools"
VERSION = re.compile(r"^[0-9]+(\.[0-9A-Za-z]+){0,3}([-+.][0-9A-Za-z.]+)?$")  # a release, never a URL or a range
MAX_VERSION_CHARS = 40
TOOL_BYTES = 512 * 1024 * 1024  # what one tool's folder may grow to while it is provisioned
COMMANDS = "commands"  # a Python tool's own commands, linked, for PATH


# The one table of versions (`tooltable.toml`). Raising one is a change to the kit, tested like any other.
TOOLS: Mapping[str, Tool] = tooltable.tools()


@dataclass(frozen=True)
class Provisioned:
    """A tool ready to run: its version and the folder its commands are in (for PATH)."""

    tool: Tool
    version: str
    bin_dir: Path
    root: Path  # the folder the sandbox mounts read-only for it

    def command(self, name: str | None = None) -> Path:
        """The path of one of its commands (its first by default)."""
        return self.bin_dir / (name or self.tool.commands[0])


def tool_folder(settings: InstallSettings, tool: Tool, version: str) -> Path:
    """Where a tool's version is kept in the kit's cache (with the day its dependencies were resolved at,
    when the table pins one: a copy resolved otherwise is another folder)."""
    pinned = f"-deps-{as_released(tool)}" if version == tool.version and tool.released else ""
    return settings.cache_dir / FOLDER / f"{tool.name}-{version}{pinned}"


def provision(name: str, settings: InstallSettings, version: str | None = None) -> Provisioned:
    """The tool, from the cache or provisioned into it now; InstallError (with the installer's own last
    lines) when it cannot be: an unknown tool, a version that is not a plain release, a registry that
    does not have it, or offline with nothing cached."""
    tool = TOOLS.get(name)
    if tool is None:
        raise InstallError("tools", f"the kit has no tool named {name!r}; it knows {', '.join(sorted(TOOLS))}")
    wanted = version or tool.version
    if len(wanted) > MAX_VERSION_CHARS or not VERSION.match(wanted):
        raise InstallError("tools", f"{name} {wanted[:MAX_VERSION_CHARS]!r} is not a release version")
    if tool.ecosystem == "kit" and wanted == tool.version:
        return _kit_tool(tool, wanted, settings)
    folder = tool_folder(settings, tool, wanted)
    found = _ready(tool, wanted, folder)
    if found is not None:
        return found
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        _install(tool, wanted, work, settings)
        cache.readable(work)  # every run's user reads it (the folder was made private)
        if not os.access(command_file(tool, work, tool.commands[0]), os.X_OK):
            raise InstallError("tools", f"{name} {wanted} installed, but without its command {tool.commands[0]}")
        try:
            work.rename(folder)  # whole or not at all; another process may have been first
        except OSError:
            if _ready(tool, wanted, folder) is None:
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = _ready(tool, wanted, folder)
    if found is None:
        raise InstallError("tools", f"{name} {wanted} could not be kept in {folder.parent}")
    return found


def bin_dir(tool: Tool, folder: Path) -> Path:
    """The folder a provisioned tool's commands are in, inside its folder."""
    return folder / ("node_modules/.bin" if tool.ecosystem == "node" else "bin")


def command_file(tool: Tool, folder: Path, command: str) -> Path:
    """Where one of the tool's commands is, inside its folder: a binary the package ships, or its bin entry."""
    if command in tool.links:
        return folder / tool.links[command]
    return bin_dir(tool, folder) / command


def _ready(tool: Tool, version: str, folder: Path) -> Provisioned | None:
    """The provisioned tool in `folder`, or None when it is not (or not whole) there."""
    if not all(os.access(command_file(tool, folder, command), os.X_OK) for command in tool.commands[:1]):
        return None
    if folder.stat().st_mode & 0o005 != 0o005:  # kept private by an older kit: the sandbox's user reads it too
        cache.readable(folder)
    if _from_pypi(tool, version) or tool.links:
        return Provisioned(tool, version, _commands_only(tool, folder), folder)
    return Provisioned(tool, version, bin_dir(tool, folder), folder)


def _commands_only(tool: Tool, folder: Path) -> Path:
    """A folder holding links to the tool's own commands only, for PATH: its environment's bin also has
    `python` and its dependencies' scripts, which must never stand in for the submission's (and a binary a
    package ships has no bin entry at all)."""
    commands = folder / COMMANDS
    if all((commands / name).is_symlink() for name in tool.commands):
        return commands
    work = Path(tempfile.mkdtemp(prefix=".commands-", dir=folder))
    try:
        for name in tool.commands:
            (work / name).symlink_to(Path("..") / command_file(tool, folder, name).relative_to(folder))
        os.chmod(work, 0o755)  # noqa: S103 - read by the sandbox's user, as every tool folder is
        try:
            work.rename(commands)
        except OSError:
            if not commands.is_dir():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return commands


def _from_pypi(tool: Tool, version: str) -> bool:
    """Provisioned from PyPI into an environment of its own: a Python tool, or uv at a version other than
    the kit's own (a project's `required-version`)."""
    return tool.ecosystem == "python" or (tool.ecosystem == "kit" and version != tool.version)


def as_released(tool: Tool) -> str:
    """The day after `tool.released` (`2026-10-28`): what uv's --exclude-newer resolves its dependencies at."""
    return (date.fromisoformat(tool.released) + timedelta(days=1)).isoformat()


def _kit_tool(tool: Tool, wanted: str, settings: InstallSettings) -> Provisioned:
    """The kit's own copy (uv, installed with the kit) when it is the pinned version, copied alone into
    the tools folder: the sandbox sees that binary, never the kit's environment beside it."""
    folder = tool_folder(settings, tool, wanted)
    found = _ready(tool, wanted, folder)
    if found is not None:
        return found
    binary = Path(uv_binary())
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False, timeout=30)
    have = done.stdout.split()[1] if done.returncode == 0 and len(done.stdout.split()) > 1 else "?"
    if have != wanted:
        raise InstallError("tools", f"{tool.name} {wanted} is pinned, but the kit has {have} ({binary}): ./dev setup")
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        (work / "bin").mkdir()
        shutil.copy2(binary, work / "bin" / "uv")
        os.chmod(work, 0o755)  # noqa: S103 - read by the sandbox's user, as every tool folder is
        try:
            work.rename(folder)
        except OSError:
            if _ready(tool, wanted, folder) is None:
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _ready(tool, wanted, folder) or Provisioned(tool, wanted, folder / "bin", folder)


def _run(argv: list[str], env: Mapping[str, str], work: Path, settings: InstallSettings) -> Capped:
    return run_capped(argv, cwd=work, env=env, watch=work, max_seconds=settings.max_seconds, max_bytes=TOOL_BYTES)


def _install(tool: Tool, version: str, work: Path, settings: InstallSettings) -> None:
    if _from_pypi(tool, version):  # relocatable: made in a temporary folder, then renamed into place whole
        uv, env = uv_binary(), uv_environment()
        made = _run(
            [uv, "venv", "--quiet", "--relocatable", "--python", settings.python, str(work)], env, work, settings
        )
        if made.code == 0:
            spec = f"{tool.package}=={version}"
            python = str(work / "bin" / "python")
            argv = [uv, "pip", "install", "--quiet", "--python", python, *index_options(settings), spec]
            argv += ["--exclude-newer", as_released(tool)] if version == tool.version and tool.released else []
            made = _run(argv, env, work, settings)
        if made.over_time:
            raise InstallError("tools", f"{tool.name} {version}: took longer than {settings.max_seconds:g} s: stopped")
        if made.code != 0:
            raise InstallError("tools", f"{tool.name} {version}: {reason(made.output, offline=settings.offline)}")
        return
    argv = [
        npm.npm_binary(), "install", "--prefix", str(work), "--ignore-scripts", "--no-audit", "--no-fund",
        "--no-update-notifier", "--loglevel=error", "--registry", npm.registry(settings),
        "--offline" if settings.offline else "--prefer-offline", f"{tool.package}@{version}",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.lower().startswith("npm_config_")}
    done = _run(argv, {**env, "npm_config_ignore_scripts": "true"}, work, settings)
    if done.over_time:
        raise InstallError("tools", f"{tool.name} {version}: took longer than {settings.max_seconds:g} s: stopped")
    if done.code != 0:
        last = [line for line in done.output.strip().splitlines() if line.strip()][-3:]
        raise InstallError("tools", f"{tool.name} {version}: {' '.join(last)[:600] or 'npm failed'}")
