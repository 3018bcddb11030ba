"""tapedeck: a very small cassette store.

Each recorded exchange is one JSON file, ``<dir>/<key>.json``, where the key is the
first 16 hex digits of sha256 over the canonical JSON of whatever the caller says
identifies the request. Nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Cassette", "MissingCassette", "Tapedeck", "fingerprint"]


class MissingCassette(LookupError):
    """Replay asked for an exchange that was never recorded."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"missing cassette {path} ({what})")
        self.path = path
        self.what = what


def fingerprint(identity: Any) -> str:
    canonical = json.dumps(identity, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Cassette:
    key: str
    label: str
    request: dict[str, Any]
    response: dict[str, Any]

    def to_json(self) -> str:
        doc = {"key": self.key, "label": self.label, "request": self.request, "response": self.response}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


class Tapedeck:
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def path_for(self, identity: Any) -> Path:
        return self.directory / f"{fingerprint(identity)}.json"

    def play(self, identity: Any, what: str = "") -> Cassette:
        path = self.path_for(identity)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MissingCassette(path, what or "no recording for this request") from None
        return Cassette(doc["key"], doc["label"], doc["request"], doc["response"])

    def record(self, identity: Any, label: str, request: dict[str, Any], response: dict[str, Any]) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path_for(identity)
        cassette = Cassette(path.stem, label, request, response)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(cassette.to_json(), encoding="utf-8")
        os.replace(tmp, path)
        return path
