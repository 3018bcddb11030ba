from app.labels import parse_model_output


def test_json():
    assert parse_model_output('{"label":"other","justification":"Just saying thanks."}') == {
        "label": "other",
        "justification": "Just saying thanks.",
    }


def test_plain():
    assert parse_model_output("label: billing\njustification: refund request")["label"] == "billing"


def test_bad():
    assert parse_model_output("I think this is about money") is None
