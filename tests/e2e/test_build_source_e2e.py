"""Builds from source (the reviewer's opt-in): uv builds them in the sandbox, the registries its only network.

A real sdist-only package from PyPI (docopt 0.6.2) is refused without the opt-in and built
with it. Hostile sdists served by a local PEP 503 index on loopback (configured as the index,
so the setup's proxy forwards to it; other projects are fetched from PyPI by the index itself)
try to write outside their folder, to reach a loopback detector, to hang, to fail and to plant
a `.pth` file. When a registry cannot be reached these tests fail with "registry unreachable",
never skip.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import shutil
import socket
import tarfile
import textwrap
import threading
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import SAMPLES, write_tree

from gradelib.cli import main
from gradelib.environment import InstallSettings, prepare
from gradelib.environment.installsettings import (
    ENV_BUILD_SOURCE,
    ENV_CACHE_DIR,
    ENV_INDEX_URL,
    ENV_INSTALL_SECONDS,
    ENV_OFFLINE,
    ENV_REGISTRY,
)
from gradelib.sandbox import Sandbox

pytestmark = pytest.mark.e2e

PYPI = "https://pypi.org/simple/docopt/"
PYTHONHOSTED = "https://files.pythonhosted.org"


@pytest.fixture(scope="session", autouse=True)
def _registry_reachable() -> None:
    try:
        with urllib.request.urlopen(PYPI, timeout=20) as answer:
            answer.read(1)
    except OSError as exc:
        pytest.fail(f"registry unreachable: {PYPI}: {exc}")


@pytest.fixture(autouse=True)
def _install_env_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """`gradelib.cli.main` exports its install settings into os.environ: undone after each test."""
    for key in (ENV_INSTALL_SECONDS, ENV_BUILD_SOURCE, ENV_CACHE_DIR, ENV_INDEX_URL, ENV_OFFLINE, ENV_REGISTRY):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture(scope="module")
def online(tmp_path_factory: pytest.TempPathFactory) -> InstallSettings:
    return InstallSettings(cache_dir=tmp_path_factory.mktemp("srccache"), build_source=True)


def test_a_source_only_package_is_refused_naming_it_and_the_opt_in(tmp_path: Path, online: InstallSettings) -> None:
    root = write_tree(tmp_path / "sub", {"requirements.txt": "docopt==0.6.2\n"})
    env = prepare(root, online.with_changes(build_source=False))
    assert env.python is None
    assert env.error and "docopt" in env.error and "wheels only" in env.error and "--build-source" in env.error


def test_the_opt_in_builds_it_in_the_sandbox_and_the_submission_imports_it(
    tmp_path: Path, online: InstallSettings
) -> None:
    root = write_tree(
        tmp_path / "sub",
        {
            "requirements.txt": "docopt==0.6.2\n",
            "run.sh": "#!/usr/bin/env bash\npython -c 'import docopt; print(docopt.__version__, docopt.__file__)'\n",
        },
    )
    env = prepare(root, online)
    assert env.error is None, env.error
    assert env.python is not None and ("docopt", "0.6.2", False) in env.python.packages
    setup = env.evidence()["installed"][0]["setup"]
    assert setup["build_source"] is True and "--no-build" not in setup["command"]
    assert set(setup["network"]["reached"]) <= {"pypi.org:443", "files.pythonhosted.org:443"}
    assert "builds from source allowed" in env.summary()
    with Sandbox(root, mounts=env.mounts()) as box:
        result = box.run(["./run.sh"], box.copy("run"))
    assert result.exit_code == 0, result.stderr
    version, where = result.stdout.split()
    assert version == "0.6.2" and where.startswith("<python-env>/python/lib/")
    manifest = json.loads((env.python.folder / "gradelib-environment.json").read_text())
    assert manifest["setup"]["build_source"] is True
    # An environment built with the opt-in is its own cache entry; a second grading hits it.
    again = prepare(root, online)
    assert again.python is not None and again.python.cache_hit and again.python.packages == env.python.packages
    assert env.python.key != _key_without_opt_in(root, online)


def _key_without_opt_in(root: Path, settings: InstallSettings) -> str:
    from gradelib.environment import cache, pyinstall, read_declaration

    declaration = read_declaration(root).python
    assert declaration is not None
    off = settings.with_changes(build_source=False)
    return cache.environment_key("python", pyinstall.key_parts(declaration, off))


def test_offline_a_fetched_environment_is_used_and_another_is_named_as_missing(
    tmp_path: Path, online: InstallSettings
) -> None:
    fetched = write_tree(tmp_path / "fetched", {"requirements.txt": "docopt==0.6.2\n", "run.sh": "true\n"})
    assert main(["deps", "fetch", str(fetched), "--build-source", "--cache-dir", str(online.cache_dir)]) == 0
    env = prepare(fetched, online.with_changes(offline=True))
    assert env.error is None and env.python is not None and env.python.cache_hit
    # Another dependency set, never set up: offline, nothing may reach the index to make it.
    other = write_tree(tmp_path / "other", {"requirements.txt": "docopt>=0.6,<0.7\n"})
    env = prepare(other, online.with_changes(offline=True))
    assert env.python is None
    assert env.error and "offline" in env.error and "docopt" in env.error and "deps fetch" in env.error


# -- hostile sdists from a local index -------------------------------------------------------


def _sdist(name: str, files: dict[str, str]) -> bytes:
    """A .tar.gz sdist of `name` 1.0 holding these files (and PKG-INFO)."""
    files = {"PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", **files}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, text in files.items():
            data = textwrap.dedent(text).lstrip("\n").encode()
            info = tarfile.TarInfo(f"{name}-1.0/{rel}")
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class _Index(http.server.BaseHTTPRequestHandler):
    """A PEP 503 index of hand-made sdists; any other project is PyPI's, fetched and served by this index
    (the setup's proxy reaches only the configured index)."""

    files: ClassVar[dict[str, bytes]] = {}
    fetched: ClassVar[dict[str, bytes]] = {}

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def _serve(self, *, head: bool) -> None:
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if parts[:1] == ["files"] and len(parts) == 2 and parts[1] in self.files:
            self._answer(200, self.files[parts[1]], "application/octet-stream", head=head)
        elif parts[:1] == ["pythonhosted"]:
            upstream = f"{PYTHONHOSTED}/{'/'.join(parts[1:])}"
            self._answer(200, self._pypi(upstream), "application/octet-stream", head=head)
        elif parts[:1] == ["simple"] and len(parts) == 2:
            mine = [f for f in self.files if f.split("-", 1)[0] == parts[1]]
            if mine:
                links = "".join(
                    f'<a href="../../files/{f}#sha256={hashlib.sha256(self.files[f]).hexdigest()}">{f}</a>\n'
                    for f in mine
                )
                page = f"<!DOCTYPE html><html><body>\n{links}</body></html>".encode()
            else:
                here = f"http://127.0.0.1:{self.server.server_address[1]}/pythonhosted"
                page = self._pypi(f"https://pypi.org/simple/{parts[1]}/").replace(PYTHONHOSTED.encode(), here.encode())
            self._answer(200, page, "text/html", head=head)
        else:
            self._answer(404, b"", "text/plain", head=head)

    def _pypi(self, url: str) -> bytes:
        if url not in self.fetched:
            request = urllib.request.Request(url, headers={"Accept": "text/html"})
            with urllib.request.urlopen(request, timeout=60) as answer:
                self.fetched[url] = answer.read()
        return self.fetched[url]

    def _answer(self, status: int, body: bytes, kind: str, *, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def detector() -> Iterator[tuple[int, list[int]]]:
    """A loopback TCP listener that counts every connection made to it."""
    connections: list[int] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connections.append(1)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], connections
    finally:
        stop.set()
        thread.join()
        server.close()


@pytest.fixture
def index() -> Iterator[tuple[str, dict[str, bytes]]]:
    """A local index on loopback: (its simple URL, the sdists it serves by file name)."""
    files: dict[str, bytes] = {}
    handler = type("Index", (_Index,), {"files": files, "fetched": {}})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple", files
    finally:
        server.shutdown()
        server.server_close()


HOSTILE_SETUP = """
import os, socket
import setuptools

for path in {targets!r}:
    try:
        with open(path, "w") as handle:
            handle.write("escaped")
        print("WROTE", path)
    except OSError as exc:
        print("blocked", path, exc)
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
    print("CONNECTED")
except OSError as exc:
    print("no network", exc)
setuptools.setup(name="evilpkg", version="1.0", py_modules=["evilpkg"])
"""


def test_a_hostile_setup_py_builds_in_the_sandbox_with_no_network_and_no_writes_outside(
    tmp_path: Path, index: tuple[str, dict[str, bytes]], detector: tuple[int, list[int]]
) -> None:
    url, files = index
    port, connections = detector
    cache_dir = tmp_path / "cache"
    outside = [str(tmp_path / "pwned"), f"/tmp/gradelib-srcbuild-{uuid.uuid4().hex}", str(cache_dir / "pwned")]
    files["evilpkg-1.0.tar.gz"] = _sdist(
        "evilpkg",
        {"setup.py": HOSTILE_SETUP.format(targets=outside, port=port), "evilpkg.py": "VALUE = 42\n"},
    )
    root = write_tree(tmp_path / "sub", {"requirements.txt": "evilpkg==1.0\n"})
    settings = InstallSettings(cache_dir=cache_dir, index_url=url, build_source=True)
    env = prepare(root, settings)
    assert env.error is None, env.error
    assert env.python is not None and ("evilpkg", "1.0", False) in env.python.packages
    for path in outside:
        assert not Path(path).exists(), path
    assert connections == []  # the build's loopback is its own: the host's detector saw nothing
    reached = env.evidence()["installed"][0]["setup"]["network"]["reached"]
    assert set(reached) == {url.split("/")[2]}, "the configured index, and nothing else"
    with Sandbox(root, mounts=env.mounts()) as box:
        result = box.run(["python", "-c", "import evilpkg; print(evilpkg.VALUE)"], box.copy("run"))
    assert result.stdout.strip() == "42", result.stderr


IN_TREE_PYPROJECT = """
[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""


def test_a_failing_or_hanging_build_is_a_clear_error_naming_the_package(
    tmp_path: Path, index: tuple[str, dict[str, bytes]]
) -> None:
    url, files = index
    files["evilfail-1.0.tar.gz"] = _sdist(
        "evilfail",
        {
            "pyproject.toml": IN_TREE_PYPROJECT,
            "backend.py": "def build_wheel(outdir, config=None, metadata_directory=None):\n"
            "    print('compiling the extension')\n"
            "    raise RuntimeError('gradelib-boom: the compiler is missing')\n",
        },
    )
    files["evilhang-1.0.tar.gz"] = _sdist(
        "evilhang",
        {"pyproject.toml": IN_TREE_PYPROJECT, "backend.py": "import time\ndef build_wheel(d, c=None, m=None):\n"
         "    time.sleep(600)\n"},
    )  # fmt: skip
    files["evilreq-1.0.tar.gz"] = _sdist(
        "evilreq",
        {"pyproject.toml": IN_TREE_PYPROJECT, "backend.py": "def get_requires_for_build_wheel(c=None):\n"
         "    return ['gradelib-never-installed>=1']\ndef build_wheel(d, c=None, m=None):\n    raise SystemExit(9)\n"},
    )  # fmt: skip
    settings = InstallSettings(cache_dir=tmp_path / "cache", index_url=url, build_source=True, max_seconds=20)
    env = prepare(write_tree(tmp_path / "fail", {"requirements.txt": "evilfail==1.0\n"}), settings)
    assert env.python is None
    assert env.error and "evilfail" in env.error and "RuntimeError: gradelib-boom: the compiler is missing" in env.error
    env = prepare(write_tree(tmp_path / "hang", {"requirements.txt": "evilhang==1.0\n"}), settings)
    assert env.python is None
    assert env.error and "took longer than 20 s" in env.error and "evilhang==1.0" in env.error
    env = prepare(write_tree(tmp_path / "req", {"requirements.txt": "evilreq==1.0\n"}), settings)
    assert env.python is None
    assert env.error and "evilreq" in env.error and "gradelib-never-installed" in env.error  # not on the index


PTH_BACKEND = """
import zipfile

def build_wheel(outdir, config=None, metadata_directory=None):
    name = "evilpth-1.0-py3-none-any.whl"
    with zipfile.ZipFile(outdir + "/" + name, "w") as wheel:
        wheel.writestr("evilpth/__init__.py", "")
        wheel.writestr("zz-evil.pth", "import os; open({marker!r}, 'w').write('ran on the host')\\n")
        wheel.writestr("evilpth-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: evilpth\\nVersion: 1.0\\n")
        info = "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
        wheel.writestr("evilpth-1.0.dist-info/WHEEL", info)
        wheel.writestr("evilpth-1.0.dist-info/RECORD", "")
    return name
"""


def test_a_built_wheel_that_plants_a_pth_file_never_runs_on_the_host(
    tmp_path: Path, index: tuple[str, dict[str, bytes]]
) -> None:
    url, files = index
    marker = tmp_path / "pth-ran"
    files["evilpth-1.0.tar.gz"] = _sdist(
        "evilpth", {"pyproject.toml": IN_TREE_PYPROJECT, "backend.py": PTH_BACKEND.format(marker=str(marker))}
    )
    settings = InstallSettings(cache_dir=tmp_path / "cache", index_url=url, build_source=True)
    env = prepare(write_tree(tmp_path / "sub", {"requirements.txt": "evilpth==1.0\n"}), settings)
    assert env.error is None and env.python is not None, env.error
    site = next(env.python.venv.glob("lib/python*/site-packages"))
    assert (site / "zz-evil.pth").is_file()  # installed as built, in the sandbox: the candidate's runs see it
    assert not marker.exists()


def _wheel(name: str, files: dict[str, str]) -> bytes:
    """A py3-none-any wheel of `name` 1.0 holding these files (and its dist-info)."""
    info = f"{name}-1.0.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    records = "".join(f"{rel},,\n" for rel in files) + f"{info}/RECORD,,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        for rel, text in {**files, f"{info}/RECORD": records}.items():
            wheel.writestr(rel, text)
    return buffer.getvalue()


def test_a_pth_file_in_a_wheel_from_the_index_never_runs_on_the_host(
    tmp_path: Path, index: tuple[str, dict[str, bytes]]
) -> None:
    """Installing and byte-compiling start no interpreter that reads site-packages."""
    url, files = index
    marker = tmp_path / "pth-ran"
    files["evilidx-1.0-py3-none-any.whl"] = _wheel(
        "evilidx",
        {
            "evilidx/__init__.py": "VALUE = 1\n",
            "zz-evilidx.pth": f"import os; open({str(marker)!r}, 'w').write('ran')\n",
        },
    )
    settings = InstallSettings(cache_dir=tmp_path / "cache", index_url=url)
    env = prepare(write_tree(tmp_path / "sub", {"requirements.txt": "evilidx==1.0\n"}), settings)
    assert env.error is None and env.python is not None
    assert ("evilidx", "1.0") in {(p[0], p[1]) for p in env.python.packages}
    site = next(env.python.venv.glob("lib/python*/site-packages"))
    assert (site / "zz-evilidx.pth").is_file()  # installed as the wheel has it: the candidate's runs see it
    assert list((site / "evilidx" / "__pycache__").glob("__init__.*.pyc"))  # compiled, without running it
    assert not marker.exists()


def test_check_with_a_failed_build_makes_every_line_an_error_naming_it(
    tmp_path: Path, index: tuple[str, dict[str, bytes]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, files = index
    files["evilfail-1.0.tar.gz"] = _sdist(
        "evilfail",
        {"pyproject.toml": IN_TREE_PYPROJECT, "backend.py": "def build_wheel(*args):\n    raise SystemExit(7)\n"},
    )
    root = tmp_path / "amara-okafor"
    shutil.copytree(SAMPLES / "replay" / "amara-okafor", root)
    (root / "requirements.txt").write_text("evilfail==1.0\n")
    argv = ["check", "replay", str(root), "--json", "--build-source", "--index-url", url,
            "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert [line["outcome"] for line in report["lines"]] == ["error"] * 5
    assert all("evilfail" in line["message"] for line in report["lines"])
    assert "evilfail" in report["environment"]["error"]
