"""Setup problems that would affect every submission of a batch, found once before it starts."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from gradelib import takehomes
from gradelib.errors import GradelibError
from gradelib.sandbox import Isolation, Sandbox, libfaketime, tool
from gradelib.similarity.handoutbase import check_starter

PROBE = ("true",)


def probe_isolation() -> Isolation:
    """How this machine isolates sandboxed runs, from one trivial run."""
    with tempfile.TemporaryDirectory(prefix="gradelib-probe-") as folder, Sandbox(Path(folder)) as box:
        return box.run(list(PROBE), box.copy("probe")).isolation


def preflight(takehome_ids: Sequence[str] | None = None) -> list[str]:
    """Warnings for the whole batch (said once, not per submission); GradelibError when it cannot start.

    A take-home that is broken or lacks its notebook stops the batch before anything runs;
    missing namespaces, strace or libfaketime make some lines `unverified` or weaker everywhere.
    """
    for name in takehome_ids or takehomes.names():
        notebook = takehomes.load(name).notebook()
        if not notebook.is_file():
            raise GradelibError(f"take-home {name!r}: its notebook {notebook} is missing (reinstall the package)")
        check_starter(name)  # starter code named for the similarity check must be there
    warnings = []
    isolation = probe_isolation()
    if not isolation.network_verified:
        warnings.append(f"no network isolation on this machine, so 'no network' is unverified: {isolation.reason}")
    if tool("strace") is None:
        warnings.append("strace is not installed: attempted connections are not logged (apt-get install strace)")
    if libfaketime() is None:
        warnings.append("libfaketime is not installed: the replays' clock is not shifted (apt-get install faketime)")
    return warnings
