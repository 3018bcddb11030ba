from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Paths:
    tickets: Path = PROJECT / "tickets.json"
    cassettes: Path = PROJECT / "cassettes"
    out: Path = PROJECT / "out"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    api_key: str
    model: str

    @classmethod
    def from_env(cls) -> Endpoint:
        from dotenv import load_dotenv

        load_dotenv(PROJECT / ".env")
        return cls(
            base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/"),
            api_key=os.environ.get("OPENAI_API_KEY", ""),
            model=os.environ.get("MODEL", "gpt-4o-mini"),
        )
