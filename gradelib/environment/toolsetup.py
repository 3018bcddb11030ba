"""One setup command of a real package manager, run in the sandbox whose only network is the registry
proxy: the kit's pinned copy of the tool mounted read-only and first on PATH, the machine's own CA
files trusted, the workspace's disk cap, and what the command made handed back to the caller before
the sandbox is gone. Every other destination the command tries is refused and listed.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox import Limits, Sandbox
from gradelib.sandbox.mounts import STABLE_ENV, WRITABLE, Mounts
from gradelib.sandbox.registryproxy import RegistryProxy, registry_hosts

SETUP_MEMORY_BYTES = 3 * 1024**3
ERROR_LINES = 6
TRUST_VARIABLES = (
    "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT", "CURL_CA_BUNDLE",
)  # fmt: skip
SYSTEM_TRUST = ("/etc/", "/usr/")
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
) -> dict[str, Any]:
    """Run `commands`, one by one, on a copy of `source`; `collect` takes what they made.

    With `stable`, the copy is seen at the sandbox's fixed submission path and an empty folder at
    STABLE_ENV is the tool's to fill (both where every later run sees them). `doing` follows "could
    not set the project up" in an error (` from yarn.lock`). Returns the network account and the time
    taken; raises InstallError with the tool's own last lines."""
    tool_root = provisioned.root
    cache.readable(tool_root)
    mounts = Mounts(
        read_only=(str(tool_root),),
        placeholders=((str(tool_root), f"<{provisioned.tool.name}>"),),
        bin_dirs=(str(provisioned.bin_dir),),
        stable_paths=stable,
    )
    limits = Limits(
        wall_seconds=settings.max_seconds, cpu_seconds=int(settings.max_seconds) + 1,
        memory_bytes=SETUP_MEMORY_BYTES, file_bytes=256 * 1024**2, processes=512, open_files=4096,
    )  # fmt: skip
    proxy = RegistryProxy(registry_hosts(settings.index_url, registry))
    name = f"{provisioned.tool.commands[0]} {provisioned.version}"
    started = time.monotonic()
    with Sandbox(source, mounts=mounts, link_venv=False, disk_bytes=settings.max_bytes) as box:
        copy = box.copy("setup")
        out = box.output_folder(copy, ENV_OUT) if stable else None
        if out is not None:
            box.mounts = dataclasses.replace(mounts, binds=((str(out), STABLE_ENV, WRITABLE),))
            if not box.isolate:
                raise InstallError(ecosystem, f"{name} needs the sandbox's namespaces to set the project up")
        for argv in commands:
            result = box.run(argv, copy, env=trust_settings() | dict(env), limits=limits, services=[proxy.service()])
            if not result.ok:
                break
        network = proxy.evidence()
        if result.timed_out:
            raise InstallError(ecosystem, f"{name} took longer than {settings.max_seconds:.0f} s: stopped")
        if not result.ok:
            refused = [str(item) for item in network.get("refused") or ()]  # type: ignore[attr-defined]
            also = f" (the proxy refused: {'; '.join(refused[:3])})" if refused else ""
            raise InstallError(ecosystem, f"{name} could not set the project up{doing}: {_tail(result)}{also}")
        collect(copy, out)
    return {"seconds": round(time.monotonic() - started, 2), "network": network}


def _tail(result: Any) -> str:
    lines = [line.strip() for line in f"{result.stdout}\n{result.stderr}".splitlines() if line.strip()]
    return " | ".join(lines[-ERROR_LINES:])[-1200:] or f"it printed nothing ({result.status()})"
