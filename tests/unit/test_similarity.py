"""Fingerprints of a submission's own code: tokenised, normalised and winnowed, the handout's left out."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from conftest import write_tree

from gradelib.similarity import sources
from gradelib.similarity.fingerprint import base_of, fingerprint, marks_of
from gradelib.similarity.pairs import common, match, neighbours
from gradelib.similarity.tokens import language, tokenize
from gradelib.similarity.winnow import WINDOW, K, Mark, fingerprints, kgrams

CLIENT = '''
import json
import time


def charge(order_id, amount, session):
    """Charge once per order."""
    key = f"order-{order_id}"  # one key per order
    for attempt in range(5):
        reply = session.post("/charges", json={"amount": amount, "order": order_id}, headers={"Idempotency-Key": key})
        if reply.status_code == 200:
            return reply.json()["id"]
        if reply.status_code in (409, 503):
            time.sleep(0.1 * 2**attempt)
            continue
        raise RuntimeError(reply.text)
    raise TimeoutError(order_id)


def load_orders(path):
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]
'''

RENAMED_REFORMATTED = """
import json
import time

# Payment helper, rewritten
def pay(oid, total, http):
    k = f"o-{oid}"
    for n in range(10):
        r = http.post(
            "/charges",
            json={"amount": total, "order": oid},
            headers={"Idempotency-Key": k},
        )
        if r.status_code == 200:
            return r.json()["id"]   # done
        if r.status_code in (409, 503):
            time.sleep(0.5 * 3**n)
            continue
        raise RuntimeError(r.text)
    raise TimeoutError(oid)
def read_all(p):
    with open(p) as f:
        return [json.loads(row) for row in f if row.strip()]
"""

OTHER = """
from dataclasses import dataclass


@dataclass
class Ledger:
    entries: list

    def total(self):
        return sum(entry.amount for entry in self.entries if not entry.refunded)

    def refund(self, entry_id):
        for entry in self.entries:
            if entry.id == entry_id:
                entry.refunded = True
                return entry
        raise KeyError(entry_id)
