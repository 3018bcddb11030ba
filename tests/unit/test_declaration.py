"""Reading what a submission declares: accepted requirements, refusals with file and line, notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.environment import read_declaration
from gradelib.environment.cache import environment_key

REGISTRY = "https://registry.npmjs.org/"


def _refused(root: Path) -> list[tuple[str, int | None, str]]:
    return [(r.file, r.line, r.reason) for r in read_declaration(root, registry=REGISTRY).refused]


def test_plain_requirements_are_accepted_with_their_lines(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"requirements.txt": "# the SDK\nopenai>=1.40,<4  # pinned loosely\n\nvcrpy==6.0.2 \\\n  --hash=sha256:ab\n"},
    )
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    assert [(d.name, d.spec, d.line) for d in declaration.python.requirements] == [
        ("openai", "openai<4,>=1.40", 2),
        ("vcrpy", "vcrpy==6.0.2", 4),
    ]
    assert declaration.refused == ()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("--index-url http://127.0.0.1:9/simple", "installer option --index-url"),
        ("-i http://127.0.0.1:9/simple", "installer option -i"),
        ("--extra-index-url=http://127.0.0.1:9/simple", "installer option --extra-index-url"),
        ("-f http://127.0.0.1:9/wheels", "installer option -f"),
        ("--trusted-host 127.0.0.1", "installer option --trusted-host"),
        ("-e .", "installer option -e"),
        ("-r ../outside.txt", "must name a file inside the submission"),
        ("-r /etc/passwd", "must name a file inside the submission"),
        ("-r missing.txt", "does not exist"),
        ("--no-binary :all:", "installer option --no-binary"),
        ("requests --index-url http://127.0.0.1:9/", "installer option --index-url"),
        ("git+https://127.0.0.1:9/evil.git", "VCS or URL"),
        ("evil @ https://127.0.0.1:9/evil-1.0-py3-none-any.whl", "direct URL"),
        ("evil @ file:///etc/passwd", "direct URL"),
        ("./vendor/evil", "path"),
        ("/abs/evil", "path"),
        ("http://127.0.0.1:9/evil.tar.gz", "URL"),
        ("not a requirement !!", "not a valid requirement"),
    ],
)
def test_unsafe_requirement_lines_are_refused_by_line(tmp_path: Path, line: str, reason: str) -> None:
    write_tree(tmp_path, {"requirements.txt": f"six==1.16.0\n{line}\n"})
    declaration = read_declaration(tmp_path)
    assert [(r.file, r.line) for r in declaration.refused] == [("requirements.txt", 2)]
    assert reason in declaration.refused[0].reason
    assert declaration.python is not None and [d.name for d in declaration.python.requirements] == ["six"]


def test_pyproject_dependencies_a_uv_lock_for_uv_and_ignored_tool_uv(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "pyproject.toml": """
                [project]
                name = "triage"
                version = "0.1.0"
                dependencies = ["openai>=1.40", "evil @ https://127.0.0.1:9/e.whl"]

                [tool.uv]
                index-url = "http://127.0.0.1:9/simple"
            """,
            "uv.lock": """
                version = 1
                [[package]]
                name = "triage"
                version = "0.1.0"
                source = { editable = "." }

                [[package]]
                name = "openai"
                version = "1.51.0"
                source = { registry = "https://pypi.org/simple" }

                [[package]]
                name = "sneaky"
                version = "0.1.0"
                source = { git = "https://127.0.0.1:9/sneaky.git" }
            """,
        },
    )
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    assert [d.spec for d in declaration.python.requirements] == ["openai>=1.40"]
    assert declaration.python.pins == ()  # uv reads its own lock: its git entry meets the registry proxy
    assert {(r.file, r.text.split()[0]) for r in declaration.refused} == {("pyproject.toml", "evil")}
    assert [(lock.file, lock.honoured) for lock in declaration.locks] == [("uv.lock", True)]
    assert any("[tool.uv] is ignored" in note for note in declaration.notes)


def test_package_json_registry_ranges_accepted_others_refused(tmp_path: Path) -> None:
    package = {
        "type": "module",
        "dependencies": {"openai": "^6.0.0", "left": "npm:left-pad@^1.3.0", "local": "file:../x", "gh": "user/repo"},
        "devDependencies": {
            "vitest": "~4.1.12",
            "vite": "^8.3.0 || >=9",
            "tarball": "http://127.0.0.1:9/x.tgz",
            "g": "git+ssh://git@h/x.git",
            "home": "~/evil",
            "up": "../evil",
        },
        "scripts": {"preinstall": "touch /tmp/pwned"},
    }
    write_tree(tmp_path, {"package.json": json.dumps(package, indent=2), ".npmrc": "registry=http://127.0.0.1:9/\n"})
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None
    assert [d.name for d in declaration.node.dependencies] == ["openai", "left"]
    assert [d.name for d in declaration.node.dev_dependencies] == ["vitest", "vite"]
    assert declaration.node.runtime_names == ["left", "openai"]
    assert sorted(r.text.split(":")[0] for r in declaration.refused) == ["g", "gh", "home", "local", "tarball", "up"]
    assert all(r.line for r in declaration.refused)
    assert any(".npmrc is ignored" in note for note in declaration.notes)


def test_lockfile_resolved_outside_the_registry_is_not_used(tmp_path: Path) -> None:
    lock = {
        "lockfileVersion": 3,
        "packages": {
            "": {"dependencies": {"is-number": "^7.0.0"}},
            "node_modules/is-number": {"version": "7.0.0", "resolved": "http://127.0.0.1:9/is-number-7.0.0.tgz"},
        },
    }
    write_tree(
        tmp_path, {"package.json": '{"dependencies": {"is-number": "^7.0.0"}}', "package-lock.json": json.dumps(lock)}
    )
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.lockfile is None
    assert [(r.file, r.reason) for r in declaration.refused] == [
        ("package-lock.json", f"resolved outside the registry {REGISTRY}")
    ]


def test_lockfile_without_resolved_urls_is_used(tmp_path: Path) -> None:
    lock = {
        "lockfileVersion": 3,
        "packages": {"": {}, "node_modules/is-number": {"version": "7.0.0", "integrity": "x"}},
    }
    write_tree(
        tmp_path, {"package.json": '{"devDependencies": {"is-number": "7.0.0"}}', "package-lock.json": json.dumps(lock)}
    )
    declaration = read_declaration(tmp_path, registry=REGISTRY)
    assert declaration.node is not None and declaration.node.lockfile == "package-lock.json"
    assert declaration.refused == ()


@pytest.mark.parametrize("name", ["environment.yml"])
def test_unsupported_files_get_a_note_not_a_crash(tmp_path: Path, name: str) -> None:
    write_tree(tmp_path, {name: "whatever\n"})
    declaration = read_declaration(tmp_path)
    assert declaration.empty
    assert any(note.startswith(f"{name}:") for note in declaration.notes)


@pytest.mark.parametrize(
    ("files", "file"),
    [
        ({"Pipfile": "[packages\n"}, "Pipfile"),
        ({"pyproject.toml": "[project\n"}, "pyproject.toml"),
    ],
    ids=["pipfile", "pyproject"],
)
def test_a_broken_pipfile_or_pyproject_is_refused(tmp_path: Path, files: dict[str, str], file: str) -> None:
    write_tree(tmp_path, files)
    declaration = read_declaration(tmp_path)
    assert [r.file for r in declaration.refused] == [file]


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ({"package.json": "{not json"}, "not valid JSON"),
        ({"package.json": "[1, 2]"}, "not a JSON object"),
        ({"pyproject.toml": "[project\n"}, "not valid TOML"),
        ({"package.json": '{"dependencies": ["a"]}'}, "must be an object"),
    ],
)
def test_broken_declarations_are_refused_with_a_reason(tmp_path: Path, files: dict[str, str], reason: str) -> None:
    write_tree(tmp_path, files)
    declaration = read_declaration(tmp_path)
    assert declaration.empty
    assert reason in declaration.refused[0].reason


def test_a_linked_declaration_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").symlink_to("/etc/passwd")
    declaration = read_declaration(tmp_path)
    assert declaration.python is None
    assert declaration.refused[0].file == "requirements.txt" and "link" in declaration.refused[0].reason


def test_key_is_stable_and_depends_on_every_part() -> None:
    parts = {"requirements": ["openai>=1"], "python": "3.11.2", "index": "default"}
    assert environment_key("python", parts) == environment_key("python", dict(reversed(list(parts.items()))))
    assert environment_key("python", parts) != environment_key("python", {**parts, "python": "3.12.0"})
    assert environment_key("python", parts) != environment_key("node", parts)


def test_included_requirement_and_constraint_files_inside_the_submission(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "requirements.txt": "-r requirements/base.txt\n-c constraints.txt\n--require-hashes\nvcrpy\n",
            "requirements/base.txt": "openai>=1.40\n-r ../loop.txt\n",
            "loop.txt": "-r requirements.txt\nrequests\n",
            "constraints.txt": "openai==1.51.0\n",
        },
    )
    declaration = read_declaration(tmp_path)
    assert declaration.python is not None
    assert [(d.file, d.line, d.name) for d in declaration.python.requirements] == [
        ("requirements/base.txt", 1, "openai"),
        ("loop.txt", 2, "requests"),
        ("requirements.txt", 4, "vcrpy"),
    ]
    assert any("a cycle" in note for note in declaration.notes)
    assert "openai==1.51.0" in declaration.python.pins
    assert any("--require-hashes ignored" in note for note in declaration.notes)


def test_requirements_pinned_with_hashes_are_installed_with_them_checked(tmp_path: Path) -> None:
    """pip-compile --generate-hashes: every line pinned with its hashes, which the kit's uv then checks."""
    from gradelib.environment.installsettings import InstallSettings
    from gradelib.environment.pyinstall import commands, hashed

    hashed_text = "idna==3.10 \\\n    --hash=sha256:aa --hash=sha256:bb\nsix==1.17.0 --hash=sha256:cc\n"
    write_tree(tmp_path, {"requirements.txt": hashed_text})
    python = read_declaration(tmp_path).python
    assert python is not None and hashed(python)
    assert [r.hashes for r in python.requirements] == [("sha256:aa", "sha256:bb"), ("sha256:cc",)]
    argv = commands(python, InstallSettings(cache_dir=tmp_path / "cache"), tmp_path / "venv", tmp_path / "in")[1]
    assert "--require-hashes" in argv
    write_tree(tmp_path, {"requirements.txt": hashed_text + "httpx\n"})  # one unhashed line: no hash mode at all
    mixed = read_declaration(tmp_path).python
    assert mixed is not None and not hashed(mixed)
