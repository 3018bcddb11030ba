"""Source archives as data: unpacking refuses what could escape, index pages and uv's words are read right."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from gradelib.environment import buildsystem, sdist, sourcebuild
from gradelib.environment.settings import InstallSettings
from gradelib.errors import InstallError


def _tar(path: Path, members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> Path:
    data = data or {}
    with tarfile.open(path, "w:gz") as tar:
        for info in members:
            body = data.get(info.name)
            if body is not None:
                info.size = len(body)
            tar.addfile(info, io.BytesIO(body) if body is not None else None)
    return path


def _file(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.mode = 0o644
    return info


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


GOOD = {"pkg-1.0/setup.py": b"from setuptools import setup\n", "pkg-1.0/pkg/__init__.py": b"X = 1\n"}


def test_a_plain_sdist_unpacks_to_its_project_folder(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "pkg-1.0.tar.gz", [_file(n) for n in GOOD], GOOD)
    folder = sdist.unpack(archive, tmp_path / "out")
    assert folder == tmp_path / "out" / "pkg-1.0"
    assert (folder / "pkg" / "__init__.py").read_bytes() == b"X = 1\n"


@pytest.mark.parametrize(
    ("member", "why"),
    [
        pytest.param(_file("pkg-1.0/../../escaped.py"), "outside", id="dot-dot"),
        pytest.param(_file("/tmp/absolute.py"), "outside", id="absolute"),
        pytest.param(_link("pkg-1.0/evil", "/etc"), "a symlink", id="symlink"),
        pytest.param(_link("pkg-1.0/hard", "/etc/passwd", tarfile.LNKTYPE), "a hard link", id="hardlink"),
        pytest.param(_link("pkg-1.0/fifo", "", tarfile.FIFOTYPE), "a special file", id="fifo"),
    ],
)
def test_an_sdist_member_that_could_escape_is_refused(tmp_path: Path, member: tarfile.TarInfo, why: str) -> None:
    data = {**GOOD, member.name: b"print('escaped')\n"} if member.isfile() else GOOD
    archive = _tar(tmp_path / "pkg-1.0.tar.gz", [*(_file(n) for n in GOOD), member], data)
    with pytest.raises(InstallError, match=why) as caught:
        sdist.unpack(archive, tmp_path / "out")
    assert "pkg-1.0.tar.gz" in str(caught.value)
    assert not (tmp_path / "escaped.py").exists()
    assert not (tmp_path / "out" / "pkg-1.0" / "evil").exists()


def test_a_symlink_then_a_file_through_it_writes_nothing_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    members = [_link("pkg-1.0/sub", str(outside)), _file("pkg-1.0/sub/planted.py")]
    archive = _tar(tmp_path / "pkg-1.0.tar.gz", members, {"pkg-1.0/sub/planted.py": b"x"})
    with pytest.raises(InstallError, match="symlink"):
        sdist.unpack(archive, tmp_path / "out")
    assert list(outside.iterdir()) == []


def test_a_zip_sdist_with_dot_dot_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "pkg-1.0.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("pkg-1.0/setup.py", "")
        handle.writestr("../escaped.py", "x")
    with pytest.raises(InstallError, match="outside"):
        sdist.unpack(archive, tmp_path / "out")
    assert not (tmp_path / "escaped.py").exists()


def test_an_sdist_past_the_size_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sdist, "MAX_UNPACKED_BYTES", 10)
    archive = _tar(tmp_path / "pkg-1.0.tar.gz", [_file(n) for n in GOOD], GOOD)
    with pytest.raises(InstallError, match="unpacks to more than"):
        sdist.unpack(archive, tmp_path / "out")


def test_an_sdist_with_nothing_to_build_is_refused(tmp_path: Path) -> None:
    archive = _tar(tmp_path / "pkg-1.0.tar.gz", [_file("pkg-1.0/README")], {"pkg-1.0/README": b"hi"})
    with pytest.raises(InstallError, match="neither pyproject.toml nor setup.py"):
        sdist.unpack(archive, tmp_path / "out")


def test_index_pages_html_and_json_give_the_sdists_with_their_hashes() -> None:
    digest = "a" * 64
    page = (
        f'<a href="../../files/docopt-0.6.2.tar.gz#sha256={digest}">docopt-0.6.2.tar.gz</a>'
        f'<a href="/f/docopt-0.6.1.tar.gz#sha256={digest}" data-yanked="">docopt-0.6.1.tar.gz</a>'
        f'<a href="/f/docopt-0.7-py3-none-any.whl#sha256={digest}">wheel</a>'
        '<a href="/f/docopt-0.5.tar.gz">no hash</a>'
    )
    entries = sdist._html_files(page)
    assert [(e[0], e[2], e[4]) for e in entries][:2] == [
        ("docopt-0.6.2.tar.gz", digest, False),
        ("docopt-0.6.1.tar.gz", digest, True),
    ]
    doc = {"files": [{"filename": "x-1.0.tar.gz", "url": "https://h/x-1.0.tar.gz", "hashes": {"sha256": digest},
                      "requires-python": ">=3.8", "yanked": False}]}  # fmt: skip
    assert sdist._json_files(__import__("json").dumps(doc).encode()) == [
        ("x-1.0.tar.gz", "https://h/x-1.0.tar.gz", digest, ">=3.8", False)
    ]


def test_the_newest_allowed_version_is_chosen() -> None:
    archives = [sdist.SourceArchive("p", v, f"p-{v}.tar.gz", "", "0" * 64) for v in ("1.0", "1.5", "2.0", "2.1rc1")]
    assert sdist.choose(archives, []).version == "2.0"  # type: ignore[union-attr]
    assert sdist.choose(archives, ["<2"]).version == "1.5"  # type: ignore[union-attr]
    assert sdist.choose(archives, ["==1.0"]).version == "1.0"  # type: ignore[union-attr]
    assert sdist.choose(archives, [">=3"]) is None
    assert sdist.choose(archives, ["==2.1rc1"]).version == "2.1rc1"  # type: ignore[union-attr]
    assert sdist.version_of("Foo_Bar-1.2.tar.gz", "foo-bar") == "1.2"
    assert sdist.version_of("other-1.2.tar.gz", "foo") is None


def test_a_file_url_from_an_index_page_is_never_opened(tmp_path: Path) -> None:
    archive = sdist.SourceArchive("p", "1.0", "p-1.0.tar.gz", "file:///etc/passwd", "0" * 64)
    with pytest.raises(InstallError, match="not an http"):
        sdist.download(archive, InstallSettings(cache_dir=tmp_path))


def test_offline_without_a_cached_sdist_names_it_and_deps_fetch(tmp_path: Path) -> None:
    settings = InstallSettings(cache_dir=tmp_path, offline=True)
    with pytest.raises(InstallError, match=r"no source archive of docopt ==0\.6\.2.*deps fetch --build-source"):
        sdist.find("docopt", ["==0.6.2"], settings, "3.11.2")


UV_REFUSAL = """error: No solution found when resolving dependencies
  cause: Because docopt==0.6.2 has no usable wheels and you require docopt==0.6.2, we can conclude that your \
