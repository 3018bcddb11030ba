"""How long the batch lets one grading run before it kills the notebook's kernel.

The take-home's own sandboxed runs bound the candidate's code (`TakeHome.run_seconds`, their wall
limits summed); the installs are bounded by their caps; the kit's side (the kernel, papermill,
its servers) is bounded by nothing else. The deadline is their sum with a margin, so it never
cuts a grading that is only slow, and ends one that hangs on the kit's side.
"""

from __future__ import annotations

from gradelib import takehomes
from gradelib.environment.installsettings import InstallSettings
from gradelib.errors import GradelibError
from gradelib.takehomes.contract import DEFAULT_RUN_SECONDS

MARGIN_SECONDS = 120.0  # a kernel's start and stop, the notebook's cells, the loopback servers
INSTALL_STEPS = 5  # a Python setup (its tool provisioned, then up to three commands) and a Node one, each capped


def grading_deadline(takehome: str, settings: InstallSettings, override: float | None = None) -> float:
    """Seconds one grading of `takehome` may take: `override` (the reviewer's), else the take-home's own bound."""
    if override is not None:
        if override <= 0:
            raise GradelibError(f"--grading-timeout must be a positive number of seconds, not {override:g}")
        return float(override)
    try:
        runs = takehomes.load(takehome).run_seconds
    except GradelibError:
        runs = DEFAULT_RUN_SECONDS  # a submission no take-home claims fails in its notebook
    installs = INSTALL_STEPS * settings.max_seconds
    return round(runs + installs + MARGIN_SECONDS)
