"""The only code that starts candidate processes: namespaces, limits, connection and DNS logs, safe files."""

from __future__ import annotations

from gradelib.sandbox.box import Sandbox, link_node_modules, sandbox
from gradelib.sandbox.capture import TAIL_BYTES
from gradelib.sandbox.environ import ENV_FORCE_NO_NAMESPACES, SANDBOX_PATH, base_environment, libfaketime, tool
from gradelib.sandbox.mounts import Mounts
from gradelib.sandbox.runresult import Isolation, Limits, RunResult, Service

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
