"""Unit tests for gradelib.takehomes.replay.fixtures: cassette shapes, standouts and late edits in git history."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gradelib.takehomes.replay.fixtures import GIT_LOG_ARGV, LateEdit, Shape, Standout, late_edits, shape_of, standouts

LABELS = ["billing", "bug", "account", "feature_request", "other"]


def openai_response(n: int, label: str) -> dict[str, Any]:
    """A recorded chat completion as the provider returns it."""
    return {
        "id": f"chatcmpl-9x{n:04d}",
        "object": "chat.completion",
        "created": 1_717_000_000 + n,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": json.dumps({"label": label, "confidence": 0.9})},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 120 + n, "completion_tokens": 14, "total_tokens": 134 + n},
        "system_fingerprint": "fp_0ba0d124f1",
    }


def hand_written(n: int, label: str) -> dict[str, Any]:
    """What a candidate types when faking a cassette: the answer, none of the provider's metadata."""
    doc = openai_response(n, label)
    for key in ("id", "created", "usage", "model"):
        del doc[key]
    return doc


def without_finish_reason(doc: dict[str, Any]) -> dict[str, Any]:
    del doc["choices"][0]["finish_reason"]
    return doc


def dump(doc: dict[str, Any], **options: Any) -> bytes:
    return (json.dumps(doc, indent=options.pop("indent", 2), **options) + "\n").encode()


def write_cassettes(root: Path, odd: Callable[[int, str], bytes] | None = None, count: int = 5) -> list[str]:
    """`count` provider-recorded cassettes, plus one more made by `odd` if given."""
    folder = root / "cassettes"
    folder.mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    for n in range(count):
        rel = f"cassettes/ticket-{n:02d}.json"
        (root / rel).write_bytes(dump(openai_response(n, LABELS[n % len(LABELS)])))
        names.append(rel)
    if odd is not None:
        rel = "cassettes/ticket-99.json"
        (root / rel).write_bytes(odd(99, "billing"))
        names.append(rel)
    return names


# --- shape_of ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            '{\n  "b": 1,\n  "a": {\n    "c": [1]\n  }\n}\n',
            Shape(frozenset({"a", "a.c", "b"}), "  ", False, True, True),
            id="indent-2-unsorted",
        ),
        pytest.param(
            '{\n    "a": 1,\n    "b": 2\n}',
            Shape(frozenset({"a", "b"}), "    ", True, False, True),
            id="indent-4-sorted-no-newline",
        ),
        pytest.param(
            '{\n\t"a": 1\n}\n',
            Shape(frozenset({"a"}), "\t", True, True, True),
            id="tabs",
        ),
        pytest.param(
            '{"a": [{"x": 1}, {"y": 2}], "b": null}',
            Shape(frozenset({"a", "a[].x", "a[].y", "b"}), "", True, False, True),
            id="one-line-list-of-objects",
        ),
        pytest.param(
            '{\n"a": 1\n}\n',
            Shape(frozenset({"a"}), "none", True, True, True),
            id="multi-line-unindented",
        ),
        pytest.param(
            '{"content": "{\\"label\\": \\"bug\\", \\"why\\": {\\"k\\": 1}}"}',
            Shape(
                frozenset({"content", "content<json>.label", "content<json>.why", "content<json>.why.k"}),
                "",
                True,
                False,
                True,
            ),
            id="json-inside-a-string",
        ),
        pytest.param(
            '{"content": "{not json"}',
            Shape(frozenset({"content"}), "", True, False, True),
            id="brace-string-not-json",
        ),
        pytest.param(
            "label: billing\n",
            Shape(frozenset(), "", False, True, False),
            id="not-json",
        ),
        pytest.param(
            "[]",
            Shape(frozenset(), "", True, False, True),
            id="empty-list",
        ),
    ],
)
def test_shape_of(text: str, expected: Shape) -> None:
    assert shape_of(text.encode()) == expected


def test_shape_of_ignores_values() -> None:
    one = dump(openai_response(1, "billing"))
    other = dump(openai_response(2, "bug"))

    assert one != other
    assert shape_of(one) == shape_of(other)


def test_shape_of_survives_invalid_utf8() -> None:
    assert shape_of(b'{"a": "\xff\xfe"}').is_json is True


# --- standouts --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("odd", "reason"),
    [
        pytest.param(
            lambda n, label: dump(hand_written(n, label)),
            "lacks provider metadata its siblings have: created, id, model, usage",
            id="no-provider-metadata",
        ),
        pytest.param(
            lambda n, label: dump(openai_response(n, label), indent=4),
            "different indentation from its siblings",
            id="indent-4",
        ),
        pytest.param(
            lambda n, label: dump(openai_response(n, label), sort_keys=True),
            "different key order from its siblings",
            id="sorted-keys",
        ),
        pytest.param(
            lambda n, label: dump(openai_response(n, label))[:-1],
            "different trailing newline from its siblings",
            id="no-trailing-newline",
        ),
        pytest.param(
            lambda n, label: dump({**openai_response(n, label), "x_recorded_by": "me"}),
            "has keys its siblings lack: x_recorded_by",
            id="extra-key",
        ),
        pytest.param(
            lambda n, label: dump(without_finish_reason(openai_response(n, label))),
            "lacks keys its siblings have: choices[].finish_reason",
            id="missing-non-provider-key",
        ),
        pytest.param(
            lambda n, label: b"label: billing\n",
            "is not JSON like its siblings",
            id="not-json",
        ),
    ],
)
def test_standouts_flags_the_odd_one_out(tmp_path: Path, odd: Callable[[int, str], bytes], reason: str) -> None:
    cassettes = write_cassettes(tmp_path, odd)

    found = standouts(tmp_path, cassettes)

    assert [s.path for s in found] == ["cassettes/ticket-99.json"]
    assert reason in found[0].reasons


