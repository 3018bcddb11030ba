"""Run one command of a submission on a fresh copy: namespaces, connection log, limits, timeout.

The only module that starts candidate processes. Each `Sandbox` owns a
workspace folder of fresh copies; each `run` starts ``nsinit.py``, which enters
new network / mount / PID namespaces (through a user namespace when not root),
binds the kit's server sockets inside and hands them back, then execs the
command under strace (every attempted connection logged) as an unprivileged
user, with resource limits and a scrubbed environment. On timeout the PID
namespace's init is killed, which takes the whole process tree with it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

from gradelib import runlog
from gradelib.errors import SandboxUnavailable
from gradelib.sandbox import call as runcall
from gradelib.sandbox import diskcap, safefs
from gradelib.sandbox.environ import real_root
from gradelib.sandbox.mounts import COPY, LINK, NODE_MODULES, VENV_LINK, Mounts
from gradelib.sandbox.runresult import Limits, RunResult, Service
from gradelib.settings import current_settings

ROOM_WAIT_S = 20.0  # how long a kit write waits for a run beside it that filled the workspace to be stopped
T = TypeVar("T")
CANDIDATE_UID_FIRST = 200_000
CANDIDATE_UID_COUNT = 60_000


class Sandbox(AbstractContextManager["Sandbox"]):
    """A workspace of fresh copies of one submission, and the runs made in them.

    A real tool's setup uses it the same way, the registry proxy its only network
    (`environment/toolsetup.py`).
    """

    def __init__(
        self,
        source: Path,
        *,
        isolate: bool = True,
        mounts: Mounts | None = None,
        disk_bytes: int | None = None,
        link_venv: bool = True,
    ) -> None:
        """`disk_bytes` caps the whole workspace (default `diskcap.configured_limit()`).

        `link_venv` puts a `.venv` link to the mounted virtualenv in every copy (not for builds).
        """
        self.link_venv = link_venv
        self.source = Path(source)
        self.disk_bytes = disk_bytes
        self.disk = diskcap.DiskCap(Path(), None, "not entered")
        self.mounts = mounts or Mounts()
        self.isolate = isolate and not current_settings().no_namespaces
        self.as_root = real_root()
        self.uid = CANDIDATE_UID_FIRST + secrets.randbelow(CANDIDATE_UID_COUNT) if self.as_root else os.getuid()
        self.root = Path()
        self._counter = 0
        self._lock = threading.Lock()

    def __enter__(self) -> Sandbox:
        self.disk = diskcap.workspace(self.disk_bytes)
        self.root = self.disk.folder
        os.chmod(self.root, 0o711)
        return self

    def path_prefix(self) -> list[str]:
        """What comes before the PATH of every run: the installed packages' bin (which runs `python`)."""
        return list(self.mounts.bin_dirs)

    def __exit__(self, *exc: object) -> None:
        diskcap.release(self.disk)  # a capped workspace is unmounted: everything in it is gone at once
        _remove_tree(self.root)

    def _next(self, label: str) -> Path:
        with self._lock:  # checks run side by side in threads
            self._counter += 1
            return self.root / f"{self._counter:02d}-{label}"

    def with_room(self, write: Callable[[], T]) -> T:
        """Do one of the kit's own writes in the workspace (`write` must be safe to repeat). When a run beside
        it has filled the capped workspace, wait for that run to be stopped and its files freed, then again."""
        deadline = time.monotonic() + ROOM_WAIT_S
        while True:
            try:
                return write()
            except OSError as exc:
                if exc.errno != errno.ENOSPC or not self.disk.bounded or time.monotonic() > deadline:
                    raise
            time.sleep(0.1)

    def copy(self, label: str, *, reverse_order: bool = False, nest: str = "", include_git: bool = False) -> Path:
        """A fresh copy of the submission, writable by the sandbox user."""
        return self.with_room(lambda: self._copy(label, reverse_order, nest, include_git))

    def _copy(self, label: str, reverse_order: bool, nest: str, include_git: bool) -> Path:
        base = self._next(label)
        base.mkdir(mode=0o711)
        target = base / nest / "submission" if nest else base / "submission"
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o711)
            safefs.copy_tree(self.source, target, reverse_order=reverse_order, include_git=include_git)
        except OSError:
            _remove_tree(base)  # a copy cut short by a full disk takes no room from the next one
            raise
        if self.mounts.node_modules is not None:
            link_node_modules(target, self.mounts.node_modules)
        for rel, product, how in self.mounts.products:
            if _plain_path(target, rel):  # a member folder the candidate made a link is not one of its own
                place_product(target, rel, product, how)
        if self.mounts.venv is not None and self.link_venv:
            for name in self.mounts.venv_names:
                link_venv(target, self.mounts.venv, name)
        if self.as_root:
            safefs.chown_tree(target, self.uid, self.uid)
        return target

    def output_folder(self, copy: Path, name: str) -> Path:
        """An empty folder beside `copy` that runs in that copy may write (a build's wheel), for the kit to read after.

        It is inside the copy's own writable folder (see `writable`), so nothing else becomes writable;
        the kit must read what it holds as untrusted (links, sizes).
        """
        folder = copy.parent / name
        folder.mkdir(mode=0o711)
        if self.as_root:
            os.chown(folder, self.uid, self.uid)
        return folder

    def kit_file(self, name: str, data: bytes) -> Path:
        """Put a kit-provided file (a driver script) where the sandbox user can read it."""
        folder = self.root / "kit"
        folder.mkdir(mode=0o755, exist_ok=True)
        target = folder / name
        target.write_bytes(data)
        os.chmod(target, 0o644)
        return target

    def run(
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        env: Mapping[str, str] | None = None,
        limits: Limits = Limits(),
        services: Sequence[Service] = (),
        stop_when: Callable[[], bool] | None = None,
        trace_files: bool = False,
        umask: int = 0o022,
        cpus: Sequence[int] | None = None,
        hostname: str = "sandbox",
        machine: Path | None = None,
        log_connections: bool = True,
    ) -> RunResult:
        """Run `argv` in the copy `cwd` and report what happened. Never raises for candidate faults.

        `machine` (from `machine()`) is the HOME, TMPDIR and /tmp of an earlier run: a process
        restarted on the same machine. Without it every run gets its own. Without `log_connections`
        the command is not run under strace (which stops it at every socket write): for a run whose
        only way out is a kit server that keeps its own account (a setup's registry proxy).
        """
        scratch = machine if machine is not None else self.machine()
        isolate = self.isolate and runcall.refused() is None
        call = runcall.Call(self, argv, cwd, scratch, env or {}, limits, services, trace_files, umask, cpus, hostname)
        call.keeps_machine = machine is not None
        call.log_connections = log_connections
        result = call.start(isolate, stop_when)
        if result is None:  # namespaces refused: say so, run without them
            runcall.refuse(call.refusal)
            result = call.start(False, stop_when)
            if result is None:
                raise SandboxUnavailable(f"the sandbox cannot start even without namespaces: {call.refusal}")
        if result.disk_limit_hit:
            self._free(Path(cwd), scratch)
        runlog.record(result)
        return result

    def machine(self) -> Path:
        """A run's scratch: its HOME, its TMPDIR (also its /tmp); pass it to `run` to keep it."""
        return self.with_room(self._machine)

    def _machine(self) -> Path:
        scratch = self._next("run")
        scratch.mkdir(mode=0o711)
        home, tmp = scratch / "home", scratch / "tmp"
        for folder in (home, tmp):
            folder.mkdir()
            if self.as_root:
                os.chown(folder, self.uid, self.uid)
        os.chmod(tmp, 0o1777)  # also the run's /tmp: inside the capped workspace, not beside it
        return scratch

    def writable(self, cwd: Path, scratch: Path) -> list[str]:
        """What one run may write: its own copy's folder and its scratch (HOME, TMPDIR), nothing else.

        Runs side by side cannot touch each other's copies, and what a run that filled the
        disk wrote is exactly what `_free` removes.
        """
        try:
            top = self.root / Path(cwd).resolve().relative_to(self.root.resolve()).parts[0]
        except (ValueError, IndexError):
            return [str(self.root)]  # a working folder outside the workspace: the old, coarser rule
        return [str(top), str(scratch)]

    def _free(self, cwd: Path, scratch: Path) -> None:
        """Empty what a run that filled the disk could write, so the grading's next runs have room."""
        writable = self.writable(cwd, scratch)
        if writable == [str(self.root)]:
            return  # a working folder outside the workspace: what it wrote cannot be told apart
        home, tmp = scratch / "home", scratch / "tmp"
        for folder in (Path(writable[0]), home, tmp):
            _remove_tree(folder)
        Path(writable[0]).mkdir(mode=0o711)
        cwd.mkdir(parents=True, exist_ok=True, mode=0o711)
        for folder in (home, tmp):
            folder.mkdir()
        os.chmod(tmp, 0o1777)
        if self.as_root:
            for folder in (home, tmp, cwd):
                os.chown(folder, self.uid, self.uid)