requirements are unsatisfiable.

hint: Wheels are required for `docopt` because building from source is disabled for all packages \
(i.e., with `--no-build`)
"""


def test_uv_refusal_names_the_package_to_build() -> None:
    assert sourcebuild.needs_build(UV_REFUSAL) == ["docopt"]
    assert sourcebuild.pinned_versions(UV_REFUSAL) == {"docopt": "0.6.2"}
    assert sourcebuild.needs_build("error: the network is down") == []


def _wheel(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as handle:
        for name, text in members.items():
            handle.writestr(name, text)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("filename", "members", "why"),
    [
        pytest.param("p-1.0-py3-none-any.whl", {"evil.pth": "import os"}, ".pth", id="pth-at-top"),
        pytest.param("p-1.0-py3-none-any.whl", {"p-1.0.data/purelib/x.pth": ""}, ".pth", id="pth-in-purelib"),
        pytest.param("p-1.0-py3-none-any.whl", {"../evil.py": ""}, "outside", id="dot-dot"),
        pytest.param("requests-99-py3-none-any.whl", {"requests/__init__.py": ""}, "made", id="other-project"),
        pytest.param("p-2.0-py3-none-any.whl", {"p/__init__.py": ""}, "made", id="other-version"),
        pytest.param("p.whl", {}, "not a wheel file name", id="bad-name"),
    ],
)
def test_a_built_wheel_that_could_harm_is_refused(filename: str, members: dict[str, str], why: str) -> None:
    with pytest.raises(InstallError, match=why):
        sourcebuild.check_wheel(filename, _wheel(members), "p", "1.0")


def test_a_plain_built_wheel_is_accepted() -> None:
    sourcebuild.check_wheel("p-1.0-py3-none-any.whl", _wheel({"p/__init__.py": "", "p/data.pth.txt": ""}), "p", "1.0")


def test_build_system_defaults_and_refusals(tmp_path: Path) -> None:
    assert sourcebuild.build_system(tmp_path, "p").requires == buildsystem.DEFAULT_REQUIRES
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["flit_core>=3.2"]\n'
                                             'build-backend = "flit_core.buildapi"\n')  # fmt: skip
    system = sourcebuild.build_system(tmp_path, "p")
    assert system.requires == ("flit_core>=3.2",) and system.backend == "flit_core.buildapi"
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["x @ https://evil/x.whl"]\n')
    with pytest.raises(InstallError, match="direct URL"):
        sourcebuild.build_system(tmp_path, "p")
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = []\nbackend-path = ["../.."]\n')
    with pytest.raises(InstallError, match="backend-path"):
        sourcebuild.build_system(tmp_path, "p")
