from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from rich.console import Console

from triage import cassettes
from triage.domain import conversation, read_verdict

console = Console(stderr=True, highlight=False)


def replay_all(tickets: list[dict]) -> list[dict]:
    rows = []
    for ticket in tickets:
        body = cassettes.replay(ticket["id"], conversation(ticket))
        verdict = read_verdict(body["choices"][0]["message"]["content"])
        if verdict is None:
            raise ValueError(f"cassette for {ticket['id']} holds no valid label")
        rows.append(verdict.row(ticket["id"]))
    return rows


def record_all(tickets: list[dict]) -> None:
    from triage.live import ChatAPI

    api = ChatAPI()
    try:
        for ticket in tickets:
            messages = conversation(ticket)
            status, body = api.chat(ticket["id"], api.payload(messages))
            cassettes.save(ticket["id"], messages, api.payload(messages), status, body)
    finally:
        logging.getLogger("triage").info("record: %d calls", api.calls)


def main(argv: list[str]) -> int:
    if argv not in (["record"], ["replay"]):
        console.print("usage: python -m triage record|replay")
        return 2
    mode = argv[0]
    out = Path("out")
    out.mkdir(exist_ok=True)
    logging.basicConfig(filename=out / "run.log", level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))
    try:
        if mode == "record":
            from triage.live import LiveError

            try:
                record_all(tickets)
            except LiveError as exc:
                console.print(f"[bold red]record failed:[/] {exc}")
                return 1
        rows = replay_all(tickets)
    except (cassettes.MissingCassette, ValueError) as exc:
        console.print(f"[bold red]{mode} failed:[/] {exc}")
        return 1
    staging = out / "answers.json.tmp"
    staging.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    staging.replace(out / "answers.json")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["label"]] = counts.get(row["label"], 0) + 1
    console.print(f"[green]{mode}[/]: {len(rows)} tickets -> out/answers.json  " +
                  " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return 0


sys.exit(main(sys.argv[1:]))
