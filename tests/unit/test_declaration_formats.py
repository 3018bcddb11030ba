"""Poetry, Pipenv, yarn and pnpm declarations read as data: requirements, pins, refusals, what the lock did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import read_declaration
from gradelib.environment.nodeinstall import package_json
from gradelib.environment.poetry import constraint, python_marker

REGISTRY = "https://registry.npmjs.org/"


@pytest.mark.parametrize(
    ("poetry", "pep440"),
    [
        ("^1.2.3", ">=1.2.3,<2.0.0"),
        ("^1.2", ">=1.2,<2.0"),
        ("^1", ">=1,<2"),
        ("^0.2.3", ">=0.2.3,<0.3.0"),
        ("^0.0.3", ">=0.0.3,<0.0.4"),
        ("^0.0", ">=0.0,<0.1"),
        ("^0", ">=0,<1"),
        ("~1.2.3", ">=1.2.3,<1.3.0"),
        ("~1.2", ">=1.2,<1.3"),
        ("~1", ">=1,<2"),
        ("~=1.4", "~=1.4"),
        ("1.2.3", "==1.2.3"),
        ("1.2.*", "==1.2.*"),
        ("*", ""),
        (">= 1.2, < 2.0", ">=1.2,<2.0"),
        (">=1.2 <2.0", ">=1.2,<2.0"),
        ("!=1.5", "!=1.5"),
    ],
)
def test_poetry_constraints_become_pep_440(poetry: str, pep440: str) -> None:
    assert constraint(poetry) == pep440


def test_an_or_constraint_has_no_pep_440_form() -> None:
    assert constraint("^1.0 || ^2.0") is None
    assert python_marker("^3.8") == 'python_full_version >= "3.8" and python_full_version < "4.0"'


POETRY_PYPROJECT = """
[tool.poetry]
name = "triage-bot"
version = "0.3.0"
packages = [{ include = "triage_bot" }]

[tool.poetry.dependencies]
python = "^3.11"
httpx = "^0.28.1"
tenacity = { version = "~9.0", extras = ["doc"] }
colorama = { version = "*", markers = "sys_platform == 'win32'" }
rich = { version = "^13", optional = true }
mylib = { git = "https://github.com/x/mylib.git" }
private-sdk = { version = "^1", source = "corp" }

[tool.poetry.group.dev.dependencies]
pytest = "^8.3"

[tool.poetry.group.docs]
optional = true

[tool.poetry.group.docs.dependencies]
mkdocs = "^1.6"

[[tool.poetry.source]]
name = "corp"
url = "https://pypi.corp.example/simple/"
priority = "supplemental"

[build-system]
requires = ["poetry-core>=1.0.0"]
build-backend = "poetry.core.masonry.api"
"""

POETRY_LOCK = """
[[package]]
name = "httpx"
version = "0.28.1"
files = [{file = "httpx-0.28.1-py3-none-any.whl", hash = "sha256:00"}]

[[package]]
name = "anyio"
version = "4.8.0"
files = []

[[package]]
name = "mylib"
version = "0.1.0"
[package.source]
type = "git"
url = "https://github.com/x/mylib.git"
reference = "HEAD"

