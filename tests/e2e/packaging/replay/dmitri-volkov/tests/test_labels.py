from ticketsort.labels import read_answer


def test_json_reply():
    assert read_answer('{"label": "billing", "justification": "Double charge."}') == ("billing", "Double charge.")


def test_plain_reply():
    assert read_answer("label: Feature Request\njustification: wants dark mode") == (
        "feature_request",
        "wants dark mode",
    )


def test_unknown_label():
    assert read_answer('{"label": "urgent"}') is None
