import json
import logging
import re
import sys
from pathlib import Path

from ticketlabeler import LABELS, tape

INSTRUCTION = (
    "Triage this customer support ticket. Valid labels: " + ", ".join(LABELS) + ". "
    'Answer only with JSON: {"label": "<label>", "justification": "<one sentence>"}.'
)


def prompt(ticket):
    return [{"role": "system", "content": INSTRUCTION},
            {"role": "user", "content": "Ticket " + ticket["id"] + "\n\n" + ticket["body"]}]


def extract(body):
    """(label, justification) or None."""
    try:
        text = body["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        return None
    text = text.strip()
    fence = re.match(r"^```\w*\n(.*)\n```$", text, re.S)
    if fence:
        text = fence.group(1)
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            return None
    except ValueError:
        data = {}
        for line in text.splitlines():
            m = re.match(r"\s*(label|justification)\s*:\s*(.*)", line, re.I)
            if m:
                data.setdefault(m.group(1).lower(), m.group(2))
    label = str(data.get("label") or "").strip().strip('"').lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        return None
    return label, " ".join(str(data.get("justification") or "").split())


def replay(tickets):
    out = []
    for t in tickets:
        found = extract(tape.load(t["id"], prompt(t)))
        if found is None:
            raise tape.NoTape(f"cassette for {t['id']} has no valid label")
        out.append({"id": t["id"], "label": found[0], "justification": found[1]})
    return out


def record(tickets):
    from ticketlabeler.model import Chat

    chat = Chat()
    for t in tickets:
        request = chat.request(prompt(t))
        status, body = chat.send(t["id"], request, accept=lambda b: extract(b) is not None)
        tape.save(t["id"], request, status, body)
    logging.getLogger("ticketlabeler").info("record: %d calls", chat.used)
    return replay(tickets)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("record", "replay"):
        print("usage: python -m ticketlabeler record|replay", file=sys.stderr)
        return 2
    out_dir = Path("out")
    out_dir.mkdir(exist_ok=True)
    logging.basicConfig(filename=str(out_dir / "run.log"), level=logging.INFO,
                        format="%(asctime)s %(name)s %(message)s")
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))
    try:
        answers = record(tickets) if mode == "record" else replay(tickets)
    except tape.NoTape as e:
        print(f"error: {e}. Run ./run.sh record to (re-)record the cassettes.", file=sys.stderr)
        return 1
    except Exception as e:
        from ticketlabeler.model import GiveUp

        if isinstance(e, GiveUp):
            print(f"record failed: {e}", file=sys.stderr)
            return 1
        raise
    part = out_dir / "answers.json.part"
    part.write_text(json.dumps(answers, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    part.replace(out_dir / "answers.json")
    print(f"{mode}: wrote out/answers.json ({len(answers)} tickets)")
    return 0
