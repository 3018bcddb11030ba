"""Rubric files: the packaged ones, every way a file can be wrong, and scoring."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradelib.errors import RubricError, UnknownTakehome
from gradelib.result import Outcome, Tier
from gradelib.takehomes.rubric import Rubric, default_rubric, load_rubric, takehome_data

REPLAY_IDS = ("identical", "offline", "missing_fixture", "record", "volatile")
POINTS_HEADER = 'takehome = "replay"\nkind = "points"\n'
TIERS_RUBRIC = """\
takehome = "payments"
kind = "tiers"

[[lines]]
id = "key_scope"
title = "Key scope"
tiers = ["weak", "acceptable", "strong"]
points = {weak = 0, acceptable = 1, strong = 2}

[[lines]]
id = "explanation"
title = "Explanation"
tiers = ["weak", "acceptable", "strong"]

[[lines]]
id = "weighted"
title = "Weighted tiers"
weight = 10
tiers = ["weak", "acceptable", "strong"]
points = {weak = 0, acceptable = 1, strong = 2}
"""


def _line(line_id: str = "identical", weight: str = "30", title: str = "T") -> str:
    return f'[[lines]]\nid = "{line_id}"\ntitle = "{title}"\nweight = {weight}\n'


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "rubric.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_packaged_replay_rubric() -> None:
    rubric = default_rubric("replay")
    assert rubric.takehome == "replay" and rubric.kind == "points"
    assert rubric.line_ids == REPLAY_IDS
    assert [line.weight for line in rubric.lines] == [30, 20, 20, 20, 10]
    assert rubric.max_total == 100
    assert rubric.line("missing_fixture").title == "Missing fixture fails loudly"
    assert rubric.source.endswith("rubric.toml")


def test_packaged_rubric_loads_from_its_path_too() -> None:
    path = Path(str(takehome_data("replay").joinpath("rubric.toml")))
    assert load_rubric(path, takehome="replay") == default_rubric("replay")


def test_takehome_data_holds_the_handout() -> None:
    folder = takehome_data("replay")
    for name in ("HANDOUT.md", "tickets.json", "labels.json", "rubric.toml"):
        assert folder.joinpath(name).is_file(), name


@pytest.mark.parametrize("name", ["nope", "../replay", "Replay", ""])
def test_unknown_takehome(name: str) -> None:
    with pytest.raises(UnknownTakehome) as info:
        takehome_data(name)
    assert "replay" in info.value.known


def test_tiers_rubric_shape(tmp_path: Path) -> None:
    rubric = load_rubric(_write(tmp_path, TIERS_RUBRIC), takehome="payments")
    assert rubric.kind == "tiers"
    key_scope = rubric.line("key_scope")
    assert key_scope.tiers == ("weak", "acceptable", "strong")
    assert key_scope.weight is None and key_scope.max_points == 2
    assert dict(key_scope.tier_points) == {"weak": 0, "acceptable": 1, "strong": 2}
    assert rubric.line("explanation").tier_points == {}
    assert rubric.max_total == 12


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param(None, "not found", id="missing-file"),
        pytest.param("takehome = ", "not valid TOML", id="bad-toml"),
        pytest.param(b"takehome = '\xff'", "not UTF-8", id="not-utf8"),
        pytest.param('kind = "points"\n' + _line(), "missing 'takehome'", id="no-takehome"),
        pytest.param('takehome = "replay"\n' + _line(), "'kind' must be", id="no-kind"),
        pytest.param('takehome = "replay"\nkind = "stars"\n', "'kind' must be", id="bad-kind"),
        pytest.param(POINTS_HEADER, "no [[lines]]", id="no-lines"),
        pytest.param(POINTS_HEADER + "lines = 3\n", "no [[lines]]", id="lines-not-array"),
        pytest.param(POINTS_HEADER + "colour = 1\n" + _line(), "unknown top-level", id="top-key"),
        pytest.param(POINTS_HEADER + "lines = [1]\n", "not a table", id="line-not-table"),
        pytest.param(POINTS_HEADER + '[[lines]]\ntitle = "T"\nweight = 1\n', "needs an 'id'", id="no-id"),
        pytest.param(POINTS_HEADER + _line(line_id="Bad Id"), "needs an 'id'", id="bad-id"),
        pytest.param(POINTS_HEADER + '[[lines]]\nid = "a"\ntitle = "T"\n', "needs a 'weight'", id="no-weight"),
        pytest.param(POINTS_HEADER + _line(weight='"30"'), "must be a number", id="weight-text"),
        pytest.param(POINTS_HEADER + _line(weight="true"), "must be a number", id="weight-bool"),
        pytest.param(POINTS_HEADER + _line(weight="nan"), "must be finite", id="weight-nan"),
        pytest.param(POINTS_HEADER + _line(weight="-5"), "negative", id="negative-weight"),
        pytest.param(POINTS_HEADER + _line(title=" "), "needs a 'title'", id="blank-title"),
        pytest.param(POINTS_HEADER + _line() + "wieght = 3\n", "unknown key", id="typo-key"),
        pytest.param(POINTS_HEADER + _line() + _line(), "duplicate line id", id="duplicate-id"),
        pytest.param(POINTS_HEADER + _line() + 'tiers = ["weak"]\n', "belong in a tiers", id="tiers-in-pts"),
        pytest.param('takehome = "replay"\nkind = "tiers"\n' + _line(), "needs 'tiers'", id="no-tiers"),
        pytest.param(
            TIERS_RUBRIC.replace('"acceptable", "strong"]\npoints', '"great"]\npoints', 1),
            "needs 'tiers'",
            id="unknown-tier",
        ),
        pytest.param(
            TIERS_RUBRIC.replace("acceptable = 1, strong = 2}", "acceptable = 1}", 1),
            "for each tier",
            id="points-missing-tier",
        ),
        pytest.param(TIERS_RUBRIC.replace("weak = 0,", "weak = -1,", 1), "negative", id="negative-points"),
    ],
)
def test_rubric_errors(tmp_path: Path, text: str | bytes | None, reason: str) -> None:
    path = tmp_path / "rubric.toml" if text is None else _write(tmp_path, text)
    with pytest.raises(RubricError, match=re.escape(reason)) as info:
        load_rubric(path)
    assert info.value.path == str(path)


def test_rubric_error_for_a_folder(tmp_path: Path) -> None:
    with pytest.raises(RubricError, match="folder"):
        load_rubric(tmp_path)


def test_takehome_mismatch(tmp_path: Path) -> None:
    path = _write(tmp_path, POINTS_HEADER + _line())
    assert load_rubric(path).takehome == "replay"
    with pytest.raises(RubricError, match="not 'payments'"):
        load_rubric(path, takehome="payments")


@pytest.mark.parametrize(
    ("line_id", "outcome", "tier", "expected"),
    [
        pytest.param("identical", "pass", None, (30, 30), id="pass"),
        pytest.param("identical", "fail", None, (0, 30), id="fail"),
        pytest.param("volatile", "error", None, (0, 10), id="error"),
        pytest.param("record", "unverified", None, (None, 20), id="unverified"),
        pytest.param("offline", "needs_review", None, (None, 20), id="needs-review"),
        pytest.param("key_scope", "pass", "acceptable", (1, 2), id="tier-points"),
        pytest.param("key_scope", "fail", "weak", (0, 2), id="tier-weak"),
        pytest.param("key_scope", "needs_review", "strong", (None, 2), id="tier-undecided"),
        pytest.param("key_scope", "pass", None, (2, 2), id="tier-line-pass-without-tier"),
        pytest.param("explanation", "needs_review", "strong", (None, None), id="no-points"),
        pytest.param("explanation", "pass", "strong", (None, None), id="no-points-pass"),
        pytest.param("weighted", "pass", "acceptable", (5, 10), id="tier-scaled-to-weight"),
    ],
)
def test_score(
    tmp_path: Path,
    line_id: str,
    outcome: Outcome,
    tier: Tier | None,
    expected: tuple[float | None, float | None],
) -> None:
    rubrics: dict[str, Rubric] = {
        "points": default_rubric("replay"),
        "tiers": load_rubric(_write(tmp_path, TIERS_RUBRIC)),
    }
    rubric = rubrics["points"] if line_id in REPLAY_IDS else rubrics["tiers"]
    assert rubric.score(line_id, outcome, tier) == expected


def test_score_unknown_line() -> None:
    with pytest.raises(KeyError):
        default_rubric("replay").score("nope", "pass")
