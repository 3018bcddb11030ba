"""What crosses the wire between the driver and a worker: a submission's bytes out, its artifacts back.

A worker shares nothing with the driver but the kit: no paths, no database. A `Parcel`
carries the staged submission as a tar archive, a small gradebook excerpt for the
notebook's scoring panel and the install settings that must match the driver's. `Artifacts`
carry the executed notebook, the JSON result, the views and the kernel log back; the driver
alone makes and writes reports, and writes rows.
"""

from __future__ import annotations

import io
import posixpath
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gradelib.environment.installsettings import (
    ENV_BUILD_SOURCE,
    ENV_INDEX_URL,
    ENV_INSTALL_SECONDS,
    ENV_OFFLINE,
    ENV_REGISTRY,
)
from gradelib.errors import SubmissionError

# Install settings a worker takes from the driver (the cache folder and interpreter stay the worker's own).
FORWARDED_ENV = (ENV_INDEX_URL, ENV_REGISTRY, ENV_OFFLINE, ENV_BUILD_SOURCE, ENV_INSTALL_SECONDS)
SUBMISSION = "submission"  # the unpacked folder's name, as in the driver's staging folder
_KEPT_TYPES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE)


@dataclass(frozen=True)
class Parcel:
    """One submission to grade, as bytes: everything a worker needs from the driver."""

    key: str  # unique per batch and submission (the Dask task key)
    takehome: str
    label: str  # "Submission #3", or the name with --reveal
    stem: str  # file name of its reports: "submission-03"
    digest: str
    kit_version: str
    files: bytes  # the staged submission, a tar archive (links kept as links)
    gradebook: bytes  # an excerpt: this submission's row and reviewer scores, for the panel
    install_env: tuple[tuple[str, str], ...] = ()
    deadline: float | None = None  # seconds the worker gives the notebook before it kills its kernel

    @property
    def size(self) -> int:
        """Bytes on the wire, about."""
        return len(self.files) + len(self.gradebook)


@dataclass(frozen=True)
class Artifacts:
    """What grading one parcel produced, as bytes; the driver writes them."""

    key: str
    error: str | None  # the notebook's failure in one line, or None
    seconds: float  # the grading's own time on the worker
    worker: str  # host name of the machine that graded it
    notebook: bytes | None = None  # the executed notebook, as its kernel ran it (the driver makes the report of it)
    result: bytes | None = None  # the JSON result the notebook saved
    log: bytes = b""  # the kernel's stderr
    views: bytes | None = None  # what the notebook shows beyond the lines (stored beside the result)
    notices: tuple[str, ...] = ()  # what the kit fell back to on the worker (kernels or sandbox runs started fresh)

    @property
    def size(self) -> int:
        """Bytes on the wire, about."""
        return sum(len(part or b"") for part in (self.notebook, self.result, self.log, self.views))


def install_env(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The driver's install settings a worker must use too (index, registry, offline)."""
    return tuple((key, environ[key]) for key in FORWARDED_ENV if key in environ)


def _keep(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Regular files, folders and links only; no owners (a worker makes its own)."""
    if member.type not in _KEPT_TYPES:
        return None
    member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member


def pack(folder: Path) -> bytes:
    """A folder as a tar archive in memory, links stored as links (never followed)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        archive.add(str(folder), arcname=SUBMISSION, recursive=True, filter=_keep)
    return buffer.getvalue()


def _extract_filter(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """The standard `tar` filter (no absolute or escaping paths, no set-uid bits), kept types only."""
    if member.type not in _KEPT_TYPES:
        return None
    checked: Any = tarfile.tar_filter(member, path)
    if not (checked.name == SUBMISSION or checked.name.startswith(SUBMISSION + "/")):
        raise tarfile.OutsideDestinationError(member, path)
    return _keep(checked)


def _checked_members(archive: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """The same rules as `_extract_filter`, for a Python whose tarfile has no extraction filters.

    Debian 12's Python 3.11.2 predates them (3.11.4). As with the `tar` filter: names stay under
    submission/ and never pass through a link (a link itself is kept as a link, wherever it
    points: the kit never follows one), and set-uid, set-gid, sticky and group/other write bits
    are dropped.
    """
    kept: list[tarfile.TarInfo] = []
    links: set[str] = set()
    for member in archive.getmembers():
        if member.type not in _KEPT_TYPES:
            continue
        name = posixpath.normpath(member.name)
        parts = PurePosixPath(name).parts
        if member.name.startswith("/") or ".." in parts or not parts or parts[0] != SUBMISSION:
            raise SubmissionError(member.name, "a parcel member outside submission/")
        if any("/".join(parts[:depth]) in links for depth in range(1, len(parts))):
            raise SubmissionError(member.name, "a parcel member inside a linked folder")
        if member.issym():
            links.add(name)
        member.mode &= 0o755
        kept.append(member)
        _keep(member)
    return kept


def unpack(data: bytes, target: Path) -> Path:
    """Unpack a `pack` archive under `target`; returns the submission folder."""
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        if not hasattr(tarfile, "data_filter"):
            archive.extractall(str(target), members=_checked_members(archive))  # noqa: S202 - checked above
            return target / SUBMISSION
        try:
            archive.extractall(str(target), filter=_extract_filter)  # noqa: S202 - filtered
        except tarfile.TarError as exc:  # FilterError: a member outside submission/ or through a link
            raise SubmissionError(str(exc), "a parcel member outside submission/") from exc
    return target / SUBMISSION
