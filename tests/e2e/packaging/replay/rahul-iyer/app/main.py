"""Usage: python app/main.py record|replay   (use ./run.sh)"""

import json
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from app import cassettes  # noqa: E402
from app.labels import build_prompt, parse_model_output  # noqa: E402


def answers_from_cassettes(tickets):
    rows = []
    for ticket in tickets:
        try:
            response = cassettes.fetch(ticket["id"], build_prompt(ticket))
        except cassettes.MissingCassette as missing:
            raise SystemExit(
                "ERROR: no cassette for ticket %s (expected %s). Run `./run.sh record` first." % (ticket["id"], missing)
            )
        parsed = parse_model_output(response["choices"][0]["message"]["content"])
        if parsed is None:
            raise SystemExit("ERROR: cassette for %s has no usable label" % ticket["id"])
        rows.append({"id": ticket["id"], "label": parsed["label"], "justification": parsed["justification"]})
    return rows


def record(tickets):
    from app.llm import LLM, StopRecording

    try:
        llm = LLM()
        for ticket in tickets:
            prompt = build_prompt(ticket)
            cassettes.store(ticket["id"], prompt, llm.ask(ticket["id"], prompt))
    except StopRecording as e:
        raise SystemExit("record aborted: %s" % e)
    finally:
        logging.info("calls made: %s", getattr(locals().get("llm"), "calls", 0))


def main(argv):
    if len(argv) != 1 or argv[0] not in ("record", "replay"):
        raise SystemExit("usage: ./run.sh record|replay")
    os.makedirs("out", exist_ok=True)
    logging.basicConfig(filename="out/run.log", level=logging.INFO, format="%(asctime)s [%(name)s] %(message)s")
    with open("tickets.json", encoding="utf-8") as fh:
        tickets = json.load(fh)
    if argv[0] == "record":
        record(tickets)
    rows = answers_from_cassettes(tickets)
    with open("out/answers.json.new", "w", encoding="utf-8") as fh:
        json.dump(rows, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    os.replace("out/answers.json.new", "out/answers.json")
    print("%s ok: %d answers in out/answers.json" % (argv[0], len(rows)))


if __name__ == "__main__":
    main(sys.argv[1:])
