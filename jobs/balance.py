"""Low-balance warnings (warehouse/ledger/low_balance.py) sent: the event and the state that says it went out in one
transaction, then the Redis stream (SSE readers) and the webhook deliveries.

- `warn(agent_pk, request_id)`: the RQ job the API queues after a debit that took the balance below the level.
- `sweep()`: the sweeper (jobs/webhooks.py's loop) runs it every few seconds for the agents whose state disagrees
  with their balance, so a job lost before it ran still warns, and a credit re-arms the warning."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import redis
from sqlalchemy.engine import Engine

from jobs import webhooks  # (the module: its sweeper loop imports this one)
from marketintel.settings import get_settings
from warehouse.events import EventLog
from warehouse.ledger.db import make_engine
from warehouse.ledger.low_balance import LowBalance

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Warnings:
    engine: Engine
    log: EventLog
    low_balance: LowBalance
    deliver: Callable[[list[dict]], int]  # queues an event's webhook deliveries (jobs/webhooks.py)

    def warn(self, agent_pk: int, request_id: str | None = None) -> dict | None:
        """The warning due to the agent now, sent (its event with its id); None when none is due."""
        with self.engine.begin() as conn:
            event = self.low_balance.warning(conn, agent_pk, request_id)
            appended = self.log.insert(conn, [event]) if event else []
        if not appended:
            return None
        self.log.top_up()
        self.deliver(appended)  # the scanner's next run would queue them too: the outbox takes each once
        return appended[0]

    def sweep(self) -> int:
        """Every agent whose warning state disagrees with its balance settled; how many warnings went out."""
        return sum(self.warn(agent_pk) is not None for agent_pk in self.low_balance.due())


@lru_cache(maxsize=4)  # one per ledger and Redis, as jobs/webhooks.py's sender
def _warnings_for(database_url: str, redis_url: str) -> Warnings:
    engine = make_engine(database_url)
    return Warnings(engine, EventLog(engine, redis.Redis.from_url(redis_url)), LowBalance(engine),
                    webhooks.enqueue_deliveries)


def _warnings() -> Warnings:
    settings = get_settings()
    return _warnings_for(settings.sqlalchemy_url, settings.effective_redis_url)


def warn(agent_pk: int, request_id: str | None = None) -> str | None:
    """The RQ job: the id of the warning sent, or None."""
    event = _warnings().warn(agent_pk, request_id)
    if event is not None:
        log.info("low-balance warning %s sent to agent %s", event["id"], event["audience"])
    return event and event["id"]


def sweep() -> int:
    return _warnings().sweep()
