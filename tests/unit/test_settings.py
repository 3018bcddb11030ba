"""One table of `GRADELIB_*` settings: strict values, unknown names refused, `gradelib settings`, the README's table,
and no module but `gradelib/settings.py` reading a kit setting from the environment."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from golden_util import assert_readme_block

from gradelib import cli, settings
from gradelib.batch import driver
from gradelib.errors import SettingsError
from gradelib.sandbox import Sandbox
from gradelib.settings import SETTINGS, Settings, current_settings, load

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "gradelib"
README = ROOT / "README.md"
# `GRADELIB_RESULT <key> {...}` is a line a take-home's driver prints, never an environment variable.
NOT_VARIABLES = {"GRADELIB_RESULT"}
READ_METHODS = {"get", "getenv"}  # environ.get(NAME), os.getenv(NAME)

TRUE_SPELLINGS = ["1", "true", "TRUE", "yes", "Yes", "on", " On ", "tRuE\n"]
FALSE_SPELLINGS = ["0", "false", "False", "no", "NO", "off", " OFF ", "\tno"]


@pytest.mark.parametrize("text", TRUE_SPELLINGS)
def test_every_spelling_of_yes_turns_a_boolean_on(text: str) -> None:
    assert load({"GRADELIB_OFFLINE": text}).offline is True
    assert load({"GRADELIB_WARM_WORKERS": text}).warm_workers is True


@pytest.mark.parametrize("text", FALSE_SPELLINGS)
def test_every_spelling_of_no_turns_a_boolean_off(text: str) -> None:
    assert load({"GRADELIB_OFFLINE": text}).offline is False
    assert load({"GRADELIB_REVEAL": text}).reveal is False


def test_the_three_settings_that_used_to_mean_the_opposite(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert load({"GRADELIB_OFFLINE": "false"}).offline is False  # it used to turn offline mode on
    monkeypatch.setenv("GRADELIB_NO_NAMESPACES", "0")  # it used to turn the namespaces off
    assert Sandbox(tmp_path).isolate is True
    monkeypatch.setenv("GRADELIB_NO_NAMESPACES", "yes")
    assert Sandbox(tmp_path).isolate is False
    monkeypatch.setenv("GRADELIB_WARM_WORKERS", "off")  # it used to keep warm workers
    assert driver._warm_context().get_start_method() == "spawn"


def test_an_empty_value_is_the_default_and_a_given_one_says_so() -> None:
    given = load({"GRADELIB_OFFLINE": "", "GRADELIB_DISK_MIB": "64", "GRADELIB_DECISIONS": "next round, no ,"})
    assert given.offline is False and given.source("GRADELIB_OFFLINE") == "default"
    assert given.disk_mib == 64 and given.given("disk_mib") and not given.given("install_seconds")
    assert given.decisions == ("next round", "no")
    assert load({}).decisions == settings.DEFAULT_DECISIONS


YES_NO = "bool: it accepts 1, true, yes, on or 0, false, no, off (any case)"


@pytest.mark.parametrize(
    ("name", "text", "accepts"),
    [
        ("GRADELIB_OFFLINE", "maybe", YES_NO),
        ("GRADELIB_NO_NAMESPACES", "2", YES_NO),
        ("GRADELIB_DISK_MIB", "lots", "int: it accepts a whole number, at least 1"),
        ("GRADELIB_DISK_MIB", "0", "int: it accepts a whole number, at least 1"),
        ("GRADELIB_INSTALL_SECONDS", "-5", "float: it accepts a number greater than 0"),
        ("GRADELIB_INSTALL_SECONDS", "nan", "float: it accepts a number greater than 0"),
    ],
)
def test_a_value_the_kit_cannot_mean_names_the_variable_and_what_it_accepts(name: str, text: str, accepts: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load({name: text})
    assert caught.value.variable == name
    assert str(caught.value) == f"{name}: {text!r} is not a valid {accepts}"


def test_an_unknown_variable_is_refused_with_the_closest_known_name() -> None:
    with pytest.raises(
        SettingsError, match=r"GRADELIB_OFLINE: not a gradelib setting \(did you mean GRADELIB_OFFLINE\?\)"
    ):
        load({"GRADELIB_OFLINE": "1"})
    with pytest.raises(SettingsError, match=r"did you mean GRADELIB_STARTER_REPLAY\?"):
        load({"GRADELIB_STARTR_REPLAY": "x"})
    with pytest.raises(SettingsError, match=r"^GRADELIB_XYZ: not a gradelib setting; `gradelib settings` lists"):
        load({"GRADELIB_XYZ": ""})  # unknown even when empty
    with pytest.raises(SettingsError) as caught:  # every problem in one line
        load({"GRADELIB_OFLINE": "1", "GRADELIB_REVEAL": "perhaps"})
    assert "GRADELIB_OFLINE" in str(caught.value) and "GRADELIB_REVEAL: 'perhaps'" in str(caught.value)
    assert load({"GRADELIB_STARTER_WEBHOOKS": "/srv/starter", "HOME": "/h"}).starter_paths("webhooks") == (
        Path("/srv/starter"),
    )


def test_the_table_and_the_settings_object_hold_the_same_settings() -> None:
    fields = set(Settings.__dataclass_fields__) - {"sources"}
    assert {setting.field for setting in SETTINGS} == fields
    assert len({setting.name for setting in SETTINGS}) == len(SETTINGS)
    assert all(setting.name.startswith(settings.PREFIX) and setting.meaning for setting in SETTINGS)
    assert {setting.kind for setting in SETTINGS} <= set(settings.ACCEPTS)


def test_the_settings_follow_the_environment_and_flags_say_where_they_came_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRADELIB_REVIEWER", "ana")
    assert current_settings().reviewer == "ana"
    monkeypatch.setenv("GRADELIB_REVIEWER", "bo")  # read again once the environment changed
    assert current_settings().reviewer == "bo" and current_settings() is current_settings()
    flagged = current_settings().with_flags(offline=True)
    assert flagged.offline and flagged.source("GRADELIB_OFFLINE") == "flag"
    assert flagged.source("GRADELIB_REVIEWER") == "environment"
    assert current_settings().source("GRADELIB_OFFLINE") != "flag"


def test_the_cli_refuses_an_unknown_variable_before_it_does_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "gradebook.sqlite"  # `queue` makes one when it runs
    monkeypatch.setenv("GRADELIB_REVEIW", "1")
    assert cli.main(["queue", "--reviewer", "ana", "--gradebook", str(book)]) == 2
    said = capsys.readouterr()
    assert said.err.strip().splitlines() == [
        "gradelib: GRADELIB_REVEIW: not a gradelib setting (did you mean GRADELIB_REVIEWER?);"
        " `gradelib settings` lists every one"
    ]
    assert not book.exists() and said.out == ""
    monkeypatch.delenv("GRADELIB_REVEIW")
    monkeypatch.setenv("GRADELIB_WARM_WORKERS", "sometimes")
    assert cli.main(["settings"]) == 2
    assert "GRADELIB_WARM_WORKERS: 'sometimes'" in capsys.readouterr().err


def test_gradelib_settings_shows_each_value_and_where_it_came_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRADELIB_REVIEWER", "ana")
    monkeypatch.setenv("GRADELIB_LIVE_API_KEY", "sk-secret")
    monkeypatch.setenv("GRADELIB_STARTER_PAYMENTS", "/srv/a:/srv/b")
    assert cli.main(["settings", "--offline"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines()[1:]}
    assert re.fullmatch(r"ana +environment", rows["GRADELIB_REVIEWER"])
    assert re.fullmatch(r"on +flag", rows["GRADELIB_OFFLINE"])
    assert re.fullmatch(r"on +default", rows["GRADELIB_WARM_WORKERS"])
    assert re.fullmatch(r"/srv/a:/srv/b +environment", rows["GRADELIB_STARTER_PAYMENTS"])
    assert re.fullmatch(r"off +default \(internal\)", rows["GRADELIB_HEADLESS"])
    assert "sk-secret" not in out and "(set, hidden)" in rows["GRADELIB_LIVE_API_KEY"]
    assert cli.main(["settings", "--json"]) == 0
    shown = {row["variable"]: row for row in json.loads(capsys.readouterr().out)}
    assert shown["GRADELIB_OFFLINE"]["source"] == "default" and shown["GRADELIB_OFFLINE"]["flag"] == "--offline"
    assert shown["GRADELIB_LIVE_API_KEY"]["value"] == "(set, hidden)"
    assert set(shown) == {s.name for s in SETTINGS if not s.family} | {"GRADELIB_STARTER_PAYMENTS"}


def test_the_readmes_table_of_settings_is_the_modules() -> None:
    what = "table of settings differs from gradelib/settings.py"
    assert_readme_block(README, "settings-table", settings.markdown_table(), what, "tests/unit/test_settings.py")


# --- no module but settings.py reads a kit setting from the environment ----------------------------------


def _names_variable(node: ast.AST, constants: set[str]) -> bool:
    """Whether an expression names a GRADELIB_ variable: the literal, a constant holding one, or one built from it."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.startswith(settings.PREFIX)
    if isinstance(node, ast.Name | ast.Attribute):
        return (node.id if isinstance(node, ast.Name) else node.attr) in constants
    if isinstance(node, ast.JoinedStr):
        return bool(node.values) and _names_variable(node.values[0], constants)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):  # STARTER.format(...), .replace(...)
        return _names_variable(node.func.value, constants)
    if isinstance(node, ast.BinOp):
        return _names_variable(node.left, constants)
    return False


