from triage.domain import Label, read_verdict


def test_json_reply():
    verdict = read_verdict('{"label": "feature_request", "justification": "Wants CSV export."}')
    assert verdict and verdict.label is Label.FEATURE_REQUEST


def test_text_reply():
    verdict = read_verdict("label: billing\njustification: refund for a duplicate charge")
    assert verdict and verdict.row("T-1") == {
        "id": "T-1",
        "label": "billing",
        "justification": "refund for a duplicate charge",
    }


def test_bad_label():
    assert read_verdict('{"label": "sales"}') is None
