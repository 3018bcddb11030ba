"""Similarity across a gradebook: code kept once per digest, pairs by blind label, earlier cohorts, views."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES, write_tree
from test_similarity import CLIENT, OTHER, RENAMED_REFORMATTED

from gradelib import cli
from gradelib.gradebook import Gradebook
from gradelib.similarity import Base, cohort_pairs, keep, report_views
from gradelib.similarity.earliercohorts import add_earlier
from gradelib.similarity.listing import pairs_json, pairs_text
from gradelib.similarity.report import NOT_COMPUTED, similar_submissions, view_html

TAKEHOME = "replay"  # its handout's files are the base; these files are not among them


def _grade(book: Gradebook, folder: Path, name: str) -> None:
    """As a batch does: the submission's row, then its code kept."""
    digest = f"digest-{name}"
    book.upsert_submission(TAKEHOME, name, digest, str(folder))
    assert keep(book, TAKEHOME, digest, name, folder, Base())
    assert not keep(book, TAKEHOME, digest, name, folder, Base())  # once per digest


def test_a_copy_in_the_cohort_is_a_pair_by_blind_labels_and_names_only_when_revealed(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        _grade(book, write_tree(tmp_path / "ada", {"triage.py": CLIENT}), "ada")
        _grade(book, write_tree(tmp_path / "bob", {"triage.py": OTHER}), "bob")
        _grade(book, write_tree(tmp_path / "cy", {"app/main.py": RENAMED_REFORMATTED}), "cy")
        pairs = cohort_pairs(book, TAKEHOME)
        assert [(p.a.label, p.b.label, p.a.name, p.b.name) for p in pairs] == [
            ("Submission #1", "Submission #3", "ada", "cy")
        ]
        shown = json.loads(pairs_json(pairs, 0.5))
        assert shown == {
            "threshold": 0.5,
            "pairs": [
                {
                    "takehome": TAKEHOME,
                    "a": "Submission #1",
                    "b": "Submission #3",
                    "a_share": 1.0,
                    "b_share": 1.0,
                    "longest_lines": pairs[0].match.longest,
                    "b_earlier": False,
                }
            ],
        }
        assert "ada" not in pairs_text(pairs, 0.5) and "Submission #3" in pairs_text(pairs, 0.5)
        revealed = json.loads(pairs_json(cohort_pairs(book, TAKEHOME, reveal=True), 0.5, reveal=True))["pairs"][0]
        assert (revealed["a"], revealed["a_name"], revealed["b_name"]) == ("ada", "ada", "cy")


def test_an_earlier_cohorts_gradebook_added_is_compared_without_its_folders(tmp_path: Path) -> None:
    with Gradebook(tmp_path / "last-year.sqlite") as old:
        _grade(old, write_tree(tmp_path / "old" / "dee", {"triage.py": CLIENT}), "dee")
    (tmp_path / "old").rename(tmp_path / "gone")  # the old folders are not needed any more
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        done = add_earlier(book, [tmp_path / "last-year.sqlite"])
        assert (done.added, done.errors) == (["replay/dee"], [])
        assert add_earlier(book, [tmp_path / "last-year.sqlite"]).known == ["replay/dee"]
        _grade(book, write_tree(tmp_path / "eve", {"svc.py": RENAMED_REFORMATTED}), "eve")
        (pair,) = cohort_pairs(book, TAKEHOME)
        assert (pair.a.label, pair.b.earlier) == ("Submission #1", True)
        assert pair.b.label.startswith("Earlier cohort #") and "dee" not in pair.b.label
        assert json.loads(pairs_json([pair], 0.5))["pairs"][0]["b_earlier"] is True
        missing = add_earlier(book, [tmp_path / "nowhere"])
        assert missing.errors == [f"{tmp_path / 'nowhere'}: no submission found there"]


def test_each_report_shows_the_other_side_with_a_link_and_its_fragments_escaped(tmp_path: Path) -> None:
    hostile = CLIENT.replace("RuntimeError(reply.text)", "RuntimeError('<script>alert(1)</script>')")
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        _grade(book, write_tree(tmp_path / "ada", {"triage.py": hostile, "poetry.lock": "x"}), "ada")
        _grade(book, write_tree(tmp_path / "cy", {"main.py": hostile.replace("amount", "total")}), "cy")
        _grade(book, write_tree(tmp_path / "bob", {"triage.py": OTHER}), "bob")
        views = report_views(book, TAKEHOME, {"ada": "submission-01.html", "cy": "submission-02.html"})
        book.put_similar_views(TAKEHOME, views)
    ada = json.loads(views["ada"])
    assert [(p["label"], p["report"], p["earlier"]) for p in ada["pairs"]] == [
        ("Submission #2", "submission-02.html", False)
    ]
    assert ada["skipped"] == [["poetry.lock", "lockfile"]]
    assert json.loads(views["bob"])["pairs"] == []
    shown = similar_submissions(tmp_path / "gradebook.sqlite", TAKEHOME, "Submission #1")
    assert '<a href="submission-02.html">Submission #2</a>' in shown.body
    assert "<script>" not in shown.body and "&lt;script&gt;" in shown.body
    assert "main.py" in shown.body and "poetry.lock" in shown.body
    assert "No other submission" in view_html(json.loads(views["bob"])).body
    assert similar_submissions(tmp_path / "none.sqlite", TAKEHOME, "Submission #1").text == NOT_COMPUTED


def test_the_command_adds_an_earlier_cohorts_folders_and_lists_pairs_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "gradebook.sqlite"
    earlier = tmp_path / "earlier"
    shutil.copytree(SAMPLES / "payments" / "kemi-adeyemi", earlier / "kemi-adeyemi")
    shutil.copytree(SAMPLES / "payments" / "leo-fontaine", earlier / "leo-fontaine")
    assert cli.main(["similarity", "add", str(earlier), "--gradebook", str(book)]) == 2  # only `grade` makes one
    assert f"no gradebook at {book}" in capsys.readouterr().err and not book.exists()
    Gradebook(book).close()  # as `grade` leaves it
    assert cli.main(["similarity", "add", str(earlier), "--gradebook", str(book)]) == 0
    assert "2 submission(s) added, 0 kept already" in capsys.readouterr().out
    assert cli.main(["similarity", "add", str(earlier), "--gradebook", str(book)]) == 0
    assert "0 submission(s) added, 2 kept already" in capsys.readouterr().out
    with Gradebook(book) as gradebook:
        sources = gradebook.code_sources("payments")
        assert [(s.name, s.earlier, s.cohort) for s in sources] == [
            ("kemi-adeyemi", True, str(earlier)),
            ("leo-fontaine", True, str(earlier)),
        ]
        skipped = dict(sources[0].skipped)
        assert skipped["package.json"] == "data, not code (JSON, YAML, CSV, logs)"
        copy = tmp_path / "now" / "copycat"
        shutil.copytree(earlier / "kemi-adeyemi", copy)
        _grade_as(gradebook, "payments", copy, "copycat")
    assert cli.main(["similarity", "--json", "--gradebook", str(book)]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["pairs"]
    assert (pair["a"], pair["b_earlier"], pair["a_share"]) == ("Submission #1", True, 1.0)
    assert cli.main(["similarity", "--gradebook", str(book), "--threshold", "2"]) == 2
    assert "--threshold" in capsys.readouterr().err
    assert cli.main(["similarity", "add", str(tmp_path / "nothing"), "--gradebook", str(book)]) == 1


def _grade_as(book: Gradebook, takehome: str, folder: Path, name: str) -> None:
    from gradelib.similarity.handoutbase import handout_base

    book.upsert_submission(takehome, name, f"digest-{name}", str(folder))
    assert keep(book, takehome, f"digest-{name}", name, folder, handout_base(takehome))


def test_code_an_earlier_kit_fingerprinted_otherwise_is_fingerprinted_again_from_its_kept_text(tmp_path: Path) -> None:
    from gradelib.similarity import refresh
    from gradelib.similarity.fingerprint import SCHEME

    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        _grade(book, write_tree(tmp_path / "ada", {"triage.py": CLIENT}), "ada")
        _grade(book, write_tree(tmp_path / "cy", {"main.py": RENAMED_REFORMATTED}), "cy")
        ada, _ = book.code_sources(TAKEHOME)
        book.replace_code_marks(ada.id, "t1-old", [((1, 1, 1), (2, 2, 2))])  # as an earlier kit left it
        assert [s.name for s in book.code_sources(TAKEHOME) if s.scheme == SCHEME] == ["cy"]
        assert cohort_pairs(book, TAKEHOME) == []  # never compared across schemes
        assert refresh(book, TAKEHOME, Base()) == 1
        assert refresh(book, TAKEHOME, Base()) == 0
        (pair,) = cohort_pairs(book, TAKEHOME)
        assert (pair.a.name, pair.b.name, pair.match.share) == ("ada", "cy", 1.0)


def test_a_gradebook_kept_by_a_kit_without_fingerprint_schemes_gets_the_column(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "gradebook.sqlite"
    Gradebook(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE code_sources DROP COLUMN scheme")
    with Gradebook(path) as book:
        _grade(book, write_tree(tmp_path / "ada", {"triage.py": CLIENT}), "ada")
        assert [s.name for s in book.code_sources(TAKEHOME)] == ["ada"]
