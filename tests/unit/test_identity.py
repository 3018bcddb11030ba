"""Blind identity: the label for a submission, the submission for a label, and when a name may be shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gradelib.errors import UnknownSubmission
from gradelib.gradebook import Gradebook, identity

REPLAY = "replay"


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Gradebook]:
    """Seven replay submissions (alice is #1, bob #2, the rest c3..c7) and one payments submission."""
    gradebook = Gradebook(tmp_path / "gradebook.sqlite")
    for name in ("alice", "bob", "c3", "c4", "c5", "c6", "c7"):
        gradebook.upsert_submission(REPLAY, name, f"d-{name}", f"submissions/{name}")
    gradebook.upsert_submission("payments", "carol", "d-carol", "submissions/carol")
    yield gradebook
    gradebook.close()


@pytest.mark.parametrize(
    ("text", "number"),
    [("Submission #3", 3), ("submission #3", 3), ("SUBMISSION 3", 3), ("#3", 3), ("3", 3), (" 3 ", 3),
     ("alice", None), ("Submission #", None), ("#3a", None), ("", None)],
    ids=repr,
)  # fmt: skip
def test_parse_label(text: str, number: int | None) -> None:
    assert identity.parse_label(text) == number


@pytest.mark.parametrize("label", ["Submission #2", "submission #2", "#2", "2", "bob"], ids=repr)
def test_a_label_or_a_name_finds_the_submission(book: Gradebook, label: str) -> None:
    assert identity.find_submission(book, REPLAY, label).name == "bob"


def test_a_number_no_submission_has_falls_back_to_a_name(book: Gradebook) -> None:
    book.upsert_submission("payments", "42", "d-42", "submissions/42")  # a folder called 42 is #2 of payments
    assert identity.lookup(book, "payments", "42") is not None
    assert identity.find_submission(book, "payments", "42").name == "42"
    assert identity.find_submission(book, "payments", "2").name == "42"


def test_labels_are_per_takehome(book: Gradebook) -> None:
    assert identity.find_submission(book, "payments", "1").name == "carol"
    assert identity.lookup(book, "payments", "2") is None
    assert identity.lookup(book, REPLAY, "carol") is None


def test_an_unknown_label_names_a_few_known_labels_never_names(book: Gradebook) -> None:
    with pytest.raises(UnknownSubmission) as caught:
        identity.find_submission(book, REPLAY, "Submission #9")
    message = str(caught.value)
    assert message.startswith(f"no replay submission 'Submission #9' in {book.path}")
    assert "Submission #1, Submission #2, Submission #3, Submission #4, Submission #5 and 2 more" in message
    assert caught.value.known == tuple(f"Submission #{n}" for n in range(1, 6))
    assert "alice" not in message and "bob" not in message  # blind: labels only
    with pytest.raises(UnknownSubmission, match="it has no webhooks submission"):
        identity.find_submission(book, "webhooks", "1")


def test_a_label_is_blind_unless_revealed(book: Gradebook) -> None:
    row = identity.find_submission(book, REPLAY, "alice")
    assert identity.label_for(row) == "Submission #1"
    assert identity.label_for(row, reveal=True) == "alice"
    assert identity.visible_name("alice", False) is None
    assert identity.visible_name("alice", True) == "alice"
    assert identity.shown("alice", "Earlier cohort #4", False) == "Earlier cohort #4"


def test_shown_name_looks_the_label_up(book: Gradebook) -> None:
    assert identity.shown_name(book, REPLAY, "bob", reveal=False) == "Submission #2"
    assert identity.shown_name(book, REPLAY, "bob", reveal=True) == "bob"
    assert identity.shown_name(book, REPLAY, "nobody", reveal=False) == identity.NOT_IN_GRADEBOOK


def test_hide_name_keeps_a_message_blind() -> None:
    assert identity.hide_name("no score for alice on record", "alice", "Submission #1") == (
        "no score for Submission #1 on record"
    )
    assert identity.hide_name("nothing to hide", "", "Submission #1") == "nothing to hide"


@pytest.mark.parametrize(
    ("value", "revealed"),
    [(None, False), ("", False), ("0", False), ("off", False), ("No", False), ("1", True), ("yes", True)],
    ids=repr,
)
def test_reveal_comes_from_the_flag_else_the_environment(
    value: str | None, revealed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if value is None:
        monkeypatch.delenv(identity.ENV_REVEAL, raising=False)
    else:
        monkeypatch.setenv(identity.ENV_REVEAL, value)
    assert identity.is_revealed() is revealed
    assert identity.is_revealed(True) is True and identity.is_revealed(False) is False  # the flag decides
