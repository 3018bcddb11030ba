"""The core knows no take-home by name: everything of the kit's own take-homes lives in their packages.

The core (batch, notebook helpers, review, cohort, display, ...) holds a take-home only through the
contract in `gradelib/takehomes/contract.py`. This test reads the core's source and names every place
where a built-in take-home's name, one of its line ids or one of its line titles appears.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from conftest import ROOT

from gradelib import takehomes
from gradelib.takehomes.contract import Grading, TakeHome

PACKAGE = ROOT / "gradelib"
KIT_TAKEHOMES = PACKAGE / "takehomes"
# Line ids that are also the core's own words, allowed as string literals: every line has `evidence`
# (LineResult's field, a column of the gradebook); `offline` is a setting (`gradelib grade --offline`).
CORE_WORDS = {"evidence", "offline"}


def _kit_takehomes() -> dict[str, tuple[set[str], set[str]]]:
    """Each built-in take-home's folder name -> (its line ids, its line titles), from its rubric."""
    found = {}
    for folder in sorted(KIT_TAKEHOMES.iterdir()):
        rubric = folder / "rubric.toml"
        if rubric.is_file():
            lines = tomllib.loads(rubric.read_text())["lines"]
            found[folder.name] = ({line["id"] for line in lines}, {line["title"] for line in lines})
    return found


def _core_sources() -> list[Path]:
    kit_folders = [KIT_TAKEHOMES / name for name in _kit_takehomes()]
    return [
        path for path in sorted(PACKAGE.rglob("*.py")) if not any(path.is_relative_to(folder) for folder in kit_folders)
    ]


def test_the_kits_own_take_homes_are_found_from_their_packages() -> None:
    assert set(_kit_takehomes()) == {"replay", "payments"}
    assert set(_kit_takehomes()) <= set(takehomes.names())


def test_no_built_in_take_homes_name_line_id_or_title_appears_in_the_core() -> None:
    patterns: list[tuple[str, re.Pattern[str]]] = []
    for name, (ids, titles) in _kit_takehomes().items():
        patterns.append((f"the take-home {name!r}", re.compile(rf"\b{re.escape(name)}\b")))
        for line_id in sorted(ids - CORE_WORDS):
            # an id with an underscore is distinctive anywhere; a plain word only as a string literal
            spelled = rf"\b{line_id}\b" if "_" in line_id else rf"""["']{line_id}["']"""
            patterns.append((f"{name}'s line id {line_id!r}", re.compile(spelled)))
        for title in sorted(titles):
            patterns.append((f"{name}'s line title {title!r}", re.compile(re.escape(title))))
    found = []
    for path in _core_sources():
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in patterns:
                if pattern.search(text):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {text.strip()[:100]}")
    assert found == [], "the core names a built-in take-home:\n" + "\n".join(found)


def test_the_test_would_find_a_take_home_named_in_the_core(tmp_path: Path) -> None:
    """The patterns above do match what they look for (a check that cannot fail is no check)."""
    ids, titles = _kit_takehomes()["payments"]
    assert "blast_radius" in ids and "Key scope" in titles
    sample = 'STORED_VIEWS = {"payments": ("attempts",)}\nNOTE_LINES = frozenset({"explanation", "blast_radius"})'
    assert re.search(r"\bpayments\b", sample) and re.search(r"\bblast_radius\b", sample)
    assert re.search(r"""["']explanation["']""", sample)


def test_every_kit_take_home_is_a_typed_take_home_whose_grading_keeps_the_contract() -> None:
    for name in _kit_takehomes():
        plugin = takehomes.load(name)
        assert isinstance(plugin, TakeHome) and plugin.id == name
        assert plugin.notebook().is_file() and plugin.data().joinpath("rubric.toml").is_file()
        grading = plugin.grading
        for member in ("prefetch", "line", "report", "environment_section", "views", "__enter__", "__exit__"):
            assert callable(getattr(grading, member, None)), (name, member)
        assert all(line in {line.id for line in _rubric_lines(plugin)} for line in plugin.note_lines)
    assert Grading.__doc__ and TakeHome.__doc__


def _rubric_lines(plugin: TakeHome) -> list[object]:
    from gradelib.takehomes.rubric import default_rubric

    return list(default_rubric(plugin.id).lines)
