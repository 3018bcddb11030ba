"""Source archives (sdists) from the package index, as data: found, downloaded, verified, unpacked.

Nothing here runs a line of the package's code. The index is asked through its simple API
(PEP 691 JSON, else PEP 503 HTML); the archive is downloaded with a size cap and checked
against the hash the index gives; it is kept in the kit's cache (so an offline grading can
build it) and unpacked as data only: regular files and folders inside the target, nothing
else (Python 3.11.2's tarfile has no extraction filters, so every member is checked here).
"""

from __future__ import annotations

import functools
import hashlib
import html.parser
import json
import os
import re
import stat
import tarfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError

DEFAULT_INDEX = "https://pypi.org/simple"
INDEX_ENV = ("UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL")  # the reviewer's own index, if set
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
SOURCES = "sdists"  # in the cache folder: <name>/<sha256>/<file name>
SDIST_SUFFIXES = (".tar.gz", ".tgz", ".zip")
MAX_SDIST_BYTES = 128 * 1024**2
MAX_UNPACKED_BYTES = 512 * 1024**2
MAX_MEMBERS = 20_000
MAX_PAGE_BYTES = 32 * 1024**2
TIMEOUT_SECONDS = 60
CHUNK = 1024**2


@dataclass(frozen=True)
class SourceArchive:
    """One sdist the index lists: its file name, version, where it is and its sha256."""

    name: str  # normalised project name
    version: str
    filename: str
    url: str
    sha256: str


def normalize(name: str) -> str:
    """The PEP 503 form of a project name: `Foo_Bar` -> `foo-bar`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def index_url(settings: InstallSettings) -> str:
    """The index uv installs from: `--index-url`, else the reviewer's UV_/PIP_ variable, else PyPI."""
    for value in (settings.index_url, *(os.environ.get(key) for key in INDEX_ENV)):
        if value:
            return value.rstrip("/")
    return DEFAULT_INDEX


def version_of(filename: str, name: str) -> str | None:
    """`0.6.2` for `docopt-0.6.2.tar.gz` and project `docopt`; None when it is not that project's sdist."""
    suffix = next((s for s in SDIST_SUFFIXES if filename.endswith(s)), None)
    if suffix is None:
        return None
    stem = filename[: -len(suffix)]
    project, sep, version = stem.rpartition("-")
    if not sep or normalize(project) != normalize(name) or not version:
        return None
    return version


