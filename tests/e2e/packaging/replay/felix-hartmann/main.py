"""Ticket triage, record/replay. Usage: uv run main.py record|replay"""

import json
import os
import sys
from pathlib import Path

import cassette
from reply import LABELS, parse

TICKETS = Path("tickets.json")
OUT = Path("out")

SYSTEM = (
    "You are a support triage assistant. For the ticket below pick exactly one label out of "
    + ", ".join(LABELS)
    + ' and answer ONLY with JSON: {"label": "...", "justification": "..."}. '
    "The justification must be a single sentence."
)


def request_for(ticket):
    # Everything that decides the answer, minus the model id (see README).
    return {
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": ticket["body"]},
        ],
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }


def log_line(**fields):
    OUT.mkdir(exist_ok=True)
    with (OUT / "run.log").open("a", encoding="utf-8") as f:
        f.write(json.dumps(fields, sort_keys=True, default=str) + "\n")


def answers_from(tickets, responses):
    rows = []
    for ticket, response in zip(tickets, responses, strict=True):
        label, why = parse(response["choices"][0]["message"]["content"])
        rows.append({"id": ticket["id"], "label": label, "justification": why})
    return rows


def save_answers(rows):
    OUT.mkdir(exist_ok=True)
    tmp = OUT / ".answers.json.partial"
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(OUT / "answers.json")


def replay(tickets):
    return [cassette.read(t["id"], request_for(t)) for t in tickets]


def record(tickets):
    from dotenv import load_dotenv

    load_dotenv(Path(".env"))  # optional; real env vars win

    import llm  # imports openai; replay never gets here

    caller = llm.Caller(model=os.environ.get("MODEL", "gpt-4o-mini"), log=log_line)
    responses = []
    try:
        for t in tickets:
            req = request_for(t)
            resp = caller.ask(t["id"], req)
            cassette.write(t["id"], req, resp)
            responses.append(resp)
    except llm.RecordFailed as e:
        log_line(event="record failed", error=str(e), calls=caller.calls)
        sys.exit(f"record: {e}")  # exit status 1, nothing written to out/answers.json
    log_line(event="record done", calls=caller.calls)
    return responses


def main(argv):
    if len(argv) != 1 or argv[0] not in ("record", "replay"):
        print("usage: ./run.sh record|replay", file=sys.stderr)
        return 2
    mode = argv[0]
    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    if mode == "record":
        responses = record(tickets)
    else:
        try:
            responses = replay(tickets)
        except cassette.Missing as e:
            sys.exit(f"replay: {e}")
    save_answers(answers_from(tickets, responses))
    print(f"{mode}: {len(tickets)} answers -> out/answers.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
