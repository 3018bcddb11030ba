from helpdesk_triage.prompt import read_verdict


def test_json_reply():
    v = read_verdict('{"label": "billing", "justification": "Double charge."}')
    assert (v.label, v.justification) == ("billing", "Double charge.")


def test_fenced_json_reply():
    v = read_verdict('```json\n{"label": "Feature-Request", "justification": "Wants dark mode"}\n```')
    assert v.label == "feature_request"


def test_plain_text_reply():
    v = read_verdict("label: bug\njustification: Export button is broken in Firefox.")
    assert (v.label, v.justification) == ("bug", "Export button is broken in Firefox.")


def test_unknown_label_is_unusable():
    assert read_verdict('{"label": "urgent", "justification": "?"}') is None
    assert read_verdict("I think this is about billing.") is None
