import pytest

from parsing import parse_answer


@pytest.mark.parametrize(
    "content, expected",
    [
        ('{"label": "billing", "justification": "Charged twice."}', ("billing", "Charged twice.")),
        ("label: bug\njustification: Crashes on open.", ("bug", "Crashes on open.")),
        ("label: feature_request / justification: Wants dark mode.", ("feature_request", "Wants dark mode.")),
        ('```json\n{"label": "Account", "justification": "Email change"}\n```', ("account", "Email change")),
    ],
)
def test_parse_answer(content, expected):
    assert parse_answer(content) == expected


def test_rejects_unknown_label():
    assert parse_answer('{"label": "sales", "justification": "x"}') is None
