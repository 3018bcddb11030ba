"""tickettriage record|replay -- run from the project folder (run.sh takes care of that)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from . import fixtures, prompt

log = logging.getLogger("tickettriage")


def _content(body: dict) -> str | None:
    try:
        return body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


def _row(ticket: dict, body: dict) -> dict:
    parsed = prompt.parse(_content(body))
    if parsed is None:
        raise ValueError(f"{ticket['id']}: reply has no valid label: {_content(body)!r}")
    label, justification = parsed
    return {"id": ticket["id"], "label": label, "justification": justification}


def replay(tickets: list[dict], cassettes: Path) -> list[dict]:
    return [_row(t, fixtures.load(cassettes, t["id"], prompt.messages(t))) for t in tickets]


def record(tickets: list[dict], cassettes: Path) -> list[dict]:
    from .recorder import Recorder  # httpx is only imported here

    rec = Recorder()
    try:
        for t in tickets:
            msgs = prompt.messages(t)
            payload = rec.request(msgs)
            status, body = rec.call(t["id"], payload)
            if prompt.parse(_content(body)) is None:
                log.warning("%s: unusable reply, asking again", t["id"])
                status, body = rec.call(t["id"], payload)
            fixtures.save(cassettes, t["id"], msgs, payload, status, body)
    finally:
        log.info("record: %d model calls", rec.calls)
        rec.close()
    return replay(tickets, cassettes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="tickettriage", description="Support ticket triage (record/replay).")
    ap.add_argument("mode", choices=("record", "replay"))
    ap.add_argument("--root", type=Path, default=Path("."), help="project folder (default: current folder)")
    args = ap.parse_args(argv)

    root = args.root
    out = root / "out"
    out.mkdir(exist_ok=True)
    logging.basicConfig(
        filename=out / "run.log", level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)

    tickets = json.loads((root / "tickets.json").read_text(encoding="utf-8"))
    try:
        if args.mode == "record":
            from .recorder import RecordFailed

            try:
                rows = record(tickets, root / "cassettes")
            except RecordFailed as exc:
                raise SystemExit(f"tickettriage record: {exc}") from None
        else:
            rows = replay(tickets, root / "cassettes")
    except (fixtures.FixtureMissing, ValueError) as exc:
        log.error("%s", exc)
        print(f"tickettriage {args.mode}: {exc}", file=sys.stderr)
        return 1

    tmp = out / "answers.json.tmp"
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(out / "answers.json")
    print(f"tickettriage {args.mode}: {len(rows)} answers in {out / 'answers.json'}")
    return 0
