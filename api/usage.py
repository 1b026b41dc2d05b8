"""Queues each served query for the usage statistics (see jobs.usage)."""
from __future__ import annotations

import asyncio
import logging
import time

from rq import Queue

from api.metering import Charge, caller_id
from jobs.usage import DRAIN_GATE, USAGE_STREAM, drain_usage

log = logging.getLogger(__name__)
GATE_TTL_S = 30  # a lost job (worker killed) delays the drain at most this long


class UsageRecorder:
    def __init__(self, queue: Queue):
        self.queue = queue

    def add_event(self, pipe, req, module: str, charge: Charge) -> None:
        """Queue the event and a try at the drain gate on `pipe` (its results: xadd id, gate taken)."""
        agent = req.context.agent
        pipe.xadd(USAGE_STREAM, {
            "request_id": req.context.request_id, "module": module, "charged_sats": charge.charged_sats,
            "free": int(charge.free), "agent_pk": agent["id"] if agent else "", "client": caller_id(req),
            "ts": time.time()})
        pipe.set(DRAIN_GATE, 1, nx=True, ex=GATE_TTL_S)

    async def gate_taken(self, taken: bool) -> None:
        if not taken:
            return
        try:
            await asyncio.to_thread(self.queue.enqueue, drain_usage, result_ttl=0, failure_ttl=86400)
        except Exception:  # noqa: BLE001  (statistics must never fail a query that was paid for)
            log.exception("could not enqueue the usage drain")
