from ticketlabeler.cli import extract
from ticketlabeler.tape import fingerprint


def body(text):
    return {"choices": [{"message": {"content": text}}]}


def test_json_reply():
    assert extract(body('{"label": "billing", "justification": "Charged twice."}')) == ("billing", "Charged twice.")


def test_plain_reply():
    assert extract(body("label: feature request\njustification: Wants SSO.")) == ("feature_request", "Wants SSO.")


def test_unknown_label():
    assert extract(body('{"label": "spam"}')) is None


def test_fingerprint_depends_on_the_prompt():
    assert fingerprint([{"role": "user", "content": "a"}]) != fingerprint([{"role": "user", "content": "b"}])
