"""Queues each served query for the usage statistics (see jobs.usage)."""
from __future__ import annotations

import asyncio
import logging
import time

from rq import Queue

from api.one_trip import FreeRecord
from charging.attempt import Attempt, Charge
from jobs.usage import drain_usage
from warehouse import keys

log = logging.getLogger(__name__)
GATE_TTL_S = 30  # a lost job (worker killed) delays the drain at most this long


class UsageRecorder:
    def __init__(self, queue: Queue):
        self.queue = queue

    @staticmethod
    def event(attempt: Attempt, charged_sats: int, fmt: str | None = None) -> dict:
        """`fmt`: the format a module query asked for (query patterns by format); "" where there is none.
        `ts` is wall time, as the ledger's: usage counts real queries (agent consensus windows on it)."""
        agent_pk = attempt.payer.agent_pk
        return {"request_id": attempt.request_id, "module": attempt.item.ledger_name, "charged_sats": charged_sats,
                "free": int(charged_sats == 0), "agent_pk": agent_pk if agent_pk is not None else "",
                "client": attempt.payer.caller_id, "ts": time.time(), "format": fmt or ""}

    def free_record(self, attempt: Attempt, fmt: str | None = None) -> FreeRecord:
        """The same event and gate, written by the query's one round trip when the query is free."""
        return FreeRecord(attempt.item.free_per_day, keys.USAGE_STREAM, self.event(attempt, 0, fmt),
                          (keys.USAGE_DRAIN_GATE, GATE_TTL_S))

    def add_event(self, pipe, attempt: Attempt, charge: Charge, fmt: str | None = None) -> None:
        """Queue the event and a try at the drain gate on `pipe` (its results: xadd id, gate taken)."""
        pipe.xadd(keys.USAGE_STREAM, self.event(attempt, charge.charged_sats, fmt))
        pipe.set(keys.USAGE_DRAIN_GATE, 1, nx=True, ex=GATE_TTL_S)

    async def gate_taken(self, taken: bool) -> None:
        if not taken:
            return
        try:
            await asyncio.to_thread(self.queue.enqueue, drain_usage, result_ttl=0, failure_ttl=86400)
        except Exception:  # noqa: BLE001  (statistics must never fail a query that was paid for)
            log.exception("could not enqueue the usage drain")