[metadata]
lock-version = "2.1"
content-hash = "abc"
"""


def test_classic_poetry_dependencies_groups_sources_and_lock(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": POETRY_PYPROJECT, "poetry.lock": POETRY_LOCK})
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    specs = {d.name: d.spec for d in declaration.python.requirements}
    assert specs["httpx"] == "httpx<0.29.0,>=0.28.1"
    assert specs["tenacity"].startswith("tenacity[doc]")
    assert "sys_platform" in specs["colorama"]
    assert specs["pytest"] == "pytest<9.0,>=8.3"  # a non-optional group: installed, as poetry install does
    assert "python" not in specs and "rich" not in specs and "mkdocs" not in specs
    assert {"mylib", "private-sdk"}.isdisjoint(specs)
    refused = {r.text.split()[0]: r.reason for r in declaration.refused if r.file == "pyproject.toml"}
    assert "git dependency" in refused["mylib"]
    assert "corp" in refused["private-sdk"]
    assert any("[[tool.poetry.source]]" in r.text for r in declaration.refused)
    assert any(r.file == "poetry.lock" and "mylib" in r.text for r in declaration.refused)
    assert declaration.python.pins == ("anyio==4.8.0", "httpx==0.28.1")
    assert [lock.to_dict() for lock in declaration.locks] == [
        {"file": "poetry.lock", "honoured": True, "detail": "2 locked versions installed"}
    ]
    assert any("'docs' is optional" in note for note in declaration.notes)


def test_poetry_2_project_table_is_not_read_twice(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": """
            [project]
            name = "x"
            version = "1"
            dependencies = ["requests>=2"]
            [tool.poetry.dependencies]
            requests = { source = "pypi" }
            [tool.poetry.group.dev.dependencies]
            pytest = "^8"
            """
        },
    )
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    assert [d.spec for d in declaration.python.requirements] == ["requests>=2", "pytest<9,>=8"]


PIPFILE = """
[[source]]
url = "https://pypi.org/simple"
verify_ssl = true
name = "pypi"

[[source]]
url = "https://nexus.corp.example/simple"
name = "corp"

[packages]
requests = "*"
openai = ">=1.40,<3"
rich = { version = "==13.9.4", extras = ["jupyter"] }
internal = { version = "*", index = "corp" }
mytool = { git = "https://github.com/x/tool.git", ref = "main" }
triage = { path = ".", editable = true }

[dev-packages]
pytest = "~=8.3"

[requires]
python_version = "3.11"
"""

PIPFILE_LOCK = {
    "_meta": {"sources": [{"name": "pypi", "url": "https://pypi.org/simple", "verify_ssl": True}]},
    "default": {
        "requests": {"hashes": ["sha256:00"], "index": "pypi", "version": "==2.32.3"},
        "certifi": {"hashes": [], "markers": "python_version >= '3.6'", "version": "==2025.1.31"},
        "mytool": {"git": "https://github.com/x/tool.git", "ref": "abc"},
        "triage": {"editable": True, "path": "."},
    },
    "develop": {"pytest": {"hashes": [], "version": "==8.3.4"}},
}


def test_pipfile_sections_sources_and_lock(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Pipfile": PIPFILE, "Pipfile.lock": json.dumps(PIPFILE_LOCK)})
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    specs = {d.name: d.spec for d in declaration.python.requirements}
    assert specs == {
        "requests": "requests",
        "openai": "openai<3,>=1.40",
        "rich": "rich[jupyter]==13.9.4",
        "pytest": "pytest~=8.3",
    }
    reasons = " ".join(r.reason for r in declaration.refused)
    assert "a git dependency" in reasons and "'corp'" in reasons
    assert any("nexus.corp.example" in r.text for r in declaration.refused)
    assert any("project itself" in note for note in declaration.notes)
    assert declaration.python.pins == ("certifi==2025.1.31", "pytest==8.3.4", "requests==2.32.3")
    assert any(r.file == "Pipfile.lock" and "mytool" in r.text for r in declaration.refused)


def test_a_pipfile_lock_alone_is_the_declaration(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Pipfile.lock": json.dumps(PIPFILE_LOCK)})
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    assert sorted(d.spec for d in declaration.python.requirements) == [
        'certifi==2025.1.31; python_version >= "3.6"',
        "pytest==8.3.4",
        "requests==2.32.3",
    ]


PACKAGE = {"name": "c", "dependencies": {"undici": "^6.21.0"}, "devDependencies": {"mocha": "^11.1.0"}}
YARN_LOCK = """# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


"@types/node@*", "@types/node@^20":
  version "20.19.43"
  resolved "https://registry.yarnpkg.com/@types/node/-/node-20.19.43.tgz#abc"
  integrity sha512-x

debug@^4.3.5:
  version "4.4.0"
  resolved "https://registry.yarnpkg.com/debug/-/debug-4.4.0.tgz#def"
  dependencies:
    ms "^2.1.3"

debug@^2.6.9:
  version "2.6.9"
  resolved "https://registry.yarnpkg.com/debug/-/debug-2.6.9.tgz#123"

mocha@^11.1.0:
  version "11.7.1"
  resolved "https://registry.yarnpkg.com/mocha/-/mocha-11.7.1.tgz#456"

