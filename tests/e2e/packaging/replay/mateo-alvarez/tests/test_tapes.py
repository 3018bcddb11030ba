import pytest

from helpdesk_triage import tapes


def test_missing_tape_names_file_and_ticket(tmp_path, monkeypatch):
    monkeypatch.setattr(tapes, "TAPE_DIR", tmp_path)
    with pytest.raises(tapes.TapeMissing, match=r"T-042.*run.sh record"):
        tapes.play("T-042", [{"role": "user", "content": "hi"}])


def test_store_then_play(tmp_path, monkeypatch):
    monkeypatch.setattr(tapes, "TAPE_DIR", tmp_path)
    msgs = [{"role": "user", "content": "hi"}]
    tapes.store("T-001", msgs, {"messages": msgs}, {"choices": []})
    assert tapes.play("T-001", msgs) == {"choices": []}