def _constants(trees: list[ast.Module]) -> set[str]:
    """Every name the kit binds to a GRADELIB_ variable's name (assigned, or imported under another name)."""
    found: set[str] = set()
    while True:
        before = len(found)
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and _names_variable(node.value, found):
                    found |= {target.id for target in node.targets if isinstance(target, ast.Name)}
                elif isinstance(node, ast.ImportFrom):
                    found |= {alias.asname for alias in node.names if alias.asname and alias.name in found}
        if len(found) == before:
            return found


def env_reads(tree: ast.Module, constants: set[str]) -> list[int]:
    """The lines that read a GRADELIB_ variable from a mapping: `.get(NAME)`, `getenv(NAME)`, `m[NAME]`,
    `NAME in m`."""
    lines = set()
    for node in ast.walk(tree):
        key: ast.AST | None = None
        if isinstance(node, ast.Call) and node.args:
            method = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            key = node.args[0] if method in READ_METHODS else None
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = node.slice
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            key = node.left
        if key is not None and _names_variable(key, constants):
            lines.add(node.lineno)
    return sorted(lines)


def _kit_trees() -> dict[Path, ast.Module]:
    return {path: ast.parse(path.read_text(encoding="utf-8"), str(path)) for path in sorted(KIT.rglob("*.py"))}


