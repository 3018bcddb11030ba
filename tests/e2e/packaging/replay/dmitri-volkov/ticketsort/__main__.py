"""ticketsort record|replay"""

import json
import logging
import os
import sys

from . import cassettes
from .labels import messages, read_answer

ANSWERS = os.path.join("out", "answers.json")


def build_answers(tickets):
    answers = []
    for t in tickets:
        response = cassettes.load(t["id"], {"messages": messages(t)})
        parsed = read_answer(response["choices"][0]["message"]["content"])
        if parsed is None:
            raise cassettes.CassetteMismatch(f"cassette for {t['id']} has no usable label")
        label, justification = parsed
        answers.append({"id": t["id"], "label": label, "justification": justification})
    return answers


def write_answers(answers):
    tmp = ANSWERS + ".partial"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(answers, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    os.replace(tmp, ANSWERS)


def record(tickets):
    from .recorder import MAX_CALLS, Recorder

    rec = Recorder()
    failed = []
    for t in tickets:
        if rec.budget_left() <= 0:
            failed.append(t["id"])
            continue
        if not rec.record_ticket(t, messages(t)):
            failed.append(t["id"])
    logging.info("record: %d calls", rec.calls)
    if failed:
        spent = " (call budget of %d used up)" % MAX_CALLS if rec.calls >= MAX_CALLS else ""
        sys.exit("record failed for %d ticket(s)%s: %s" % (len(failed), spent, ", ".join(failed)))


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("record", "replay"):
        sys.exit("usage: ticketsort record|replay")
    mode = sys.argv[1]
    os.makedirs("out", exist_ok=True)
    logging.basicConfig(filename=os.path.join("out", "run.log"), level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(message)s")
    with open("tickets.json", encoding="utf-8") as fh:
        tickets = json.load(fh)

    if mode == "record":
        record(tickets)
    try:
        answers = build_answers(tickets)
    except (cassettes.CassetteNotFound, cassettes.CassetteMismatch) as exc:
        sys.exit("ticketsort %s: %s" % (mode, exc))
    write_answers(answers)
    print("wrote %s (%d tickets)" % (ANSWERS, len(answers)))


if __name__ == "__main__":
    main()
