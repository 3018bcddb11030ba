"""Broken replay submissions, end to end: each line judges only what its own run produced.

Written the way candidates write them: a replay that only prints and ships a correct answers
file, programs that crash on start (Python, Node), a client that falls back to a live call, a
record that dies on import. None of them may score where it did not work, every line still gets
a number, and no message shows a kit path or a Node version banner instead of the error.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLES, write_tree

from gradelib import cli
from gradelib.result import Report
from gradelib.takehomes import replay
from gradelib.takehomes.replay.modelstub import packaged_tickets

pytestmark = pytest.mark.e2e
AMARA = SAMPLES / "replay" / "amara-okafor"
LABELS = ("billing", "bug", "account", "feature_request", "other")

RUN_SH = """\
#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  replay|record) exec python3 -B triage.py "$1" ;;
  *) echo "usage: ./run.sh replay|record" >&2; exit 2 ;;
esac
"""

TRIAGE_PY = '''\
"""Support-ticket triage with a model behind a record/replay boundary."""
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

CASSETTES = Path("cassettes")
LABELS = ["billing", "bug", "account", "feature_request", "other"]
MAX_CALLS = 40
PROMPT = (
    "Label this support ticket as one of: {labels}. Reply with a JSON object "
    '{{"label": ..., "justification": ...}}.\\n\\nTicket: {body}'
)


class CassetteMissing(Exception):
    pass


def cassette_for(ticket):
    return CASSETTES / f"{ticket['id']}.json"


class ReplayClient:
    """Reads recorded responses; never opens a socket."""

    def complete(self, ticket, prompt):
        path = cassette_for(ticket)
        if not path.exists():
            raise CassetteMissing(f"no cassette {path} for {ticket['id']}; run ./run.sh record")
        return json.loads(path.read_text())["response"]["choices"][0]["message"]["content"]


class LiveClient:
    """Calls the chat-completions endpoint, at most MAX_CALLS times, and records each answer."""

    def __init__(self):
        self.base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
        self.key = os.environ.get("OPENAI_API_KEY")
        if not self.key:
            raise RuntimeError("OPENAI_API_KEY is not set")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0

    def complete(self, ticket, prompt):
        error = None
        for attempt in range(3):
            self.calls += 1
            if self.calls > MAX_CALLS:
                raise RuntimeError(f"budget cap hit at {MAX_CALLS} calls")
            body = {"model": self.model, "messages": [{"role": "user", "content": prompt}], "temperature": 0}
            headers = {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}
            request = urllib.request.Request(self.base + "/chat/completions", json.dumps(body).encode(), headers)
            try:
                with urllib.request.urlopen(request, timeout=20) as response:
                    reply = json.load(response)
            except (OSError, urllib.error.URLError) as exc:
                error = exc
                time.sleep(0.2 * (attempt + 1))
                continue
            CASSETTES.mkdir(exist_ok=True)
            record = {"request": body, "response": reply}
            cassette_for(ticket).write_text(json.dumps(record, indent=2, sort_keys=True) + "\\n")
            return reply["choices"][0]["message"]["content"]
        raise RuntimeError(f"model call failed after 3 attempts: {error}")


def parse(text):
    try:
        answer = json.loads(text)
    except ValueError:
        answer = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    label = answer.get("label", "other")
    return (label if label in LABELS else "other"), answer.get("justification", "")


def make_client(mode):
    return LiveClient() if mode == "record" else ReplayClient()


def main(mode):
    tickets = json.loads(Path("tickets.json").read_text())
    client = make_client(mode)
    rows = []
    for ticket in tickets:
        prompt = PROMPT.format(labels=", ".join(LABELS), body=ticket["body"])
        label, why = parse(client.complete(ticket, prompt))
        rows.append({"id": ticket["id"], "label": label, "justification": why})
    Path("out").mkdir(exist_ok=True)
    Path("out/answers.json").write_text(json.dumps(rows, indent=2, sort_keys=True) + "\\n")
    print(f"{len(rows)} tickets triaged ({mode})")


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except CassetteMissing as exc:
        sys.exit(f"replay: {exc}")
'''

# "Resilient" replay: a missing cassette is answered by the live model, so the run still finishes.
LIVE_FALLBACK = """
class ResilientClient:
    def __init__(self):
        self.replay = ReplayClient()

    def complete(self, ticket, prompt):
        try:
            return self.replay.complete(ticket, prompt)
        except CassetteMissing as exc:
            print(f"warning: {exc}; asking the live model instead", file=sys.stderr)
            return LiveClient().complete(ticket, prompt)


def make_client(mode):
    return LiveClient() if mode == "record" else ResilientClient()
"""

NODE_RUN_SH = """\
#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  replay|record) exec node index.mjs "$1" ;;
  *) echo "usage: $0 replay|record" >&2; exit 64 ;;
