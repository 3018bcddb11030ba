from triage_app.reply import parse_reply


def test_json():
    assert parse_reply('{"label": "billing", "justification": "refund"}') == ("billing", "refund")


def test_lines():
    assert parse_reply("label: bug\njustification: 500 on login") == ("bug", "500 on login")
