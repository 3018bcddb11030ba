"""Every submission gets its own report files, readable where they can be, on any file system."""

from __future__ import annotations

import pytest

from gradelib.batch.reportname import MAX_BYTES, report_stem


def test_blind_labels_and_plain_names_stay_as_they_were() -> None:
    assert report_stem("Submission #3") == "submission-03"
    assert report_stem("Submission #12") == "submission-12"
    assert report_stem("amara-okafor") == "amara-okafor"
    assert report_stem("李雷") == "李雷", "letters of any script are fine in a file name"


COLLIDING = [
    ["李雷", "-李雷", "李雷-"],
    ["José Núñez", "josé núñez", "José-Núñez", "jose nunez", "José\u0301"],
    ["Ana", "ana", "ANA"],
    ["", "-", "..", "submission", "submission-03", "Submission #3"],
    ["con", "CON", "nul.txt"],
]


@pytest.mark.parametrize("names", COLLIDING)
def test_distinct_names_get_distinct_stems_even_where_case_does_not_count(names: list[str]) -> None:
    stems = [report_stem(name) for name in names]
    assert len({stem.casefold() for stem in stems}) == len(names), stems
    assert all(stem and "/" not in stem and not stem.startswith((".", "-")) for stem in stems), stems


def test_what_is_kept_of_a_name_stays_readable() -> None:
    stem = report_stem("José Núñez")
    assert stem.startswith("José-Núñez-") and len(stem) == len("José-Núñez-") + 8
    assert report_stem("-韩梅梅").startswith("韩梅梅-")
    assert report_stem("José Núñez") == stem, "the same name, the same file, on every grading"


def test_a_long_name_is_cut_whole_characters_within_the_byte_limit() -> None:
    name = "名" * 200
    stem = report_stem(name)
    assert len(stem.encode("utf-8")) <= MAX_BYTES + 9 and stem.startswith("名" * 40)
    assert report_stem(name + "x") != stem
