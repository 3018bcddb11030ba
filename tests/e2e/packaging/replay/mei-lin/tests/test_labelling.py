from triage.labelling import understand


def test_json() -> None:
    assert understand('{"label": "billing", "justification": "Invoice question."}') == ("billing", "Invoice question.")


def test_lines() -> None:
    assert understand("label: account\njustification: wants to change email") == ("account", "wants to change email")


def test_unknown() -> None:
    assert understand('{"label": "spam", "justification": "x"}') is None