esac
"""

NODE_INDEX = """\
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import { loadCassette } from "./lib/cassettes.js";

const mode = process.argv[2];
const tickets = JSON.parse(readFileSync("tickets.json", "utf8"));
const rows = tickets.map((t) => {
  const reply = JSON.parse(loadCassette(t.id).response.choices[0].message.content);
  return { id: t.id, justification: reply.justification, label: reply.label };
});
mkdirSync("out", { recursive: true });
writeFileSync("out/answers.json", JSON.stringify(rows, null, 2) + "\\n");
console.log(`${rows.length} tickets triaged (${mode})`);
"""

NODE_CASSETTES = """\
import { existsSync, readFileSync } from "node:fs";

export function loadCassette(id) {
  const path = `cassettes/${id}.json`;
  if (!existsSync(path)) throw new Error(`no cassette ${path}; run ./run.sh record`);
  return JSON.parse(readFileSync(path, "utf8"));
}
"""


def _recorded(labels: dict[str, str] | None = None) -> dict[str, str]:
    """cassettes/<id>.json as LiveClient writes them, and the out/answers.json replay makes of them."""
    files: dict[str, str] = {}
    rows = []
    for n, ticket in enumerate(packaged_tickets()):
        label = (labels or {}).get(ticket["id"], LABELS[n % len(LABELS)])
        why = f"The ticket reads like a {label} issue."
        content = json.dumps({"label": label, "justification": why})
        reply = {
            "id": f"chatcmpl-{n:04d}",
            "object": "chat.completion",
            "created": 1714550400 + n,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 90, "completion_tokens": 20, "total_tokens": 110},
        }
        request = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": ticket["body"]}], "temperature": 0}
        record = {"request": request, "response": reply}
        files[f"cassettes/{ticket['id']}.json"] = json.dumps(record, indent=2, sort_keys=True) + "\n"
        rows.append({"id": ticket["id"], "justification": why, "label": label})
    files["out/answers.json"] = json.dumps(rows, indent=2, sort_keys=True) + "\n"
    files["tickets.json"] = json.dumps(packaged_tickets(), indent=2) + "\n"
    return files


def _python_submission(root: Path, triage: str = TRIAGE_PY, **extra: str) -> Path:
    return write_tree(root, {"run.sh": RUN_SH, "triage.py": triage, **_recorded(), **extra})


def _outcomes(report: Report) -> dict[str, str]:
    return {line.id: line.outcome for line in report.lines}


def _assert_readable(report: Report) -> None:
    """Every line has a number, and nothing shows the kit's own folders or Node's banner."""
    assert report.total is not None, {line.id: line.message for line in report.lines}
    for line in report.lines:
        assert line.points is not None, line
        for kit_word in ("missing-fixture", "gradelib-", "Node.js v", "<copy>", "<sandbox>"):
            assert kit_word not in line.message, line.message
    text = report.to_json()
    assert f"{tempfile.gettempdir()}/gradelib-" not in text
    assert not re.search(r"\d\d-missing-fixture", text)


def test_a_replay_that_only_prints_does_not_pass_on_the_shipped_answers(tmp_path: Path) -> None:
    """`run.sh replay` prints and exits 0; the correct out/answers.json it ships is not what it produced."""
    sub = tmp_path / "do-nothing"
    shutil.copytree(AMARA, sub)
    (sub / "triage.py").unlink()
    write_tree(sub, {"run.sh": '#!/usr/bin/env bash\ncd "$(dirname "$0")"\necho "20 tickets triaged"\n'})
    report = replay.check(sub)
    got = _outcomes(report)
    assert got == dict.fromkeys(got, "fail"), {line.id: line.message for line in report.lines}
    identical = report.line("identical")
    assert "run A exited 0 without writing out/answers.json" in identical.message
    volatile = report.line("volatile")
    assert "nothing of this run's to scan" in volatile.message and volatile.evidence["source"] is None
    assert "findings" not in volatile.evidence, "the shipped file is not scanned"
    assert "exited 0" in report.line("missing_fixture").message
    assert "no replay did its work" in report.line("offline").message
    assert report.total == 0.0
    _assert_readable(report)


def test_a_python_program_that_crashes_on_start_fails_every_line_with_its_error(tmp_path: Path) -> None:
    """`from prompts import ...` of a file that was never committed: ModuleNotFoundError in both modes."""
    crashing = TRIAGE_PY.replace(
        "from pathlib import Path\n", "from pathlib import Path\n\nfrom prompts import PROMPT\n"
    )
    sub = _python_submission(tmp_path / "no-prompts", crashing)
    report = replay.check(sub)
    assert set(_outcomes(report).values()) == {"fail"}, {line.id: line.message for line in report.lines}
    error = "ModuleNotFoundError: No module named 'prompts'"
    undeclared = "imports `prompts`, which nothing in the submission declares"  # the one rule: the candidate's
    assert report.line("identical").message == f"{undeclared}: replay run A exited 1: {error}"
    missing = report.line("missing_fixture")
    assert "does not run at all" in missing.message and error in missing.message
    assert "never called the stub" in report.line("record").message and error in report.line("record").message
    offline = report.line("offline")
    assert offline.evidence["attempts"] == [] and "no connection attempted" in offline.message
    assert error in report.line("volatile").message
    assert report.total == 0.0
    _assert_readable(report)


def test_a_node_program_that_cannot_find_its_module_shows_the_error_not_the_banner(tmp_path: Path) -> None:
    """`import "./lib/cassettes.js"` of a file named cassettes.mjs: ERR_MODULE_NOT_FOUND."""
    sub = write_tree(
        tmp_path / "node-import",
        {"run.sh": NODE_RUN_SH, "index.mjs": NODE_INDEX, "lib/cassettes.mjs": NODE_CASSETTES, **_recorded()},
    )
    report = replay.check(sub)
    assert set(_outcomes(report).values()) == {"fail"}, {line.id: line.message for line in report.lines}
    identical = report.line("identical").message
    assert identical.startswith("replay run A exited 1: Error [ERR_MODULE_NOT_FOUND]: Cannot find module"), identical
    assert "<submission>/lib/cassettes.js" in identical
    missing = report.line("missing_fixture").message
    assert "does not run at all" in missing and "ERR_MODULE_NOT_FOUND" in missing
    assert "never called the stub" in report.line("record").message
    _assert_readable(report)


def test_a_live_fallback_that_crashes_without_a_key_does_not_fail_loudly(tmp_path: Path) -> None:
    """The fallback's warning names the cassette, then the live client dies: that is not a loud failure."""
    sub = _python_submission(
        tmp_path / "fallback", TRIAGE_PY.replace("\n\nif __name__", LIVE_FALLBACK + "\n\nif __name__")
    )
    report = replay.check(sub)
    got = _outcomes(report)
    assert got["identical"] == "pass" and got["offline"] == "pass", {line.id: line.message for line in report.lines}
    missing = report.line("missing_fixture")
    assert missing.outcome == "fail"
    assert "names no fixture, cassette or record" in missing.message
    assert "RuntimeError: OPENAI_API_KEY is not set" in missing.message
    stderr = missing.evidence["run"]["stderr_tail"]
    assert "During handling" in stderr, "the CassetteMissing it handled (naming the cassette) is above"
    assert got["record"] == "pass" and got["volatile"] == "pass"
    _assert_readable(report)