"""


def hashes(path: str, text: str) -> set[int]:
    return {mark.hash for mark in marks_of(path, text)}


def test_a_rename_and_a_reformat_keep_the_fingerprints() -> None:
    original, copy = hashes("client.py", CLIENT), hashes("pay.py", RENAMED_REFORMATTED)
    assert original and original == copy  # names, numbers, comments, docstrings and layout aside: the same code
    assert not original & hashes("ledger.py", OTHER)


def test_javascript_declarations_quotes_and_names_do_not_hide_a_copy() -> None:
    first = "const key = `order-${order.id}`;\nlet tries = 0;\nwhile (tries < 5) { tries += 1; await post('/c', key); }"
    second = 'var k = `o-${x.id}`;\nconst n = 1;\nwhile (n < 9) {\n  n += 2;\n  await send("/charges", k,);\n}\n'
    assert [t.text for t in tokenize(first, "javascript")] == [t.text for t in tokenize(second, "javascript")]
    assert language("checkout.mjs") == "javascript" and language("run.sh") == "bash"
    assert language("tool", "#!/usr/bin/env python3\nprint(1)\n") == "python"
    assert language("NOTES.md") == "text"
    assert [t.text for t in tokenize("Idempotency keys, ONE per order.\n", "text")] == [
        "idempotency", "keys", "one", "per", "order",
    ]  # fmt: skip


def test_winnowing_keeps_one_fingerprint_of_every_match_at_least_its_guarantee_long() -> None:
    rng = random.Random(7)
    words = [rng.choice("abcdefghij") for _ in range(2_000)]
    tokens = [type("T", (), {"text": word, "line": index})() for index, word in enumerate(words)]
    chosen = {(mark.first, mark.hash) for mark in fingerprints(tokens)}  # type: ignore[arg-type]
    grams = kgrams(tokens)  # type: ignore[arg-type]
    for start in range(0, len(grams) - WINDOW):
        window = grams[start : start + WINDOW]
        assert any((gram.first, gram.hash) in chosen for gram in window)
    assert len(chosen) < len(grams) / 2  # and it keeps far fewer than every k-gram
    assert K + WINDOW - 1 == 19


def test_the_base_files_fingerprints_never_count(tmp_path: Path) -> None:
    draft = write_tree(tmp_path / "handout", {"client.py": CLIENT}).joinpath("client.py").read_text()
    base = base_of([("client.py", draft.encode())])
    # both candidates start from the draft and add different code: nothing of theirs is shared
    one = tmp_path / "one"
    two = tmp_path / "two"
    for folder, extra in ((one, OTHER), (two, "\n\ndef audit(rows):\n    return [r for r in rows if r.ok]\n")):
        folder.mkdir()
        (folder / "client.py").write_text(draft + extra)
    prints = {name: fingerprint(path, base) for name, path in (("one", one), ("two", two))}
    assert not prints["one"].hashes & base.hashes and not prints["two"].hashes & base.hashes
    assert prints["one"].hashes  # its own code still counts
    assert not neighbours({k: v.hashes for k, v in prints.items()}, frozenset())
    untouched = tmp_path / "three"
    untouched.mkdir()
    (untouched / "client.py").write_text(draft)
    (untouched / "extra.py").write_text(OTHER)
    skipped = fingerprint(untouched, base).skipped
    assert [(item.path, item.reason) for item in skipped] == [("client.py", sources.HANDOUT)]


def test_a_copy_is_matched_with_its_fragments_and_independent_code_is_not(tmp_path: Path) -> None:
    a = fingerprint(write_tree(tmp_path / "a", {"client.py": CLIENT}))
    b = fingerprint(write_tree(tmp_path / "b", {"lib/pay.py": RENAMED_REFORMATTED, "ledger.py": OTHER}))
    found = match(a.files, b.files)
    assert found.a_share == 1.0 and 0.4 < found.b_share < 0.9  # b is the copy, padded with other code
    assert found.share == 1.0 and found.longest >= 10
    longest = found.fragments[0]
    assert longest.a.path == "client.py" and longest.b.path == "lib/pay.py"
    c = fingerprint(write_tree(tmp_path / "c", {"ledger.py": OTHER.replace("entries", "rows")}))
    assert match(a.files, c.files).share == 0.0


def test_idioms_in_many_submissions_and_pairs_sharing_little_are_not_candidates() -> None:
    idiom = frozenset({1, 2, 3, 4, 5})
    hashes = {f"s{n}": idiom | {100 + n} for n in range(12)}
    assert common(hashes) == idiom  # in 12 of 12 submissions: the task's own idiom
    assert neighbours(hashes, common(hashes)) == {}
    hashes["copy"] = hashes["s0"] | {7, 8, 9, 10}
    hashes["s1"] = hashes["s1"] | {7, 8, 9, 10}
    assert neighbours(hashes, common(hashes), ["copy"]) == {("copy", "s1"): 4}


def test_lockfiles_installed_folders_recorded_data_generated_and_linked_files_are_left_out(tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text(CLIENT)
    folder = write_tree(
        tmp_path / "sub",
        {
            "app.py": CLIENT,
            "package-lock.json": "{}",
            "node_modules/left-pad/index.js": "module.exports = 1;\n",
            "cassettes/ticket-1.yaml": "x: 1\n",
            "fixtures/t.py": CLIENT,
            "out/answers.json": "[]",
            "dist.min.js": "var a=1;" * 200,
            "schema_pb2.py": "# Generated by the protocol buffer compiler.  DO NOT EDIT!\nx = 1\n",
            "NOTES.md": "I kept one key per order.\n",
        },
    )
    (folder / "link.py").symlink_to(outside)
    (folder / "blob.bin").write_bytes(b"\0\1\2" * 10)
    os.mkfifo(folder / "pipe.py")
    prints = fingerprint(folder)
    assert sorted(file.path for file in prints.files) == ["NOTES.md", "app.py"]
    reasons = {item.path: item.reason for item in prints.skipped}
    assert reasons == {
        "package-lock.json": sources.LOCKFILE,
        "node_modules/": sources.INSTALLED,
        "cassettes/ticket-1.yaml": sources.RECORDED,
        "fixtures/t.py": sources.RECORDED,
        "out/answers.json": sources.RECORDED,
        "dist.min.js": sources.MINIFIED,
        "schema_pb2.py": sources.MARKED_GENERATED,
        "link.py": sources.LINK,
        "blob.bin": sources.BINARY,
        "pipe.py": sources.NOT_A_FILE,
    }


@pytest.mark.parametrize("size", [0, 5, 30])
def test_short_files_give_few_or_no_fingerprints(size: int) -> None:
    text = "x = 1\n" * size
    marks = marks_of("a.py", text)
    assert all(isinstance(mark, Mark) for mark in marks)
    assert (len(marks) > 0) == (size * 3 >= 1)
