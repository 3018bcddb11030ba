"""The only code that starts candidate processes: namespaces, limits, connection and DNS logs, safe files."""

from __future__ import annotations

from gradelib.sandbox.box import (
    ENV_FORCE_NO_NAMESPACES,
    SANDBOX_PATH,
    TAIL_BYTES,
    Isolation,
    Limits,
    RunResult,
    Sandbox,
    Service,
    base_environment,
    libfaketime,
    link_node_modules,
    sandbox,
    tool,
)
from gradelib.sandbox.mounts import Mounts

__all__ = [
    "ENV_FORCE_NO_NAMESPACES",
    "SANDBOX_PATH",
    "TAIL_BYTES",
    "Isolation",
    "Limits",
    "Mounts",
    "RunResult",
    "Sandbox",
    "Service",
    "base_environment",
    "libfaketime",
    "link_node_modules",
    "sandbox",
    "tool",
]
