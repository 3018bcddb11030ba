"""Declared dependencies through the real installers (uv, npm) and the real sandbox.

These tests reach PyPI and the npm registry, as CI does. When a registry cannot be
reached they fail with "registry unreachable", never skip.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import threading
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import write_tree

from gradelib.environment import Environment, InstallSettings, prepare
from gradelib.environment.tools import TOOLS
from gradelib.intake import ingest
from gradelib.sandbox import Sandbox

pytestmark = pytest.mark.e2e

REGISTRIES = ("https://pypi.org/simple/six/", "https://registry.npmjs.org/is-number")
IS_NUMBER_LOCK = {
    "name": "sub",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {
        "": {"name": "sub", "devDependencies": {"is-number": "7.0.0"}},
        "node_modules/is-number": {
            "version": "7.0.0",
            "integrity": "sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9c"
            "GvNp6NZWZUBlbGXYxxng==",
            "dev": True,
            "license": "MIT",
            "engines": {"node": ">=0.12.0"},
        },
    },
}


@pytest.fixture(scope="session", autouse=True)
def _registries_reachable() -> None:
    for url in REGISTRIES:
        try:
            with urllib.request.urlopen(url, timeout=20) as answer:
                answer.read(1)
        except OSError as exc:
            pytest.fail(f"registry unreachable: {url}: {exc}")


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> InstallSettings:
    return InstallSettings(cache_dir=tmp_path_factory.mktemp("envcache"))


class _Detector(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def detector() -> Iterator[tuple[int, list[str], list[int]]]:
    """A loopback HTTP server that records every request, and a count of raw connections."""
    hits: list[str] = []
    connections: list[int] = []
    handler = type("Detector", (_Detector,), {"hits": hits})

    class Server(http.server.ThreadingHTTPServer):
        def verify_request(self, request: socket.socket | tuple[bytes, socket.socket], address: object) -> bool:
            connections.append(1)
            return True

    server = Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], hits, connections
    finally:
        server.shutdown()
        server.server_close()


def _run(env: Environment, root: Path, argv: list[str]) -> tuple[int | None, str]:
    with Sandbox(root, mounts=env.mounts()) as box:
        copy = box.copy("run")
        result = box.run(argv, copy)
    return result.exit_code, result.stdout + result.stderr


def test_python_requirements_are_importable_and_python_runs_the_environment(
    tmp_path: Path, settings: InstallSettings
) -> None:
    root = write_tree(
        tmp_path / "sub",
        {
            "requirements.txt": "six==1.16.0\n",
            "run.sh": "#!/usr/bin/env bash\npython -c 'import six, sys; print(six.__version__, sys.prefix)'\n",
        },
    )
    env = prepare(root, settings)
    assert env.error is None, env.error
    assert env.python is not None and ("six", "1.16.0", False) in env.python.packages
    code, output = _run(env, root, ["./run.sh"])
    assert code == 0, output
    version, prefix = output.split()
    assert version == "1.16.0" and prefix == "<python-env>/python"  # the cache folder is masked in run output
    evidence = env.evidence()
    assert evidence["declared"] == [
        {"ecosystem": "python", "file": "requirements.txt", "line": 1, "name": "six", "spec": "six==1.16.0"}
    ]
    assert evidence["installed"][0]["cache"] == "miss"
    again = prepare(root, settings)
    assert again.python is not None and again.python.cache_hit and again.python.folder == env.python.folder


def test_a_run_sh_that_pip_installs_first_finds_everything_installed_offline(
    tmp_path: Path, settings: InstallSettings
) -> None:
    root = write_tree(
        tmp_path / "sub",
        {
            "requirements.txt": "six==1.16.0\n",
            "run.sh": "#!/usr/bin/env bash\nset -e\npip install -q -r requirements.txt\n"
            "python -c 'import six'\necho ok\n",
        },
    )
    env = prepare(root, settings)
    assert env.python is not None and (env.python.venv / "bin" / "pip").exists()
    with Sandbox(root, mounts=env.mounts()) as box:
        result = box.run(["./run.sh"], box.copy("run"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip().endswith("ok")
    assert result.network_attempts == ()


def test_without_a_declaration_python_is_the_clean_system_interpreter(
    tmp_path: Path, settings: InstallSettings
) -> None:
    show = "import sys; print(sys.base_prefix); print([p for p in sys.path if p.endswith(('-packages', '-packages/'))])"
    root = write_tree(
        tmp_path / "sub",
        {"run.sh": f'python -c "{show}"; python3 -c "{show}"; python -c "import papermill"\n'},
    )
    env = prepare(root, settings)
    assert env.declaration.empty and env.python is None
    code, output = _run(env, root, ["bash", "run.sh"])
    lines = output.splitlines()
    machine = str(Path(os.path.realpath(settings.python)).parent.parent)
    for base, packages in (lines[0:2], lines[2:4]):
        assert base == machine  # the grading machine's interpreter, not the kit's own virtualenv
        # only the clean virtualenv's own (empty) site-packages: never the distribution's dist-packages
        assert "dist-packages" not in packages and ".venv" not in packages, packages
    assert "No module named 'papermill'" in output  # the kit's own packages are not there
    assert code != 0


def test_the_environment_is_read_only_for_the_candidate(tmp_path: Path, settings: InstallSettings) -> None:
    root = write_tree(tmp_path / "sub", {"requirements.txt": "six==1.16.0\n"})
    env = prepare(root, settings)
    assert env.python is not None
    target = env.python.venv / "bin" / "planted"
    _code, output = _run(env, root, ["bash", "-c", f"echo x > {target}; python -c 'import six; six.planted=1'"])
    assert not target.exists()
    assert "Read-only file system" in output or "Permission denied" in output


def test_node_lockfile_install_resolves_and_runs_tests(tmp_path: Path, settings: InstallSettings) -> None:
    package = {
        "name": "sub",
        "type": "module",
        "devDependencies": {"is-number": "7.0.0"},
        "scripts": {"test": "node t.mjs"},
    }
    root = write_tree(
        tmp_path / "sub",
        {
            "package.json": json.dumps(package, indent=2),
            "package-lock.json": json.dumps(IS_NUMBER_LOCK, indent=2),
            "t.mjs": "import isNumber from 'is-number'; console.log('is', isNumber(5));\n",
            "node_modules/is-number/index.js": "module.exports = () => 'shipped';\n",
        },
    )
    env = prepare(root, settings)
    assert env.error is None, env.error
    assert env.node is not None and env.node.packages == (("is-number", "7.0.0", True),)
    code, output = _run(env, root, ["npm", "test"])
    assert code == 0, output
    assert "is true" in output  # the installed package, not the shipped node_modules


def test_a_failed_install_of_a_valid_declaration_is_an_error(tmp_path: Path, settings: InstallSettings) -> None:
    root = write_tree(tmp_path / "sub", {"requirements.txt": "gradelib-no-such-package-anywhere==9.9.9\n"})
    env = prepare(root, settings)
    assert env.python is None
    assert env.error and "gradelib-no-such-package-anywhere" in env.error


def test_a_source_only_package_is_refused_naming_it(tmp_path: Path, settings: InstallSettings) -> None:
    root = write_tree(tmp_path / "sub", {"requirements.txt": "docopt==0.6.2\n"})  # an sdist, no wheel
    env = prepare(root, settings)
    assert env.error and "docopt" in env.error and "wheels only" in env.error


def test_install_caps_stop_the_installer(tmp_path: Path, settings: InstallSettings) -> None:
    root = write_tree(tmp_path / "sub", {"requirements.txt": "six==1.16.0\n"})
    small = settings.with_changes(cache_dir=tmp_path / "c1", max_bytes=64 * 1024)
    env = prepare(root, small)
    assert env.error and "grew past" in env.error
    assert not list((tmp_path / "c1" / "envs").iterdir()), "a failed setup leaves nothing in the cache"
    npm_root = write_tree(
        tmp_path / "npm",
        {"package.json": '{"name": "sub", "devDependencies": {"is-number": "7.0.0"}}',
         "package-lock.json": json.dumps(IS_NUMBER_LOCK)},
    )  # fmt: skip
    slow = settings.with_changes(cache_dir=tmp_path / "c2", max_seconds=0.01)
    env = prepare(npm_root, slow)
    assert env.error and "longer than" in env.error


def test_hostile_declarations_never_reach_their_servers_nor_run_scripts(
    tmp_path: Path, settings: InstallSettings, detector: tuple[int, list[str], list[int]]
) -> None:
    port, hits, connections = detector
    evil = f"http://127.0.0.1:{port}"
    marker = tmp_path / "pwned"
    lock = json.loads(json.dumps(IS_NUMBER_LOCK))
    lock["packages"]["node_modules/is-number"]["resolved"] = f"{evil}/is-number-7.0.0.tgz"
    root = write_tree(
        tmp_path / "sub",
        {
            "requirements.txt": "\n".join(
                [
                    f"--index-url {evil}/simple",
                    f"--extra-index-url {evil}/simple",
                    f"-f {evil}/wheels",
                    "--trusted-host 127.0.0.1",
                    f"-e git+{evil}/x.git#egg=x",
                    f"git+{evil}/y.git",
                    f"zed @ {evil}/zed-1.0-py3-none-any.whl",
                    "six==1.16.0",
                ]
            ),
            "pyproject.toml": (
                f'[project]\nname = "s"\nversion = "0"\ndependencies = []\n[tool.uv]\nindex-url = "{evil}/simple"\n'
            ),
            "uv.toml": f'index-url = "{evil}/simple"\n',
            "pip.conf": f"[global]\nindex-url = {evil}/simple\n",
            ".npmrc": f"registry={evil}/\n",
            "package.json": json.dumps(
                {
                    "name": "sub",
                    "scripts": {
                        "preinstall": f"touch {marker}",
                        "postinstall": f"touch {marker}",
                        "prepare": f"touch {marker}",
                    },
                    "dependencies": {"tar": f"{evil}/t.tgz", "loc": "file:../outside", "gh": "git+https://127.0.0.1/x"},
                    "devDependencies": {"is-number": "7.0.0"},
                }
            ),
            "package-lock.json": json.dumps(lock),
        },
    )
    before = ingest.digest(root)
    env = prepare(root, settings)
    assert env.error is None, env.error
    assert hits == [] and connections == []
    assert not marker.exists()
    assert ingest.digest(root) == before  # the submission itself was not written
    reasons = {(r.file, r.line) for r in env.declaration.refused}
    assert {("requirements.txt", n) for n in range(1, 8)} <= reasons
    assert {r.file for r in env.declaration.refused} >= {"requirements.txt", "package.json", "package-lock.json"}
    notes = " ".join(env.declaration.notes)
    assert "uv.toml is ignored" in notes and "pip.conf is ignored" in notes and ".npmrc is ignored" in notes
    assert env.python is not None and "six" in [p[0] for p in env.python.packages]
    assert "zed" not in [p[0] for p in env.python.packages]
    assert env.node is not None and env.node.packages == (("is-number", "7.0.0", True),)  # resolved from the registry


def _prepare_in_process(args: tuple[str, str]) -> str:
    root, cache = args
    env = prepare(Path(root), InstallSettings(cache_dir=Path(cache)))
    assert env.python is not None, env.error
    return "hit" if env.python.cache_hit else "miss"


def test_twenty_copies_of_one_submission_install_once(tmp_path: Path) -> None:
    copies = []
    for number in range(20):
        copies.append(
            write_tree(tmp_path / f"cand-{number:02d}", {"requirements.txt": "six==1.16.0\n", "x.py": f"{number}\n"})
        )
    cache = tmp_path / "cache"
    with ProcessPoolExecutor(4) as pool:
        results = list(pool.map(_prepare_in_process, [(str(c), str(cache)) for c in copies]))
    assert sorted(results) == ["hit"] * 19 + ["miss"]
    assert len(list((cache / "envs").iterdir())) == 1


def test_offline_uses_the_cache_and_names_what_is_missing(tmp_path: Path, settings: InstallSettings) -> None:
    root = write_tree(tmp_path / "sub", {"requirements.txt": "six==1.16.0\n"})
    assert prepare(root, settings).python is not None  # fetched while online
    offline = prepare(root, settings.with_changes(offline=True))
    assert offline.python is not None and offline.python.cache_hit
    missing = write_tree(tmp_path / "other", {"requirements.txt": "gradelib-never-cached==1.0\n"})
    env = prepare(missing, settings.with_changes(offline=True))
    assert env.error and "offline" in env.error and "gradelib-never-cached==1.0" in env.error


def test_deps_fetch_cli_fills_the_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gradelib.cli import main

    write_tree(tmp_path / "cohort" / "ana", {"requirements.txt": "six==1.16.0\n", "run.sh": "true\n"})
    write_tree(tmp_path / "cohort" / "ben", {"run.sh": "true\n"})
    code = main(["deps", "fetch", str(tmp_path / "cohort"), "--cache-dir", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"ana: python: 1 packages (set up by uv {TOOLS['uv'].version}, installed in" in out
    assert "ben: no dependencies declared" in out
    assert shutil.which("uv") or True  # uv ships with the kit; nothing else needed