def link_venv(copy: Path, venv: Path, name: str = VENV_LINK) -> None:
    """`copy/.venv` (or `copy/NAME`): a link to the installed virtualenv, so `.venv/bin/python` and `source
    .venv/bin/activate` work, and a run's own `python3 -m venv NAME` finds the environment the kit set up.

    A shipped `.venv` is replaced: what runs is what the kit installed from the declaration.
    """
    target = copy / name
    if not _plain_path(copy, name):
        return  # a folder on the way is a link the candidate made: never followed
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        _remove_tree(target)
    target.symlink_to(venv)


def link_node_modules(copy: Path, installed: Path, rel: str = NODE_MODULES) -> None:
    """`copy/node_modules` (or `copy/REL`): a folder of links into the installed (read-only) packages.

    A shipped node_modules is replaced: the kit installs what the lockfile says. The folder
    itself stays writable, for the caches test runners keep there (`node_modules/.vite`). A link
    the tool made (a workspace member, pnpm's packages in `.pnpm`) is made again as it was, so a
    relative one resolves inside this copy, to the candidate's own folder there; a scope folder
    (`@me`) is made too, its entries treated the same way.
    """
    target = copy / rel
    _clear(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    _links_into(target, installed)


def _links_into(target: Path, installed: Path) -> None:
    target.mkdir()
    for entry in sorted(os.listdir(installed)):
        source = installed / entry
        if entry == ".package-lock.json":
            continue
        if source.is_symlink():
            (target / entry).symlink_to(os.readlink(source))
        elif entry.startswith("@") and source.is_dir():
            _links_into(target / entry, source)
        else:
            (target / entry).symlink_to(source)


def _plain_path(copy: Path, rel: str) -> bool:
    """Whether `rel` lies in the copy through real folders only (no link, no `..`): the kit writes there."""
    parts = Path(rel).parts
    if not parts or ".." in parts or Path(rel).is_absolute():
        return False
    here = copy
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            return False
    return True


def place_product(copy: Path, rel: str, product: Path, how: str) -> None:
    """Put what a setup made (kept read-only at `product`) at `rel` in a copy: node_modules as a folder of
    links, a file copied (Plug'n'Play's `.pnp.cjs` reads beside itself), anything else linked."""
    if how == COPY and not product.is_symlink() and (product.is_file() or product.is_dir()):
        target = copy / rel
        _clear(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        if product.is_dir():
            safefs.copy_tree(product, target)
        else:
            shutil.copy2(product, target)
    elif how == LINK:
        target = copy / rel
        _clear(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(product)
    else:
        link_node_modules(copy, product, rel)


def _clear(target: Path) -> None:
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        _remove_tree(target)


def _remove_tree(root: Path) -> None:
    """Delete a workspace, however deep or locked the candidate made it, never following a link.

    `shutil.rmtree` recurses (a 1,500-level folder breaks it on 3.11) and, to unlock, chmods
    what may be a link to the reviewer's files; `chmod -R` skips links and `rm -rf` is iterative.
    """
    if not root.exists():
        return
    subprocess.run(["chmod", "-R", "u+rwX", str(root)], capture_output=True, check=False)
    subprocess.run(["rm", "-rf", "--one-file-system", str(root)], capture_output=True, check=False)


@contextlib.contextmanager
def sandbox(source: Path, *, isolate: bool = True) -> Iterator[Sandbox]:
    """`Sandbox` as a function-style context manager."""
    with Sandbox(source, isolate=isolate) as box:
        yield box