def test_no_module_but_settings_reads_a_kit_setting_from_the_environment() -> None:
    trees = _kit_trees()
    constants = _constants(list(trees.values()))
    assert {"ENV_OFFLINE", "ENV_DISABLE", "STARTER_ENV", "ENV_FORCE_NO_NAMESPACES"} <= constants
    found = [
        f"{path.relative_to(ROOT)}:{line}: {path.read_text(encoding='utf-8').splitlines()[line - 1].strip()}"
        for path, tree in trees.items()
        if path != KIT / "settings.py"
        for line in env_reads(tree, constants)
    ]
    assert found == [], "read these through gradelib.settings.current_settings() instead:\n" + "\n".join(found)


def test_the_scan_finds_every_way_of_reading_a_setting() -> None:
    sample = ast.parse(
        'import os\nENV_X = "GRADELIB_X"\nSTARTER = ENV_X + "_{takehome}"\n'
        'a = os.environ.get("GRADELIB_Y")\n'
        'b = os.environ.get(ENV_X, "")\n'
        "c = environ[ENV_X]\n"
        'd = os.getenv("GRADELIB_Z")\n'
        'e = env.get(STARTER.format(takehome="A"))\n'
        'f = "GRADELIB_W" in os.environ\n'
        'os.environ[ENV_X] = "1"\n'  # a write, for a child process: not a read
        'g = os.environ.get("PATH")\n'
    )
    assert env_reads(sample, _constants([sample])) == [4, 5, 6, 7, 8, 9]


def test_every_gradelib_variable_the_repository_names_is_a_known_setting() -> None:
    """Tests, benchmarks, examples and documents set these for the kit: a name it did not know would stop it."""
    where = [ROOT / "README.md", ROOT / "TAKEHOMES.md", ROOT / "dev"] + [
        path
        for folder in ("gradelib", "tests", "benchmarks", "examples", "notebooks")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".md", ".ipynb", ".mjs", ".sh") and path.is_file() and path != Path(__file__)
    ]
    unknown = {
        f"{name} ({path.relative_to(ROOT)})"
        for path in where
        for name in re.findall(r"\bGRADELIB_\w*[A-Z0-9]\b", path.read_text(encoding="utf-8", errors="replace"))
        if name not in NOT_VARIABLES and settings.known(name) is None and not name.endswith("_STARTER")
    }
    assert not unknown, "named but not in gradelib/settings.py's table:\n" + "\n".join(sorted(unknown))