def choose(archives: Iterable[SourceArchive], specifiers: Iterable[str]) -> SourceArchive | None:
    """The newest archive whose version every specifier allows (pre-releases only when one names one)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        wanted = SpecifierSet(",".join(s for s in specifiers if s))
    except InvalidSpecifier:
        wanted = SpecifierSet()
    best: tuple[Version, SourceArchive] | None = None
    for archive in archives:
        try:
            version = Version(archive.version)
        except InvalidVersion:
            continue
        if wanted.contains(version, prereleases=bool(wanted.prereleases)) and (best is None or version > best[0]):
            best = (version, archive)
    return best[1] if best else None


def find(name: str, specifiers: Iterable[str], settings: InstallSettings, python_version: str) -> SourceArchive:
    """The sdist to build for `name`: from the index, or from the cache when offline."""
    specifiers = list(specifiers)
    if settings.offline:
        found = choose(cached(settings.cache_dir, name), specifiers)
        if found is None:
            raise InstallError(
                "python",
                f"offline, and the cache has no source archive of {name} {','.join(specifiers)}".rstrip()
                + " (run `gradelib deps fetch --build-source` while online)",
            )
        return found
    found = choose(listed(name, settings, python_version), specifiers)
    if found is None:
        what = f"{name} {','.join(specifiers)}".strip()
        raise InstallError("python", f"{what} has no usable wheel and the index lists no source archive for it")
    return found


def listed(name: str, settings: InstallSettings, python_version: str) -> list[SourceArchive]:
    """The sdists the index lists for `name` with a sha256 (yanked ones and other Pythons' left out)."""
    base = index_url(settings)
    page_url = f"{base}/{normalize(name)}/"
    request = urllib.request.Request(_web(page_url), headers={"Accept": f"{SIMPLE_JSON}, text/html;q=0.1"})  # noqa: S310 - http(s) only
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310 - http(s) only
            body = answer.read(MAX_PAGE_BYTES + 1)
            kind = answer.headers.get("Content-Type", "")
            final = answer.geturl()
    except urllib.error.HTTPError as exc:
        raise InstallError("python", f"the index has no project {name} ({page_url}: HTTP {exc.code})") from exc
    except OSError as exc:
        raise InstallError("python", f"cannot read {page_url} (registry unreachable?): {exc}") from exc
    if len(body) > MAX_PAGE_BYTES:
        raise InstallError("python", f"the index page of {name} is larger than {MAX_PAGE_BYTES} bytes")
    files = _json_files(body) if "json" in kind else _html_files(body.decode("utf-8", errors="replace"))
    found = []
    for filename, url, sha256, requires_python, yanked in files:
        version = version_of(filename, name)
        if version is None or yanked or not re.fullmatch(r"[0-9a-f]{64}", sha256):
            continue
        if requires_python and not _python_allowed(requires_python, python_version):
            continue
        found.append(SourceArchive(normalize(name), version, filename, urllib.parse.urljoin(final, url), sha256))
    return found


def _web(url: str) -> str:
    """The URL when it is http(s); an index page's `file:` or other link is never opened."""
    if urllib.parse.urlparse(url).scheme not in ("http", "https"):
        raise InstallError("python", f"{url[:120]}: not an http(s) URL: refused")
    return url


def _python_allowed(requires_python: str, python_version: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(requires_python).contains(python_version, prereleases=True)
    except InvalidSpecifier:
        return True


FileEntry = tuple[str, str, str, str, bool]  # file name, url, sha256, requires-python, yanked


def _json_files(body: bytes) -> list[FileEntry]:
    try:
        doc = json.loads(body)
    except ValueError as exc:
        raise InstallError("python", f"the index answered with invalid JSON: {exc}") from exc
    found: list[FileEntry] = []
    for item in doc.get("files", []) if isinstance(doc, dict) else []:
        if not isinstance(item, dict) or not isinstance(item.get("filename"), str):
            continue
        hashes = item.get("hashes") if isinstance(item.get("hashes"), dict) else {}
        found.append(
            (
                item["filename"],
                str(item.get("url", "")),
                str(hashes.get("sha256", "")).lower(),  # type: ignore[union-attr]
                str(item.get("requires-python") or ""),
                bool(item.get("yanked")),
            )
        )
    return found


class _Links(html.parser.HTMLParser):
    """The `<a href>` anchors of a PEP 503 project page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[FileEntry] = []
        self._attrs: dict[str, str | None] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._attrs, self._text = dict(attrs), ""

    def handle_data(self, data: str) -> None:
        if self._attrs is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag != "a" or self._attrs is None:
            return
        href = self._attrs.get("href") or ""
        url, _, fragment = href.partition("#")
        sha256 = fragment[len("sha256=") :].lower() if fragment.startswith("sha256=") else ""
        filename = PurePosixPath(urllib.parse.urlparse(url).path).name or self._text.strip()
        yanked = "data-yanked" in self._attrs
        self.found.append((filename, url, sha256, self._attrs.get("data-requires-python") or "", yanked))
        self._attrs = None


def _html_files(text: str) -> list[FileEntry]:
    parser = _Links()
    parser.feed(text)
    return parser.found


def cached(cache_dir: Path, name: str) -> list[SourceArchive]:
    """The sdists of `name` in the kit's cache (each was checked against its hash when it came)."""
    folder = Path(cache_dir) / SOURCES / normalize(name)
    found = []
    for path in sorted(folder.glob("*/*")) if folder.is_dir() else []:
        version = version_of(path.name, name)
        if version is not None and path.is_file() and not path.is_symlink():
            found.append(SourceArchive(normalize(name), version, path.name, path.as_uri(), path.parent.name))
    return found


def download(archive: SourceArchive, settings: InstallSettings) -> Path:
    """The archive's file in the cache, downloaded (size-capped, sha256 checked) unless it is there."""
    target = Path(settings.cache_dir) / SOURCES / archive.name / archive.sha256 / archive.filename
    if target.is_file() and not target.is_symlink() and _sha256(target) == archive.sha256:
        return target
    if settings.offline:
        raise InstallError("python", f"offline, and the cache lacks {archive.filename}")
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    partial = target.with_name(f".{archive.filename}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    size = 0
    try:
        url = _web(archive.url)
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as answer, open(partial, "wb") as out:  # noqa: S310 - http(s) only
            while chunk := answer.read(CHUNK):
                size += len(chunk)
                if size > MAX_SDIST_BYTES:
                    raise InstallError("python", f"{archive.filename} is larger than {MAX_SDIST_BYTES // 2**20} MiB")
                digest.update(chunk)
                out.write(chunk)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InstallError("python", f"cannot download {archive.filename} (registry unreachable?): {exc}") from exc
    except InstallError:
        partial.unlink(missing_ok=True)
        raise
    if digest.hexdigest() != archive.sha256:
        partial.unlink(missing_ok=True)
        raise InstallError("python", f"{archive.filename} does not match the sha256 the index gives: refused")
    os.chmod(partial, 0o644)
    partial.rename(target)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# -- unpacking, as data only ------------------------------------------------------------------


@dataclass(frozen=True)
class _Member:
    """One archive entry: its path, whether a folder, whether executable, its size."""

    path: str
    folder: bool
    executable: bool
    size: int


def unpack(archive: Path, dest: Path) -> Path:
    """Unpack an sdist into the empty folder `dest`; return its project folder (where pyproject/setup.py is).

    Refuses (InstallError) links, devices, absolute paths, `..`, too many members or bytes.
    """
    dest.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zipped:
                for zinfo, member in _zip_members(zipped, archive.name):
                    written = _write(dest, member, functools.partial(zipped.open, zinfo), written, archive.name)
        else:
            with tarfile.open(archive, "r:*") as tarred:
                for tinfo, member in _tar_members(tarred, archive.name):
                    written = _write(dest, member, functools.partial(tarred.extractfile, tinfo), written, archive.name)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        raise InstallError("python", f"{archive.name} cannot be unpacked safely: {exc}") from exc
    return project_folder(dest, archive.name)


def _tar_members(handle: tarfile.TarFile, label: str) -> Iterator[tuple[tarfile.TarInfo, _Member]]:
    for count, info in enumerate(handle, 1):
        if count > MAX_MEMBERS:
            raise InstallError("python", f"{label} has more than {MAX_MEMBERS} members: refused")
        if info.type in (tarfile.XHDTYPE, tarfile.XGLTYPE):
            continue  # pax headers are metadata, read by tarfile itself
        if not (info.isfile() or info.isdir()):
            kind = "a symlink" if info.issym() else "a hard link" if info.islnk() else "a special file"
            raise InstallError("python", f"{label}: {info.name} is {kind}: an sdist must hold files only")
        yield info, _Member(_safe_path(info.name, label), info.isdir(), bool(info.mode & 0o111), info.size)


def _zip_members(handle: zipfile.ZipFile, label: str) -> Iterator[tuple[zipfile.ZipInfo, _Member]]:
    infos = handle.infolist()
    if len(infos) > MAX_MEMBERS:
        raise InstallError("python", f"{label} has more than {MAX_MEMBERS} members: refused")
    for info in infos:
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)  # 0 when the zip only gives permissions (a plain file)
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            raise InstallError("python", f"{label}: {info.filename} is not a file or folder: refused")
        yield info, _Member(_safe_path(info.filename, label), info.is_dir(), bool(mode & 0o111), info.file_size)


def _safe_path(name: str, label: str) -> str:
    """A member path that stays inside the target folder, or InstallError naming it."""
    path = PurePosixPath(name)
    if "\0" in name or "\\" in name or path.is_absolute() or ".." in path.parts or not path.parts:
        raise InstallError("python", f"{label}: {name!r} points outside the archive's folder: refused")
    return str(path)


def _write(dest: Path, member: _Member, opener: Callable[[], IO[bytes] | None], written: int, label: str) -> int:
    """Create one member below dest (never through a link); return the bytes written so far."""
    target = dest.joinpath(*PurePosixPath(member.path).parts)
    for parent in reversed(target.parents):
        if parent == dest or not parent.is_relative_to(dest):
            continue
        if parent.is_symlink():
            raise InstallError("python", f"{label}: {member.path} would be written through a link: refused")
        parent.mkdir(exist_ok=True, mode=0o755)
    if member.folder:
        if target.is_symlink():
            raise InstallError("python", f"{label}: {member.path} would be written through a link: refused")
        target.mkdir(exist_ok=True, mode=0o755)
        return written
    if written + member.size > MAX_UNPACKED_BYTES:
        raise InstallError("python", f"{label} unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MiB: refused")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
    fd = os.open(target, flags, 0o755 if member.executable else 0o644)
    source: IO[bytes] | None = opener()
    with os.fdopen(fd, "wb") as out:
        if source is None:
            return written
        with source:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > MAX_UNPACKED_BYTES:
                    raise InstallError("python", f"{label} unpacks to more than {MAX_UNPACKED_BYTES // 2**20} MiB")
                out.write(chunk)
    return written


def project_folder(dest: Path, label: str) -> Path:
    """The unpacked sdist's folder: its single top-level folder (or dest), holding pyproject.toml or setup.py."""
    entries = list(dest.iterdir())
    folder = entries[0] if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() else dest
    if not ((folder / "pyproject.toml").is_file() or (folder / "setup.py").is_file()):
        raise InstallError("python", f"{label} has neither pyproject.toml nor setup.py: cannot be built")
    return folder
