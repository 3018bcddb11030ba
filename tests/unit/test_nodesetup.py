"""What the yarn and pnpm setup hands the sandbox and reads back: the machine's trust settings, and the
packages at the top of the node_modules a tool made (links kept inside it)."""

from __future__ import annotations

import json
from pathlib import Path

from gradelib.environment.nodesetup import installed
from gradelib.environment.toolsetup import trust_settings


def test_only_the_machines_own_certificate_files_go_to_the_setup() -> None:
    environ = {
        "NODE_EXTRA_CA_CERTS": "/etc/ssl/certs/ca-certificates.crt",
        "SSL_CERT_DIR": "/etc/ssl/certs",
        "SSL_CERT_FILE": "/home/reviewer/corp-ca.pem",  # not a file the sandbox sees
        "OPENAI_API_KEY": "sk-secret",
    }
    assert trust_settings(environ) == {
        "NODE_EXTRA_CA_CERTS": "/etc/ssl/certs/ca-certificates.crt",
        "SSL_CERT_DIR": "/etc/ssl/certs",
    }
    assert trust_settings({"SSL_CERT_FILE": "/etc/../root/.ssh/id_rsa"}) == {}


def _package(folder: Path, name: str, version: str) -> None:
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": name, "version": version}))


def test_the_top_of_node_modules_is_listed_from_each_packages_own_manifest(tmp_path: Path) -> None:
    modules = tmp_path / "node_modules"
    _package(modules / ".pnpm" / "is-odd@3.0.1" / "node_modules" / "is-odd", "is-odd", "3.0.1")
    (modules / "is-odd").symlink_to(Path(".pnpm/is-odd@3.0.1/node_modules/is-odd"))
    _package(modules / "@scope" / "tool", "@scope/tool", "1.2.0")
    _package(tmp_path / "outside", "secret", "9.9.9")
    (modules / "escape").symlink_to(tmp_path / "outside")
    (modules / ".bin").mkdir()
    assert installed(modules, frozenset({"@scope/tool"})) == (
        ("@scope/tool", "1.2.0", True),
        ("is-odd", "3.0.1", False),
    )
