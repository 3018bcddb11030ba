"""What a submission's installed packages look like to its runs: plain folders, which `environment/` describes.

The sandbox knows nothing of declarations, installers or lockfiles. It mounts these folders
read-only at the same path, puts these bin folders first on PATH, links the installed
`node_modules` and virtualenv into every copy, and shows these folders under placeholders in
what runs print. `environment.Environment.mounts()` produces one; an empty one is a submission
that declares nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

NODE_MODULES = "node_modules"  # where an installed node_modules is linked into every copy
VENV_LINK = ".venv"  # where the installed virtualenv is linked into every copy
STABLE_SUBMISSION = "/gradelib/submission"  # where a run sees its copy when the mounts ask for stable paths
STABLE_ENV = "/gradelib/env"  # where a tool's environment made in setup is seen by every run
READ_ONLY, WRITABLE, OVERLAY = "ro", "rw", "overlay"
# How a setup's product reaches every copy: a folder of links (node_modules: the tool's own links kept as
# they are, so they resolve in the copy), one link, or a copy (a file read relative to itself: .pnp.cjs).
MODULES, LINK, COPY = "modules", "link", "copy"


@dataclass(frozen=True)
class Mounts:
    """The folders of a submission's installed packages, as its runs see them."""

    read_only: tuple[str, ...] = ()  # mounted read-only at the same path
    placeholders: tuple[tuple[str, str], ...] = ()  # (folder, how runs show it): the same on every machine
    bin_dirs: tuple[str, ...] = ()  # first on PATH, in this order
    node_modules: Path | None = None  # linked into every copy as `node_modules`
    venv: Path | None = None  # linked into every copy as `.venv` (and each of `venv_names`)
    venv_names: tuple[str, ...] = (VENV_LINK,)  # where: also the virtualenvs a run makes itself (`venv`)
    editable_roots: tuple[str, ...] = ()  # an editable project's folders, relative to the copy ("" the copy)
    # (folder, where runs see it, mode): folders shown at a fixed path inside the sandbox (a relative one: in
    # the run's copy, where a link to it stood); mode is READ_ONLY, WRITABLE, or OVERLAY (read-only
    # underneath, each run's writes kept in its own scratch)
    binds: tuple[tuple[str, str, str], ...] = ()
    # each run's copy shown (and worked in) at STABLE_SUBMISSION: tools that key what they made on
    # the project's path (Hatch, Poetry, an editable install) find it again in every run
    stable_paths: bool = False
    env: tuple[tuple[str, str], ...] = ()  # variables every run gets (a setup tool's settings)
    # (path in the copy, the kept product it comes from, how: MODULES, LINK or COPY): what a setup made in its
    # copy that every copy gets (node_modules of each workspace member, Plug'n'Play's files)
    products: tuple[tuple[str, Path, str], ...] = ()

    def bind_placeholders(self) -> dict[str, str]:
        """How runs show the fixed paths: the same placeholders as the folders behind them."""
        shown = dict(self.placeholders)
        found = {inside: shown.get(folder, inside) for folder, inside, _ in self.binds if inside.startswith("/")}
        return found | ({STABLE_SUBMISSION: "<submission>"} if self.stable_paths else {})

    def run_env(self, cwd: Path) -> dict[str, str]:
        """Variables one run in the copy `cwd` needs: a setup tool's settings, an editable project's own
        folders first on PYTHONPATH."""
        if not self.editable_roots:
            return dict(self.env)
        roots = (str(Path(cwd) / root) if root else str(cwd) for root in self.editable_roots)
        return dict(self.env) | {"PYTHONPATH": os.pathsep.join(roots)}