undici@^6.21.0:
  version "6.29.1"
  resolved "https://registry.yarnpkg.com/undici/-/undici-6.29.1.tgz#789"
"""


def test_yarn_lock_versions_are_installed_by_npm(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": json.dumps(PACKAGE), "yarn.lock": YARN_LOCK})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.locked is not None
    reduced = package_json(declaration.node)
    assert reduced["dependencies"] == {"undici": "6.29.1"}
    assert reduced["devDependencies"] == {"mocha": "11.7.1"}
    assert reduced["overrides"] == {"@types/node": "20.19.43"}  # debug is locked at two versions: npm resolves it
    [lock] = declaration.locks
    assert lock.honoured and "1 packages locked at several versions" in lock.detail


def test_a_yarn_lock_entry_outside_the_registry_makes_it_unused(tmp_path: Path) -> None:
    lock = YARN_LOCK + '\nleft-pad@^1.3.0:\n  version "1.3.0"\n  resolved "https://evil.example/left-pad-1.3.0.tgz"\n'
    write_tree(tmp_path, {"package.json": json.dumps(PACKAGE), "yarn.lock": lock})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.locked is None
    assert any("evil.example" in r.text for r in declaration.refused)
    [use] = declaration.locks
    assert not use.honoured and "resolved from package.json" in use.detail
    assert package_json(declaration.node)["dependencies"] == {"undici": "^6.21.0"}


PNPM_LOCK = """lockfileVersion: '9.0'

settings:
  autoInstallPeers: true

importers:

  .:
    dependencies:
      openai:
        specifier: ^6.49.0
        version: 6.49.0(zod@4.6.7)
    devDependencies:
      tsx:
        specifier: ^4.20.0
        version: 4.23.15

packages:

  '@esbuild/linux-x64@0.28.2':
    resolution: {integrity: sha512-a}
    cpu: [x64]

  openai@6.49.0:
    resolution: {integrity: sha512-b}

  tsx@4.23.15:
    resolution: {integrity: sha512-c}

  zod@4.6.7:
    resolution: {integrity: sha512-d}

snapshots:

  openai@6.49.0(zod@4.6.7):
    optionalDependencies:
      zod: 4.6.7
"""


def test_pnpm_lock_versions_are_installed_by_npm(tmp_path: Path) -> None:
    package = {"dependencies": {"openai": "^6.49.0"}, "devDependencies": {"tsx": "^4.20.0"}}
    write_tree(tmp_path, {"package.json": json.dumps(package), "pnpm-lock.yaml": PNPM_LOCK})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None
    reduced = package_json(declaration.node)
    assert reduced["dependencies"] == {"openai": "6.49.0"} and reduced["devDependencies"] == {"tsx": "4.23.15"}
    assert reduced["overrides"] == {"@esbuild/linux-x64": "0.28.2", "zod": "4.6.7"}
    assert declaration.locks[0].file == "pnpm-lock.yaml" and declaration.locks[0].honoured


def test_a_pnpm_lock_with_a_git_package_is_not_used(tmp_path: Path) -> None:
    git = "\n  mylib@1.0.0:\n    resolution: {type: git, repo: x, commit: abc}\n"
    lock = PNPM_LOCK.replace("\nsnapshots:", git + "\nsnapshots:")
    write_tree(tmp_path, {"package.json": json.dumps(PACKAGE), "pnpm-lock.yaml": lock})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.locked is None
    assert not declaration.locks[0].honoured
    assert any("not a registry package" in r.reason for r in declaration.refused)


def test_an_npm_lockfile_wins_over_yarn_and_pnpm(tmp_path: Path) -> None:
    npm_lock = {"lockfileVersion": 3, "packages": {"": {}, "node_modules/undici": {"version": "6.29.1"}}}
    files = {"package.json": json.dumps(PACKAGE), "yarn.lock": YARN_LOCK, "package-lock.json": json.dumps(npm_lock)}
    write_tree(tmp_path, files)
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.lockfile == "package-lock.json"
    assert declaration.node.locked is None
    assert [lock.file for lock in declaration.locks] == ["package-lock.json"]
