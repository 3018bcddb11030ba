"""Record mode: concurrent calls with aiohttp, a shared 40-call budget, 2 attempts per ticket."""

import asyncio
import logging
import os
import time

import aiohttp

from . import cassettes
from .prompting import chat_messages, interpret

BUDGET = 40
ATTEMPTS = 2
CONCURRENCY = 4

log = logging.getLogger("ticketflow.live")


class RecordError(Exception):
    pass


class Recorder:
    def __init__(self):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.headers = {"Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"}
        self.calls = 0
        self.failed = asyncio.Event()
        self.errors = []

    def _take_call(self, ticket_id):
        if self.failed.is_set():
            raise RecordError(f"{ticket_id}: skipped, another ticket already failed")
        if self.calls >= BUDGET:
            raise RecordError(f"{ticket_id}: the budget of {BUDGET} model calls is spent")
        self.calls += 1

    async def one(self, session, sem, ticket):
        request = {"model": self.model, "messages": chat_messages(ticket), "temperature": 0,
                   "response_format": {"type": "json_object"}}
        async with sem:
            why = ""
            for attempt in range(ATTEMPTS):
                if attempt:
                    await asyncio.sleep(0.3)
                self._take_call(ticket["id"])
                t0 = time.perf_counter()
                try:
                    async with session.post(self.url, json=request) as resp:
                        status = resp.status
                        payload = await resp.json(content_type=None) if status == 200 else None
                except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
                    why = f"{type(exc).__name__}: {exc}"
                    log.warning("%s: %s", ticket["id"], why)
                    continue
                log.info("%s: HTTP %s %.3fs", ticket["id"], status, time.perf_counter() - t0)
                if status != 200:
                    why = f"HTTP {status}"
                    continue
                log.info("%s: model=%s usage=%s", ticket["id"], payload.get("model"), payload.get("usage"))
                try:
                    content = payload["choices"][0]["message"]["content"]
                except (KeyError, IndexError, TypeError):
                    content = None
                if interpret(content) is None:
                    why = "unusable reply"
                    continue
                cassettes.write(ticket["id"], request, status, payload)
                return
            self.failed.set()
            raise RecordError(f"{ticket['id']}: failed {ATTEMPTS} times ({why})")

    async def run(self, tickets):
        sem = asyncio.Semaphore(CONCURRENCY)
        timeout = aiohttp.ClientTimeout(total=30, connect=5)
        async with aiohttp.ClientSession(headers=self.headers, timeout=timeout) as session:
            results = await asyncio.gather(*(self.one(session, sem, t) for t in tickets), return_exceptions=True)
        log.info("record: %d calls", self.calls)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            first = next((e for e in errors if "skipped" not in str(e)), errors[0])
            raise RecordError(f"{first} (and {len(errors) - 1} more); {self.calls} calls made")


def record(tickets):
    asyncio.run(Recorder().run(tickets))
