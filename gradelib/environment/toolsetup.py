"""One setup command of a real package manager, run in the sandbox whose only network is the registry
proxy: the kit's pinned copy of the tool mounted read-only and first on PATH, the machine's own CA
files trusted, the workspace's disk cap, and what the command made handed back to the caller before
the sandbox is gone. Every other destination the command tries is refused and listed.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools
from gradelib.environment.capped import size_text
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox import Limits, Sandbox
from gradelib.sandbox.mounts import STABLE_ENV, WRITABLE, Mounts
from gradelib.sandbox.registryproxy import RegistryProxy, registry_hosts

SETUP_MEMORY_BYTES = 3 * 1024**3
ERROR_LINES = 6
# A tool's own summary of what failed (uv's "\u00d7 Failed to build `x==1`"), and a Python exception it passes
# on (a build backend's `ValueError: Unable to determine which files ...`), which it often follows with lines
# of advice: said first.
HEADLINE = re.compile("^(\u00d7|error:|ERROR:)\\s")
EXCEPTION = re.compile(r"^\s*[│|]?\s*\w*(Error|Exception): \S")
TRUST_VARIABLES = (
    "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT", "CURL_CA_BUNDLE",
)  # fmt: skip
SYSTEM_TRUST = ("/etc/", "/usr/")
NO_SPACE = "No space left on device"  # the setup's workspace is capped: that cap is what a tool ran into
ENV_OUT = "env"  # the folder a tool's environment is made in, seen at STABLE_ENV during the setup

# What the caller takes from the finished setup: (the copy it ran in, the environment folder or None).
Collect = Callable[[Path, "Path | None"], None]


def trust_settings(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The grading machine's certificate authorities, as its own variables name them (a machine behind a
    TLS-inspecting proxy trusts its CA this way), when they are system files the sandbox sees too."""
    return {
        name: value
        for name in TRUST_VARIABLES
        if (value := environ.get(name, "")) and value.startswith(SYSTEM_TRUST) and ".." not in value
    }


def run(
    provisioned: tools.Provisioned,
    source: Path,
    commands: list[list[str]],
    env: Mapping[str, str],
    settings: InstallSettings,
    registry: str,
    collect: Collect,
    *,
    ecosystem: str,
    doing: str = "",
    stable: bool = False,
    env_at: str | None = None,
    inputs: Path | None = None,
    optional: int = 0,
    direct: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Run `commands`, one by one, on a copy of `source`; `collect` takes what they made.

    With `stable`, the copy is seen at the sandbox's fixed submission path and an empty folder at
    STABLE_ENV (or `env_at`) is the tool's to fill, where every later run sees it. With `env_at` alone,
    that folder is seen at `env_at` (the environment's final path, where runs see it read-only) and the
    copy where it is. `inputs` is a folder of the kit's (a requirements file) seen read-only at its own
    path. The last `optional` commands may fail: their last lines are kept under `failed`, the setup
    goes on. `doing` follows "could not set the project up" in an error (` from yarn.lock`). `direct`,
    the variables that stop the tool from using the proxy for a registry (yarn 1 opens a tunnel per
    request), sends it to the registries' passages instead (`RegistryProxy.passages`), `NO_PROXY` naming
    them; where the sandbox has no namespaces of its own it keeps the proxy. Returns the network account
    and the time taken; raises InstallError with the tool's own last lines."""
    tool_root = provisioned.root
    cache.readable(tool_root)
    mounts = Mounts(
        read_only=(str(tool_root), *([str(inputs)] if inputs else [])),
        placeholders=((str(tool_root), f"<{provisioned.tool.name}>"),),
        bin_dirs=(str(provisioned.bin_dir),),
        stable_paths=stable,
    )
    proxy = RegistryProxy(registry_hosts(settings.index_url, registry))
    name = f"{provisioned.tool.commands[0]} {provisioned.version}"
    started = time.monotonic()
    with Sandbox(source, mounts=mounts, link_venv=False, disk_bytes=settings.max_bytes) as box:
        copy = box.copy("setup")
        where = env_at or (STABLE_ENV if stable else None)
        out = box.output_folder(copy, ENV_OUT) if where else None
        if out is not None and where is not None:
            box.mounts = dataclasses.replace(mounts, binds=((str(out), where, WRITABLE),))
            if not box.isolate:
                raise InstallError(ecosystem, f"{name} needs the sandbox's namespaces to set the project up")
        failed = []
        services, run_env = [proxy.service()], trust_settings() | dict(env)
        if direct is not None and box.isolate:  # the sandbox's resolver is the kit's: it names the passages
            passages = proxy.passages()
            names = ",".join(name for passage in passages for name in passage.names)
            services += passages
            run_env |= dict(direct) | {"NO_PROXY": names, "no_proxy": names}
        for number, argv in enumerate(commands):
            # the proxy keeps the network's account: no strace, which stops a tool at every socket write
            result = box.run(argv, copy, env=run_env, limits=_limits(settings), services=services,
                             log_connections=False)  # fmt: skip
            if not result.ok and not result.timed_out and number >= len(commands) - optional:
                failed.append({"command": " ".join(argv), "tail": _tail(result)})
            elif not result.ok:
                break
        network = proxy.evidence()
        if result.timed_out:
            raise InstallError(ecosystem, f"{name} took longer than {settings.max_seconds:.0f} s: stopped")
        if not result.ok and (result.disk_limit_hit or NO_SPACE in f"{result.stdout}{result.stderr}"):
            raise InstallError(ecosystem, f"{name}: the setup grew past {size_text(settings.max_bytes)}: stopped")
        if not result.ok and not failed:
            refused = [str(item) for item in network.get("refused") or ()]  # type: ignore[attr-defined]
            also = f" (the proxy refused: {'; '.join(refused[:3])})" if refused else ""
            raise InstallError(ecosystem, f"{name} could not set the project up{doing}: {_tail(result)}{also}")
        collect(copy, out)
    done = {"seconds": round(time.monotonic() - started, 2), "network": network}
    return done | ({"failed": failed} if failed else {})


def _limits(settings: InstallSettings) -> Limits:
    return Limits(
        wall_seconds=settings.max_seconds, cpu_seconds=int(settings.max_seconds) + 1,
        memory_bytes=SETUP_MEMORY_BYTES, file_bytes=256 * 1024**2, processes=512, open_files=4096,
    )  # fmt: skip


def _tail(result: Any) -> str:
    """The tool's own last lines, after its headline and the exception it passed on (when further up)."""
    lines = [line.strip() for line in f"{result.stdout}\n{result.stderr}".splitlines() if line.strip()]
    last = lines[-ERROR_LINES:]
    raised = [line.strip(" |│") for line in lines[:-ERROR_LINES] if EXCEPTION.match(line) or HEADLINE.match(line)][-3:]
    return " | ".join([*raised, *last])[-1200:] or f"it printed nothing ({result.status()})"
