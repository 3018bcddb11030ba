"""A planted copy (renamed, reformatted, comments changed) graded in a real batch: flagged in both reports, in
the summary and by `gradelib similarity`; an independent submission to the same handout is not."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Name, String

from gradelib import batch, cli
from gradelib.cohort import summary

ORIGINAL, INDEPENDENT = "kemi-adeyemi", "leo-fontaine"
KEEP = {"process", "crypto", "fetch", "JSON", "Promise", "setTimeout", "Error", "console", "Math", "Date", "Map"}


def rename_and_reformat(source: str) -> str:
    """What a copier does to hide a copy: every own identifier renamed (exports kept, so it still runs),
    comments dropped, two-space indents made four, double quotes made single."""
    exported = set(re.findall(r"export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+(\w+)", source))
    renames: dict[str, str] = {}
    out = []
    for kind, value in get_lexer_by_name("javascript").get_tokens(source):
        if kind in Comment:
            continue
        if kind in Name.Other and value not in KEEP and value not in exported:
            value = renames.setdefault(value, f"v{len(renames)}_{value[::-1].lower()}")
        if kind in String.Double and value.startswith('"') and "'" not in value:
            value = "'" + value[1:-1] + "'"
        out.append(value)
    text = "".join(out)
    return re.sub(r"^( +)", lambda m: " " * (len(m.group(1)) * 2), text, flags=re.MULTILINE)


def plant(cohort: Path) -> None:
    for name in (ORIGINAL, INDEPENDENT):
        shutil.copytree(SAMPLES / "payments" / name, cohort / name)
    copy = cohort / "zed-copycat"
    shutil.copytree(SAMPLES / "payments" / ORIGINAL, copy)
    for path in sorted(copy.rglob("*.mjs")):
        path.write_text(rename_and_reformat(path.read_text()))
    note = copy / "NOTE.md"
    note.write_text("My own notes.\n\n" + note.read_text().replace("idempotency", "dedup"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("similar")
    plant(root / "cohort")
    outcomes = batch.grade([root / "cohort"], reports=root / "reports", jobs=3)
    assert sorted(o.status for o in outcomes) == ["graded"] * 3, [o.error for o in outcomes]
    return root / "reports"


def _labels(reports: Path) -> dict[str, str]:
    book = reports / "gradebook.sqlite"
    from gradelib.gradebook import Gradebook

    with Gradebook(book) as gradebook:
        return {row.name: row.blind_label for row in gradebook.submissions("payments")}


def test_the_copy_is_flagged_in_both_reports_with_a_link_and_the_independent_one_in_neither(graded: Path) -> None:
    labels = _labels(graded)
    original, copy, independent = (labels[name] for name in (ORIGINAL, "zed-copycat", INDEPENDENT))
    pages = {
        label: (graded / "payments" / f"submission-{int(label.split('#')[1]):02d}.html").read_text()
        for label in (original, copy, independent)
    }
    for here, there in ((original, copy), (copy, original)):
        section = pages[here].split("Similar submissions", 1)[1]
        number = int(there.split("#")[1])
        assert f'<a href="submission-{number:02d}.html">{there}</a>' in section
        assert "checkout.mjs" in section and "longest match" in section
        for name in (ORIGINAL, "zed-copycat", INDEPENDENT):
            assert name not in section  # blind labels hold
    assert "No other submission shares" in pages[independent]


def test_the_summary_and_the_terminal_show_the_pair_and_only_it(
    graded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = _labels(graded)
    html = Path(summary.run_summary(graded)).read_text()
    section = html.split(">Similar submissions", 1)[1].split(">Calibration", 1)[0]
    assert f"{labels[ORIGINAL]} ({ORIGINAL})" in section and f"{labels['zed-copycat']} (zed-copycat)" in section
    assert INDEPENDENT not in section
    assert cli.main(["similarity", "--json", "--gradebook", str(graded / "gradebook.sqlite")]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert {pair["a"], pair["b"]} == {labels[ORIGINAL], labels["zed-copycat"]}
    assert min(pair["a_share"], pair["b_share"]) >= 0.8 and pair["longest_lines"] >= 10
    assert pair["b_earlier"] is False and "a_name" not in pair


def test_scan_from_folders_gives_the_graded_pairs_score_every_pair_and_leaves_starter_code_out(
    graded: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gradelib similarity scan` on the same folders, with no gradebook: the copy's score is the one kept after
    the grade, under the scan's own labels (with the gradebook, its labels); `--all` ranks every pair; the
    original handed out as starter code no longer makes a copy."""
    cohort = graded.parent / "cohort"
    monkeypatch.chdir(cohort)  # no reports/gradebook.sqlite under it: the scan's own labels
    assert cli.main(["similarity", "--json", "--reveal", "--gradebook", str(graded / "gradebook.sqlite")]) == 0
    (kept,) = json.loads(capsys.readouterr().out)["pairs"]
    assert cli.main(["similarity", "scan", str(cohort), "--json", "--reveal"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["submissions"] == {"payments": 3}
    (pair,) = found["pairs"]
    assert {pair["a_name"], pair["b_name"]} == {kept["a_name"], kept["b_name"]} == {ORIGINAL, "zed-copycat"}
    assert sorted([pair["a_share"], pair["b_share"]]) == sorted([kept["a_share"], kept["b_share"]])
    assert pair["longest_lines"] == kept["longest_lines"]
    assert cli.main(["similarity", "scan", str(cohort), "--all", "--json"]) == 0
    every = json.loads(capsys.readouterr().out)["pairs"]
    assert len(every) == 3 and [p["share"] for p in every] == sorted((p["share"] for p in every), reverse=True)
    assert every[0]["share"] == pair["share"] and all(p["a"].startswith("Scan ") for p in every)
    assert "a_name" not in every[0], "blind unless revealed"
    starter = cohort / ORIGINAL
    assert cli.main(["similarity", "scan", str(cohort), "--json", "--all", "--template", str(starter)]) == 0
    with_template = json.loads(capsys.readouterr().out)["pairs"]
    assert with_template[0]["share"] < found["threshold"] <= pair["share"], "the starter code never counts"
    assert cli.main(["similarity", "scan", str(cohort), "--template", str(graded / "nowhere")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    page = graded.parent / "scan.html"
    assert cli.main(["similarity", "scan", str(cohort), "--html", str(page)]) == 0
    listing = capsys.readouterr().out
    assert listing.count(" ~ ") == 1, "the listing shows the flagged pair only"
    assert "labels: the scan's own (Scan A, Scan B, ...)" in listing
    assert "Submission #" not in listing.split("either side's code:", 1)[1], "no pair shown by a gradebook's label"
    book = str(graded / "gradebook.sqlite")
    assert cli.main(["similarity", "scan", str(cohort), "--json", "--gradebook", book]) == 0
    labelled = json.loads(capsys.readouterr().out)
    (same,) = labelled["pairs"]
    labels = _labels(graded)
    assert labelled["gradebook"] == book and {same["a"], same["b"]} == {labels[ORIGINAL], labels["zed-copycat"]}
    html = page.read_text()
    assert "payments: 3 submissions, 3 pairs" in html and "data:image/png;base64," in html
    assert html.count("<tr>") == 4, "every pair in the page's table"
    assert ORIGINAL not in html, "blind labels unless revealed"