def test_a_record_that_dies_on_import_never_called_the_stub(tmp_path: Path) -> None:
    """The live client needs `requests`, which is not installed: record exits 1 after 0 calls."""
    live = TRIAGE_PY.replace(
        "    def __init__(self):\n        self.base",
        "    def __init__(self):\n        import requests  # noqa\n\n        self.base",
        1,
    )
    sub = _python_submission(tmp_path / "no-requests", live)
    report = replay.check(sub)
    record = report.line("record")
    assert record.outcome == "fail"
    assert record.evidence["failing"]["calls"] == 0 and record.evidence["checks"]["b_failing"] is False
    assert "(b) against a failing stub, record never called the stub" in record.message
    assert "ModuleNotFoundError: No module named 'requests'" in record.message
    assert _outcomes(report)["identical"] == "pass"
    _assert_readable(report)


def _graded_twice(name: str, source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    """`gradelib check replay PATH --json` on the same submission in two folders of the same name."""
    documents = []
    for parent in ("first", "second/deeper"):
        copy = tmp_path / parent / name
        shutil.copytree(source, copy, symlinks=True)
        assert cli.main(["check", "replay", str(copy), "--json"]) == 0
        documents.append(_without_durations(json.loads(capsys.readouterr().out)))
    return documents


def _without_durations(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_durations(v) for k, v in value.items() if k != "duration_s"}
    if isinstance(value, list):
        return [_without_durations(v) for v in value]
    return value


def test_grading_a_sample_twice_from_two_folders_gives_the_same_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _graded_twice("amara-okafor", AMARA, tmp_path, capsys)
    assert first == second
    assert first["total"] == 100.0


def test_grading_a_crashing_submission_twice_from_two_folders_gives_the_same_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crashing = TRIAGE_PY.replace(
        "from pathlib import Path\n", "from pathlib import Path\n\nfrom prompts import PROMPT\n"
    )
    source = _python_submission(tmp_path / "source" / "no-prompts", crashing)
    first, second = _graded_twice("no-prompts", source, tmp_path, capsys)
    assert first == second
    assert first["total"] == 0.0
    assert "<submission>/triage.py" in json.dumps(first), "tracebacks show the copy as <submission>"
