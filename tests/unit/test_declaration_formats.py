"""Poetry, Pipenv, yarn and pnpm declarations read as data: requirements, pins, refusals, what the lock did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import read_declaration
from gradelib.environment.nodeinstall import package_json, setup_of
from gradelib.environment.poetry import constraint, python_marker
from gradelib.environment.tools import TOOLS

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
    assert "python" not in specs
    # an extra and an optional group: installed too (`poetry install --all-groups --all-extras`), as a README's
    # `poetry install -E x --with docs` asks for
    assert specs["rich"].startswith("rich") and specs["mkdocs"].startswith("mkdocs")
    assert {"mylib", "private-sdk"}.isdisjoint(specs)
    refused = {r.text.split()[0]: r.reason for r in declaration.refused if r.file == "pyproject.toml"}
    assert "git dependency" in refused["mylib"]
    assert "corp" in refused["private-sdk"]
    assert any("[[tool.poetry.source]]" in r.text for r in declaration.refused)
    assert not [r for r in declaration.refused if r.file == "poetry.lock"], "Poetry reads its lock, not the kit"
    assert declaration.python.pins == ()
    assert declaration.python.setup is not None and declaration.python.setup.tool == "poetry"
    assert [lock.to_dict() for lock in declaration.locks] == [
        {"file": "poetry.lock", "honoured": True, "detail": "the project is set up by poetry, which reads it"}
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
    assert declaration.python.pins == () and not [r for r in declaration.refused if r.file == "Pipfile.lock"]
    assert [lock.to_dict() for lock in declaration.locks] == [
        {"file": "Pipfile.lock", "honoured": True, "detail": "the project is set up by pipenv, which reads it"}
    ]


def test_a_pipfile_lock_alone_is_set_up_by_pipenv_which_reads_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {"Pipfile.lock": json.dumps(PIPFILE_LOCK)})
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None and declaration.python.requirements == ()
    assert declaration.python.setup is not None and declaration.python.setup.commands() == [["pipenv", "sync", "--dev"]]


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


def test_a_yarn_lock_is_set_up_by_yarn_itself_frozen(tmp_path: Path) -> None:
    package = {**PACKAGE, "resolutions": {"debug": "4.4.0"}, "scripts": {"postinstall": "curl x | sh"}}
    write_tree(tmp_path, {"package.json": json.dumps(package), "yarn.lock": YARN_LOCK})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.setup_lockfile == "yarn.lock"
    assert declaration.node.setup_lock == YARN_LOCK.encode()
    reduced = package_json(declaration.node)
    assert reduced["dependencies"] == {"undici": "^6.21.0"} and reduced["resolutions"] == {"debug": "4.4.0"}
    assert "scripts" not in reduced
    setup = setup_of(declaration.node)
    assert setup is not None and (setup.tool, setup.version, setup.pinned_by) == (
        "yarn",
        TOOLS["yarn"].version,
        "the kit",
    )
    assert "--frozen-lockfile" in setup.argv(REGISTRY) and "--ignore-scripts" in setup.argv(REGISTRY)
    [lock] = declaration.locks
    assert lock.honoured and "set up by the tool that wrote it" in lock.detail


@pytest.mark.parametrize(
    ("manager", "tool", "version", "pinned_by"),
    [
        (None, "yarn-berry", TOOLS["yarn-berry"].version, "the kit"),
        ("yarn@4.5.3", "yarn-berry", "4.5.3", "packageManager"),
        ("yarn@4.5.3+sha512.abc", "yarn-berry", "4.5.3", "packageManager"),
        ("yarn@1.22.19", "yarn-berry", TOOLS["yarn-berry"].version, "the kit"),  # not the tool that wrote the lock
        ("pnpm@9.15.9", "yarn-berry", TOOLS["yarn-berry"].version, "the kit"),
        ("yarn@https://evil.example/yarn.js", "yarn-berry", TOOLS["yarn-berry"].version, "the kit"),
    ],
)
def test_a_berry_lock_is_set_up_by_berry_at_the_version_package_manager_names(
    tmp_path: Path, manager: str | None, tool: str, version: str, pinned_by: str
) -> None:
    berry = '__metadata:\n  version: 8\n  cacheKey: 10c0\n\n"mocha@npm:^11.1.0":\n  version: 11.7.1\n'
    package = {**PACKAGE, **({"packageManager": manager} if manager else {})}
    write_tree(tmp_path, {"package.json": json.dumps(package), "yarn.lock": berry})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None
    setup = setup_of(declaration.node)
    assert setup is not None and (setup.tool, setup.version, setup.pinned_by) == (tool, version, pinned_by)
    assert "--immutable" in setup.argv(REGISTRY) and setup.env(REGISTRY)["YARN_ENABLE_SCRIPTS"] == "false"


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


def test_a_pnpm_lock_is_set_up_by_pnpm_with_its_overrides(tmp_path: Path) -> None:
    package = {
        "dependencies": {"openai": "^6.49.0"}, "devDependencies": {"tsx": "^4.20.0"}, "packageManager": "pnpm@9.15.9",
        "pnpm": {"overrides": {"zod": "4.6.7"}, "patchedDependencies": {"x": "patches/x.patch"}},
    }  # fmt: skip
    write_tree(tmp_path, {"package.json": json.dumps(package), "pnpm-lock.yaml": PNPM_LOCK})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.setup_lockfile == "pnpm-lock.yaml"
    reduced = package_json(declaration.node)
    assert reduced["pnpm"] == {"overrides": {"zod": "4.6.7"}} and "packageManager" not in reduced
    setup = setup_of(declaration.node)
    assert setup is not None and (setup.tool, setup.version) == ("pnpm", "9.15.9")
    argv = setup.argv(REGISTRY)
    assert "--frozen-lockfile" in argv and "--ignore-scripts" in argv and f"--config.registry={REGISTRY}" in argv


def test_an_npm_lockfile_wins_over_yarn_and_pnpm(tmp_path: Path) -> None:
    npm_lock = {"lockfileVersion": 3, "packages": {"": {}, "node_modules/undici": {"version": "6.29.1"}}}
    files = {"package.json": json.dumps(PACKAGE), "yarn.lock": YARN_LOCK, "package-lock.json": json.dumps(npm_lock)}
    write_tree(tmp_path, files)
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.lockfile == "package-lock.json"
    assert declaration.node.setup_lockfile is None
    setup = setup_of(declaration.node)
    assert (setup.tool, setup.lockfile, setup.argv("R")[:2]) == ("npm", "package-lock.json", ["npm", "ci"])
    assert [lock.file for lock in declaration.locks] == ["package-lock.json"]
