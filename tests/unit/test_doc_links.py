"""Every relative link in the kit's own documents resolves: the file, and the heading an anchor names."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gradelib.takehomes.handout import for_candidates

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _documents() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    # the sample submissions are candidates' files, not the kit's documents
    names = listed.stdout.split()
    return [ROOT / name for name in names if "submissions/" not in name and not name.startswith("tests/")]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_slug_follows_github() -> None:
    assert slug('Take-home `replay` — "The Take-Home That Must Run Twice"') == (
        "take-home-replay--the-take-home-that-must-run-twice"
    )


@pytest.mark.parametrize("document", _documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(document: Path) -> None:
    text = FENCE.sub("", document.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            anchors = {slug(h) for h in HEADING.findall(FENCE.sub("", linked.read_text(encoding="utf-8")))}
            if anchor not in anchors:
                broken.append(target)
    assert not broken, f"{document.relative_to(ROOT)}: {broken}"


def test_the_contract_is_linked_from_the_readme_and_each_handout_but_not_sent_to_candidates() -> None:
    handouts = [*ROOT.glob("gradelib/takehomes/*/HANDOUT.md"), *ROOT.glob("examples/*/*/HANDOUT.md")]
    assert len(handouts) == 3
    assert "](TAKEHOMES.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    for handout in handouts:
        text = handout.read_text(encoding="utf-8")
        assert "TAKEHOMES.md" in text, handout
        sent = for_candidates(text)
        assert "TAKEHOMES" not in sent and "For the hiring team" not in sent and sent.startswith("# Take-home"), handout