def test_standouts_names_every_missing_provider_key_once(tmp_path: Path) -> None:
    cassettes = write_cassettes(tmp_path, lambda n, label: dump(hand_written(n, label)))

    (found,) = standouts(tmp_path, cassettes)

    assert found == Standout(
        "cassettes/ticket-99.json",
        ("lacks provider metadata its siblings have: created, id, model, usage",),
    )


def test_standouts_reports_a_linked_cassette_without_reading_it(tmp_path: Path) -> None:
    cassettes = write_cassettes(tmp_path)
    os.symlink("/etc/passwd", tmp_path / "cassettes" / "ticket-99.json")
    cassettes.append("cassettes/ticket-99.json")

    found = standouts(tmp_path, cassettes)

    assert len(found) == 1
    assert found[0].path == "cassettes/ticket-99.json"
    assert "link" in found[0].reasons[0]


def test_standouts_none_when_all_alike(tmp_path: Path) -> None:
    cassettes = write_cassettes(tmp_path, count=6)

    assert standouts(tmp_path, cassettes) == []


def test_standouts_none_with_fewer_than_three(tmp_path: Path) -> None:
    cassettes = write_cassettes(tmp_path, lambda n, label: dump(hand_written(n, label)), count=1)

    assert len(cassettes) == 2
    assert standouts(tmp_path, cassettes) == []


def test_standouts_none_when_there_is_no_majority_style(tmp_path: Path) -> None:
    # Six files, each formatted its own way: nothing to stand out from.
    (tmp_path / "cassettes").mkdir()
    cassettes = []
    for n in range(6):
        rel = f"cassettes/t{n}.json"
        doc = {f"key{n}": n}
        (tmp_path / rel).write_text(json.dumps(doc, indent=n or None))
        cassettes.append(rel)

    assert standouts(tmp_path, cassettes) == []


def test_standouts_skips_missing_files(tmp_path: Path) -> None:
    cassettes = write_cassettes(tmp_path, count=2)

    assert standouts(tmp_path, [*cassettes, "cassettes/gone-1.json", "cassettes/gone-2.json"]) == []


# --- late_edits -------------------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    identity = ("-c", "user.name=Candidate", "-c", "user.email=candidate@example.com", "-c", "init.defaultBranch=main")
    done = subprocess.run(["git", *identity, *args], cwd=repo, env=env, check=True, capture_output=True, timeout=30)
    return done.stdout.decode().strip()


def log_of(repo: Path) -> str:
    """What the sandbox's `git log` prints for this (trusted, test-made) repository."""
    done = subprocess.run(list(GIT_LOG_ARGV), cwd=repo, check=True, capture_output=True, timeout=30)
    return done.stdout.decode()


def recorded_repo(root: Path) -> tuple[list[str], str]:
    """Five cassettes recorded in one commit; returns their names and that commit."""
    cassettes = write_cassettes(root)
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "record cassettes")
    return cassettes, git(root, "rev-parse", "HEAD")


def test_late_edits_names_the_file_edited_after_recording(tmp_path: Path) -> None:
    cassettes, recorded = recorded_repo(tmp_path)
    edited = tmp_path / "cassettes" / "ticket-03.json"
    edited.write_bytes(edited.read_bytes().replace(b'\\"feature_request\\"', b'\\"billing\\"'))
    (tmp_path / "NOTE.md").write_text("unrelated\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "--quiet", "-m", "fix flaky cassette")
    fixed = git(tmp_path, "rev-parse", "HEAD")

    assert late_edits(log_of(tmp_path), cassettes) == [
        LateEdit("cassettes/ticket-03.json", fixed[:10], "fix flaky cassette", recorded[:10])
    ]


def test_late_edits_none_when_all_recorded_together(tmp_path: Path) -> None:
    cassettes, _ = recorded_repo(tmp_path)
    (tmp_path / "NOTE.md").write_text("later, but not a cassette\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "--quiet", "-m", "notes")

    assert late_edits(log_of(tmp_path), cassettes) == []


def test_late_edits_without_git_is_empty(tmp_path: Path) -> None:
    cassettes = write_cassettes(tmp_path)

    assert late_edits("", cassettes) == []


def test_late_edits_with_fewer_than_three_cassettes_is_empty(tmp_path: Path) -> None:
    cassettes, _ = recorded_repo(tmp_path)
    (tmp_path / cassettes[0]).write_text("{}\n")
    git(tmp_path, "commit", "--quiet", "-am", "edit")

    assert late_edits(log_of(tmp_path), cassettes[:2]) == []
