"""Hands each served query to the worker, which writes the usage statistics."""
from __future__ import annotations

import asyncio
import logging

from rq import Queue

from api.metering import Charge, caller_id
from jobs.usage import record_usage

log = logging.getLogger(__name__)


class UsageRecorder:
    def __init__(self, queue: Queue):
        self.queue = queue

    async def record(self, req, module: str, charge: Charge) -> None:
        agent = req.context.agent
        request_id = req.context.request_id
        try:
            await asyncio.to_thread(
                self.queue.enqueue, record_usage, request_id, module, charge.charged_sats, charge.free,
                agent["id"] if agent else None, caller_id(req),
                job_id=f"usage-{request_id}", result_ttl=0, failure_ttl=86400)
        except Exception:  # noqa: BLE001  (statistics must never fail a query that was paid for)
            log.exception("could not enqueue usage for request %s", request_id)
