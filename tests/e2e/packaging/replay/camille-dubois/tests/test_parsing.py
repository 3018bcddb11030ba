from ticket_triager.parsing import parse


def test_json_reply():
    assert parse('{"label": "bug", "justification": "App crashes."}') == ("bug", "App crashes.")


def test_fenced_json():
    assert parse('```json\n{"label": "account", "justification": "2FA reset."}\n```') == ("account", "2FA reset.")


def test_plain_lines():
    assert parse("Label: other\nJustification: a thank-you note") == ("other", "a thank-you note")
