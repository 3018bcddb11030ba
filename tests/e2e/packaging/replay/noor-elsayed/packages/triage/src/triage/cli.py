"""triage record|replay

replay: answers from cassettes/ only, no network, fails on the first missing cassette.
record: asks the model (at most 40 calls), stores one cassette per ticket, then writes
        the same out/answers.json replay would.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from tapedeck import MissingCassette, Tapedeck

from triage.prompt import UnusableReply, build_messages, parse_reply

ROOT = Path.cwd()
DECK = Tapedeck(ROOT / "cassettes")
OUT = ROOT / "out"


def _content(response: dict) -> str | None:
    try:
        return response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


def _answer(ticket: dict, response: dict) -> dict:
    label, why = parse_reply(_content(response))
    return {"id": ticket["id"], "label": label, "justification": why}


def replay(tickets: list[dict]) -> list[dict]:
    answers = []
    for ticket in tickets:
        cassette = DECK.play(build_messages(ticket), what=f"ticket {ticket['id']}")
        answers.append(_answer(ticket, cassette.response))
    return answers


def record(tickets: list[dict]) -> list[dict]:
    from triage.llm import ChatModel

    def usable(response: dict) -> bool:
        try:
            parse_reply(_content(response))
        except UnusableReply:
            return False
        return True

    model = ChatModel()
    try:
        for ticket in tickets:
            messages = build_messages(ticket)
            body = model.request_body(messages)
            response = model.complete(ticket["id"], body, usable)
            DECK.record(messages, ticket["id"], body, response)
    finally:
        logging.getLogger("triage").info("record made %d model calls", model.calls)
        model.close()
    return replay(tickets)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in (["record"], ["replay"]):
        print("usage: triage record|replay", file=sys.stderr)
        return 2
    mode = args[0]
    OUT.mkdir(exist_ok=True)
    logging.basicConfig(filename=OUT / "run.log", level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    tickets = json.loads((ROOT / "tickets.json").read_text(encoding="utf-8"))
    try:
        if mode == "replay":
            answers = replay(tickets)
        else:
            from triage.llm import BudgetSpent, ModelDown

            try:
                answers = record(tickets)
            except (BudgetSpent, ModelDown) as exc:
                print(f"triage record: {exc}", file=sys.stderr)
                return 1
    except MissingCassette as exc:
        print(f"triage replay: {exc}. Nothing was written; run `./run.sh record` to record it.", file=sys.stderr)
        return 1
    except UnusableReply as exc:
        print(f"triage {mode}: {exc}", file=sys.stderr)
        return 1

    target = OUT / "answers.json"
    tmp = target.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(answers, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(target)
    print(f"{mode}: {len(answers)} answers -> out/answers.json")
    return 0
