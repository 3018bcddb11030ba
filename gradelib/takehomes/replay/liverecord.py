"""Re-record one fixture against a real model endpoint the reviewer gives (the article's spot check).

The candidate's own `record` runs against the kit's stub as usual; the stub relays
the calls about one chosen ticket to the reviewer's endpoint from the grader's
side, with the reviewer's key. The key never enters the sandbox.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gradelib.takehome import ENV_LIVE_BASE_URL, Settings, current_settings
from gradelib.takehomes.replay.modelstub import label_in_reply

ENV_BASE_URL = ENV_LIVE_BASE_URL
TIMEOUT = 60.0
MAX_REPLY_BYTES = 1024 * 1024


@dataclass(frozen=True)
class LiveEndpoint:
    """An OpenAI-compatible endpoint the reviewer trusts, with their key."""

    base_url: str
    api_key: str = field(repr=False)
    model: str | None = None


def endpoint_from_env(settings: Settings | None = None) -> LiveEndpoint | None:
    """The reviewer's endpoint from GRADELIB_LIVE_BASE_URL / _API_KEY / _MODEL, if set."""
    kit = settings or current_settings()
    if not kit.live_base_url:
        return None
    return LiveEndpoint(kit.live_base_url.rstrip("/"), kit.live_api_key, kit.live_model or None)


class LiveRelay:
    """A `ModelStub` relay: the calls about one ticket go to the live endpoint."""

    def __init__(self, endpoint: LiveEndpoint, ticket_id: str) -> None:
        self.endpoint = endpoint
        self.ticket_id = ticket_id
        self._lock = threading.Lock()
        self.replies: list[dict[str, Any]] = []

    def __call__(self, ticket_id: str, request: Any) -> tuple[int, Mapping[str, Any]] | None:
        if ticket_id != self.ticket_id or not isinstance(request, dict):
            return None
        body = dict(request)
        if self.endpoint.model:
            body["model"] = self.endpoint.model
        status, payload = self._post(body)
        with self._lock:
            self.replies.append({"status": status, "label": label_in_reply(payload)})
        return status, payload

    def _post(self, body: Mapping[str, Any]) -> tuple[int, Mapping[str, Any]]:
        if not self.endpoint.base_url.startswith(("http://", "https://")):
            return 400, {"error": {"message": f"the live endpoint is not an http(s) URL: {self.endpoint.base_url!r}"}}
        request = urllib.request.Request(  # noqa: S310 - http(s) only, checked above
            f"{self.endpoint.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.endpoint.api_key}"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - http(s) only
                return response.status, json.loads(response.read(MAX_REPLY_BYTES))
        except urllib.error.HTTPError as exc:
            return exc.code, {"error": {"message": f"live endpoint answered {exc.code}"}}
        except (OSError, ValueError) as exc:
            return 502, {"error": {"message": f"live endpoint unreachable: {exc}"}}

    @property
    def label(self) -> str | None:
        """The label the live model gave (its last answer for the ticket)."""
        with self._lock:
            labels = [r["label"] for r in self.replies if r["status"] == 200 and r["label"]]
        return labels[-1] if labels else None
