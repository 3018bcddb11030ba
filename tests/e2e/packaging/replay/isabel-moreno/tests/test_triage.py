from ticket_triage.triage import Triage, parse


def test_json():
    assert parse('{"label": "account", "justification": "Cannot log in."}') == Triage("account", "Cannot log in.")


def test_plain_text():
    assert parse("label: bug\njustification: export crashes") == Triage("bug", "export crashes")


def test_rejects_unknown_label():
    assert parse('{"label": "refund"}') is None
