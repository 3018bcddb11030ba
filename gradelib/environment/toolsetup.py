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
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from gradelib.environment import cache, tools
from gradelib.environment.capped import size_text
from gradelib.environment.installsettings import InstallSettings
from gradelib.errors import InstallError
from gradelib.sandbox import Limits, RunResult, Sandbox, Service
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
# A setup command, or a step that names its command from what the earlier ones made (None: nothing to run).
Step = list[str] | Callable[[Path, "Path | None"], "list[str] | None"]


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
    commands: Sequence[Step],
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
    may_fail: Collection[int] = (),
    direct: Mapping[str, str] | None = None,
    checks: Sequence[Sequence[str]] = (),
    also: Sequence[tools.Provisioned] = (),
) -> dict[str, Any]:
    """Run `commands`, one by one, on a copy of `source`; `collect` takes what they made.

    With `stable`, the copy is seen at the sandbox's fixed submission path and an empty folder at
    STABLE_ENV (or `env_at`) is the tool's to fill, where every later run sees it. With `env_at` alone,
    that folder is seen at `env_at` (the environment's final path, where runs see it read-only) and the
    copy where it is. `inputs` is a folder of the kit's (a requirements file) seen read-only at its own
    path. The commands whose indexes are in `may_fail` may fail: their last lines are kept under
    `failed`, the setup goes on. A step may be a function of (the copy, the environment folder) that
    names its command from what the earlier ones made (None: it has nothing to run). `doing` follows
    "could not set the project up" in an error (` from yarn.lock`). `direct`, the variables that stop
    the tool from using the proxy for a registry (yarn 1 opens a tunnel per request), sends it to the
    registries' passages instead (`RegistryProxy.passages`), `NO_PROXY` naming them; where the sandbox
    has no namespaces of its own it keeps the proxy. `checks`, the tool's own consistency check, run
    after the commands: one that fails is an InstallError in its words. `also`, other tools the
    commands use (on PATH after the tool). Returns the network account and the time taken; raises
    InstallError with the tool's own last lines."""
    mounts = _mounts(provisioned, also, inputs, stable)
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
        services, run_env = route(proxy, trust_settings() | dict(env), direct, box)
        failed, stopped = _steps(box, copy, out, commands, run_env, services, settings, may_fail)
        network = proxy.evidence()
        if stopped is not None:
            raise InstallError(ecosystem, _why_stopped(stopped, network, f"{name}", doing, settings))
        checked = _checked(box, copy, checks, run_env, settings, name, ecosystem)
        collect(copy, out)
    done = {"seconds": round(time.monotonic() - started, 2), "network": network}
    return done | ({"failed": failed} if failed else {}) | ({"checked": checked} if checked else {})


def _mounts(
    provisioned: tools.Provisioned, also: Sequence[tools.Provisioned], inputs: Path | None, stable: bool
) -> Mounts:
    """The tool (and the others its commands use) read-only and first on PATH; the kit's inputs read-only."""
    for each in (provisioned, *also):
        cache.readable(each.root)
    every = (provisioned, *also)
    return Mounts(
        read_only=(*(str(each.root) for each in every), *([str(inputs)] if inputs else [])),
        placeholders=tuple((str(each.root), f"<{each.tool.name}>") for each in every),
        bin_dirs=tuple(str(each.bin_dir) for each in every),
        stable_paths=stable,
    )


def route(
    proxy: RegistryProxy, env: dict[str, str], direct: Mapping[str, str] | None, box: Sandbox
) -> tuple[list[Service], dict[str, str]]:
    """The setup's way out: the registry proxy, and the registries' passages for a tool sent to them."""
    services = [proxy.service()]
    if direct is not None and box.isolate:  # the sandbox's resolver is the kit's: it names the passages
        passages = proxy.passages()
        names = ",".join(name for passage in passages for name in passage.names)
        services += passages
        env |= dict(direct) | {"NO_PROXY": names, "no_proxy": names}
    return services, env


def _steps(
    box: Sandbox,
    copy: Path,
    out: Path | None,
    commands: Sequence[Step],
    env: Mapping[str, str],
    services: Sequence[Service],
    settings: InstallSettings,
    may_fail: Collection[int],
) -> tuple[list[dict[str, Any]], RunResult | None]:
    """Run the steps in order: (the failures let pass, the run whose failure ends the setup or None)."""
    failed: list[dict[str, Any]] = []
    for number, step in enumerate(commands):
        argv = step(copy, out) if callable(step) else step
        if argv is None:
            continue
        # the proxy keeps the network's account: no strace, which stops a tool at every socket write
        result = box.run(argv, copy, env=env, limits=limits(settings), services=services, log_connections=False)
        if not result.ok and not result.timed_out and number in may_fail:
            failed.append({"command": " ".join(argv), "tail": tail(result), "step": number})
        elif not result.ok:
            return failed, result
    return failed, None


def _why_stopped(
    stopped: RunResult, network: Mapping[str, Any], name: str, doing: str, settings: InstallSettings
) -> str:
    """Why the setup stopped, in the tool's own last lines (and what the proxy refused it)."""
    if stopped.timed_out:
        return f"{name} took longer than {settings.max_seconds:.0f} s: stopped"
    if stopped.disk_limit_hit or NO_SPACE in f"{stopped.stdout}{stopped.stderr}":
        return f"{name}: the setup grew past {size_text(settings.max_bytes)}: stopped"
    refused = [str(item) for item in network.get("refused") or ()]
    said = f" (the proxy refused: {'; '.join(refused[:3])})" if refused else ""
    return f"{name} could not set the project up{doing}: {tail(stopped)}{said}"


def _checked(
    box: Sandbox, copy: Path, checks: Sequence[Sequence[str]], env: Mapping[str, str], settings: InstallSettings,
    name: str, ecosystem: str,
) -> list[str]:  # fmt: skip
    """The tool's own consistency check, run once the setup is done: InstallError in its words when it fails."""
    checked = []
    for check in checks:
        result = box.run(list(check), copy, env=env, limits=limits(settings), log_connections=False)
        if not result.ok:
            shown = " ".join(check)
            raise InstallError(
                ecosystem, f"{name} set the project up, but `{shown}` says it is not whole: {tail(result)}"
            )
        checked.append(" ".join(check))
    return checked


def limits(settings: InstallSettings) -> Limits:
    """A setup command's limits: the setup's time, generous memory, processes and files."""
    return Limits(
        wall_seconds=settings.max_seconds, cpu_seconds=int(settings.max_seconds) + 1,
        memory_bytes=SETUP_MEMORY_BYTES, file_bytes=256 * 1024**2, processes=512, open_files=4096,
    )  # fmt: skip


def tail(result: Any) -> str:
    """The tool's own last lines, after its headline and the exception it passed on (when further up)."""
    lines = [line.strip() for line in f"{result.stdout}\n{result.stderr}".splitlines() if line.strip()]
    last = lines[-ERROR_LINES:]
    raised = [line.strip(" |│") for line in lines[:-ERROR_LINES] if EXCEPTION.match(line) or HEADLINE.match(line)][-3:]
    return " | ".join([*raised, *last])[-1200:] or f"it printed nothing ({result.status()})"
