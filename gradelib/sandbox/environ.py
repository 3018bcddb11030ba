"""The environment every sandboxed command starts from, and the system tools the sandbox uses."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gradelib.settings import ENV_NO_NAMESPACES

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
ENV_FORCE_NO_NAMESPACES = ENV_NO_NAMESPACES
LIBFAKETIME_GLOBS = ("/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1")
# Set only for the command itself, after the kit's wrappers (strace, setpriv) have run: a preloaded
# library such as libfaketime would otherwise start inside them, as root, and own its shared memory.
LATE_ENV_PREFIXES = ("LD_", "FAKETIME")
# Under strace the command runs as a child of this wrapper, which reports its exit status on fd 3
# (see nsinit.supervise); the command itself never sees fd 3.
EXIT_REPORTER = '"$@" 3>&-; code=$?; echo "$code" >&3; exit "$code"'
OFFLINE_TOOLS = {
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    "npm_config_offline": "true",
    "UV_OFFLINE": "1",
    "DO_NOT_TRACK": "1",
    "YARN_ENABLE_TELEMETRY": "0",
}


def libfaketime() -> str | None:
    """Path of libfaketime on this machine, if installed."""
    for pattern in LIBFAKETIME_GLOBS:
        found = sorted(Path("/").glob(pattern.lstrip("/")))
        if found:
            return str(found[0])
    return None


def base_environment(home: Path, tmp: Path) -> dict[str, str]:
    """The scrubbed environment every sandboxed command starts from (nothing of the reviewer's)."""
    return {
        "PATH": SANDBOX_PATH,
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "USER": "candidate",
        "LOGNAME": "candidate",
        "LANG": "C.UTF-8",
        "TZ": "UTC",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NO_COLOR": "1",
        # Packages are installed before the run; a `pip install` in run.sh must not reach for an index.
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
        # Nor do npm's update notifier, its audit and funding calls, or tools' telemetry: offline is the rule,
        # and a connection the kit's tools attempt must never count against the candidate.
        **OFFLINE_TOOLS,
    }


def tool(name: str) -> str | None:
    """A system tool the sandbox uses (strace, setpriv), found on the sandbox PATH."""
    return shutil.which(name, path=SANDBOX_PATH)


def real_root() -> bool:
    """Root of the initial user namespace, able to switch to any uid and mount (not root inside a userns)."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/uid_map") as handle:
            return handle.read().split() == ["0", "0", "4294967295"]
    except OSError:
        return False
