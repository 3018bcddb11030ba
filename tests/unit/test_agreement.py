"""Krippendorff's alpha from its definition, disagreements and leniency, against values worked out by hand."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from gradelib.cohort.agreement import (
    ALL_AGREE,
    TOO_LITTLE,
    Metric,
    Rating,
    agreement_view,
    disagreements,
    disagreements_view,
    krippendorff_alpha,
    leniency,
    leniency_view,
    line_agreement,
    unscored_lines,
)

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
# twelve units, values 1..5, "." = missing. Published: nominal 0.743, ordinal 0.815, interval 0.849.
# Unit 12 has a single value, so it is not pairable: 11 units, 40 pairable values.
CLASSIC = """
A 1 2 3 3 2 1 4 1 2 . . .
B 1 2 3 3 2 2 4 1 2 5 . 3
C . 3 3 3 2 3 4 2 2 5 1 .
D 1 2 3 3 2 4 4 1 2 5 1 .
"""


def _classic_units() -> list[list[float]]:
    rows = [line.split()[1:] for line in CLASSIC.strip().splitlines()]
    return [[float(value) for value in column if value != "."] for column in zip(*rows, strict=True)]


@pytest.mark.parametrize(("metric", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)], ids=str)
def test_krippendorffs_own_example(metric: Metric, expected: float) -> None:
    alpha = krippendorff_alpha(_classic_units(), metric)
    assert alpha.alpha == pytest.approx(expected, abs=5e-4)
    assert (alpha.units, alpha.values, alpha.reason) == (11, 40, "")


# Worked by hand. Units (two reviewers, three submissions): u1 = (0, 0), u2 = (1, 2), u3 = (2, 2).
# Every unit has m = 2 values, so each ordered pair adds 1/(m-1) = 1 to the coincidence matrix:
#   o[0][0] = 2 (u1), o[1][2] = o[2][1] = 1 (u2), o[2][2] = 2 (u3).
# Marginals n0 = 2, n1 = 1, n2 = 3; n = 6.
# Interval, delta2 = (c - k)^2:
#   observed  sum o*delta2       = o12*1 + o21*1                          = 2
#   expected  sum nc*nk*delta2   = 2 * (n0n1*1 + n0n2*4 + n1n2*1) = 2 * (2 + 24 + 3) = 58
#   alpha = 1 - (n - 1) * 2 / 58 = 1 - 10/58 = 24/29 = 0.8276
# Ordinal, delta2(c, k) = (sum of n_g from c to k - (nc + nk)/2)^2:
#   d(0,1) = (2 + 1 - 1.5)^2 = 2.25, d(1,2) = (1 + 3 - 2)^2 = 4, d(0,2) = (2 + 1 + 3 - 2.5)^2 = 12.25
#   observed = o12*4 + o21*4 = 8; expected = 2 * (2*1*2.25 + 1*3*4 + 2*3*12.25) = 2 * 90 = 180
#   alpha = 1 - 5 * 8 / 180 = 7/9 = 0.7778
SMALL = [[0, 0], [1, 2], [2, 2]]
# Three reviewers on one unit: u1 = (0, 1, 1) has m = 3, each ordered pair adds 1/2:
#   pairs (0,1) x2, (1,0) x2, (1,1) x2 -> o01 = o10 = o11 = 1; u2 = (2, 2) -> o22 = 2.
#   n0 = 1, n1 = 2, n2 = 2, n = 5. Interval: observed = o01 + o10 = 2;
#   expected = 2 * (n0n1*1 + n0n2*4 + n1n2*1) = 2 * (2 + 8 + 4) = 28; alpha = 1 - 4 * 2 / 28 = 5/7.
THREE = [[0, 1, 1], [2, 2]]


@pytest.mark.parametrize(
    ("units", "metric", "expected"),
    [(SMALL, "interval", 24 / 29), (SMALL, "ordinal", 7 / 9), (THREE, "interval", 5 / 7)],
    ids=["small-interval", "small-ordinal", "three-reviewers-interval"],
)
def test_alpha_worked_by_hand(units: list[list[float]], metric: Metric, expected: float) -> None:
    assert krippendorff_alpha(units, metric).alpha == pytest.approx(expected)


@pytest.mark.parametrize(
    ("units", "reason", "shared"),
    [
        ([], TOO_LITTLE, 0),
        ([[1], [2], [0]], TOO_LITTLE, 0),  # one reviewer only: nothing pairable
        ([[0, 2], [1]], TOO_LITTLE, 1),  # one shared unit cannot tell disagreement from spread
        ([[1, 1], [1, 1, 1]], ALL_AGREE, 2),  # no variation at all: alpha is 0/0, not a number
    ],
    ids=["empty", "one-reviewer", "one-shared-unit", "all-agree-no-variation"],
)
def test_no_number_when_it_would_mislead(units: list[list[float]], reason: str, shared: int) -> None:
    for metric in ("ordinal", "interval"):
        alpha = krippendorff_alpha(units, metric)
        assert (alpha.alpha, alpha.reason, alpha.units) == (None, reason, shared)


def test_agreement_within_units_with_variation_across_them_is_one() -> None:
    alpha = krippendorff_alpha([[0, 0], [2, 2], [1, 1]], "ordinal")
    assert (alpha.alpha, alpha.reason) == (1.0, "")


def test_systematic_disagreement_is_negative() -> None:
    # Ordinal, (2, 0) and (1, 1): n0 = 1, n1 = 2, n2 = 1, n = 4; d(0,2) = (1 + 2 + 1 - 1)^2 = 9,
    # d(0,1) = d(1,2) = (3 - 1.5)^2 = 2.25; observed = 2 * 9 = 18;
    # expected = 2 * (1*2*2.25 + 2*1*2.25 + 1*1*9) = 36; alpha = 1 - 3 * 18 / 36 = -0.5.
    assert krippendorff_alpha([[2, 0], [1, 1]], "ordinal").alpha == pytest.approx(-0.5)


def _ratings(
    table: Sequence[tuple[str, str, str, float]], *, takehome: str = "payments", maximum: float = 2.0
) -> list[Rating]:
    """(submission, line, reviewer, points) rows as ratings; tier names follow the points on a 0/1/2 line."""
    tiers = {0.0: "weak", 1.0: "acceptable", 2.0: "strong"}
    return [
        Rating(
            takehome,
            name,
            f"Submission #{ord(name[0]) - 96}",
            line,
            who,
            tiers.get(points, str(points)) if maximum == 2 else str(points),
            points,
            maximum,
            "ordinal" if maximum == 2 else "interval",
            f"{who} on {name}",
            f"{takehome}/{name}.html",
        )
        for name, line, who, points in table
    ]


TIERS = _ratings(
    [
        ("a", "found_defect", "ana", 2),
        ("a", "found_defect", "ben", 1),
        ("b", "found_defect", "ana", 0),
        ("b", "found_defect", "ben", 0),
        ("a", "explanation", "ana", 2),
        ("a", "explanation", "ben", 0),
        ("b", "explanation", "ana", 1),
        ("b", "explanation", "ben", 1),
        ("a", "blast_radius", "ana", 1),  # one reviewer only
        ("b", "blast_radius", "ana", 2),
    ]
)


def test_line_agreement_per_line_with_its_counts() -> None:
    found = {a.line_id: a for a in line_agreement(TIERS)}
    # found_defect, ordinal: (2, 1), (0, 0): n0 = 2, n1 = 1, n2 = 1; d(1,2) = (1 + 1 - 1)^2 = 1,
    # observed = 2 * 1 = 2; expected = 2 * (2*1*2.25 + 1*1*1 + 2*1*6.25) = 36; alpha = 1 - 3*2/36 = 5/6.
    assert found["found_defect"].alpha.alpha == pytest.approx(5 / 6)
    assert (found["found_defect"].alpha.metric, found["found_defect"].ratings) == ("ordinal", 4)
    assert found["explanation"].alpha.alpha == pytest.approx(-0.5)
    lone = found["blast_radius"]
    assert (lone.alpha.alpha, lone.alpha.reason, lone.reviewers, lone.ratings) == (None, TOO_LITTLE, 1, 2)


def test_a_line_nobody_scored_is_absent_and_named() -> None:
    lines = [("payments", line) for line in ("found_defect", "key_scope", "explanation", "blast_radius")]
    assert unscored_lines(TIERS, lines) == [("payments", "key_scope")]
    assert "key_scope" not in {a.line_id for a in line_agreement(TIERS)}
    titles = dict.fromkeys(lines, "")
    titles.update({("payments", "key_scope"): "Key scope", ("payments", "found_defect"): "Found the defect"})
    view = agreement_view(TIERS, titles)
    assert "Nobody scored this line: payments: Key scope." in view.body
    assert "0.833" in view.body and "too little data" in view.body


def test_disagreements_largest_first_with_both_comments_and_the_link() -> None:
    found = disagreements(TIERS)
    # explanation on a: 2 vs 0 (the whole line); found_defect on a: 2 vs 1 (half of it); b agrees.
    assert [(d.high.submission, d.high.line_id, d.spread, d.share) for d in found] == [
        ("a", "explanation", 2.0, 1.0),
        ("a", "found_defect", 1.0, 0.5),
    ]
    first = found[0]
    assert (first.high.reviewer, first.low.reviewer, first.high.comment, first.low.comment) == (
        "ana",
        "ben",
        "ana on a",
        "ben on a",
    )
    body = disagreements_view(TIERS, {}).body
    assert 'href="payments/a.html"' in body and "ana on a" in body and "ben on a" in body
    assert disagreements(TIERS, limit=1) == found[:1]


def test_disagreement_ranks_points_and_tiers_by_share_of_the_line() -> None:
    points = _ratings([("c", "record", "ana", 20), ("c", "record", "ben", 10)], takehome="replay", maximum=20)
    found = disagreements(TIERS + points)
    # record: 10 of 20 = 0.5 ranks with found_defect's 1 of 2, ahead of it on the larger spread.
    assert [(d.high.line_id, d.share) for d in found] == [("explanation", 1.0), ("record", 0.5), ("found_defect", 0.5)]


def test_leniency_against_the_panel_mean_on_shared_units() -> None:
    rows = {(row.takehome, row.reviewer): row for row in leniency(TIERS)}
    # Shared units: found_defect a (2, 1; mean 1.5), b (0, 0); explanation a (2, 0; mean 1), b (1, 1).
    # ana: +0.5, 0, +1, 0 -> mean +0.375 points, +0.1875 of the 2-point line; ben the opposite.
    # blast_radius (ana alone) does not count.
    ana, ben = rows[("payments", "ana")], rows[("payments", "ben")]
    assert (ana.units, ana.mean_points, ana.mean_share) == (4, pytest.approx(0.375), pytest.approx(0.1875))
    assert (ben.units, ben.mean_points, ben.mean_share) == (4, pytest.approx(-0.375), pytest.approx(-0.1875))
    assert [row.reviewer for row in leniency(TIERS)] == ["ana", "ben"]  # most lenient first


def test_leniency_with_one_reviewer_only_says_so() -> None:
    alone = _ratings([("a", "found_defect", "ana", 2), ("b", "found_defect", "ana", 1)])
    assert leniency(alone) == []
    assert "Too little data" in leniency_view(alone).body
    assert "No disagreements" in disagreements_view(alone, {}).body


def test_views_escape_reviewer_text() -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    ratings = [
        Rating("payments", hostile, hostile, "found_defect", hostile, "strong", 2.0, 2.0, "ordinal", hostile, None),
        Rating("payments", hostile, hostile, "found_defect", "ben", "weak", 0.0, 2.0, "ordinal", hostile, None),
    ]
    for view in (disagreements_view(ratings, {}), leniency_view(ratings), agreement_view(ratings, {})):
        assert "<script>" not in view.body and "<img" not in view.body
