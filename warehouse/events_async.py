"""The event log's read side for the API's event loop: `EventLog.since` on the process's `redis.asyncio` client,
with the SQL reads run in a thread (`asyncio.to_thread`) so a slow ledger never stalls the loop.

Same rule as warehouse/events.py: the stream answers when it still holds the event after `last_id`, SQL
otherwise. `after_in_sql` reads SQL alone: the ledger is written first and is the authority, so a reader that
saw a later event knows every earlier one is there, even when the stream is behind (Redis down at an append,
or restored from an older snapshot and not yet topped up)."""
from __future__ import annotations

import asyncio
from datetime import datetime

import orjson
import redis.asyncio as aioredis
from redis.exceptions import ResponseError
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from warehouse import keys
from warehouse.events import event_id, seq_of
from warehouse.ledger.db import reading
from warehouse.ledger.tables import events as events_table


class AsyncEventLog:
    def __init__(self, engine: Engine, redis_client: aioredis.Redis, stream: str = keys.EVENTS_STREAM):
        self.engine = engine
        self.r = redis_client
        self.stream = stream

    async def since(self, last_id: str | None, limit: int = 1000) -> list[dict]:
        """Events after `last_id` (all from the oldest kept when None), oldest first, at most `limit`."""
        after = seq_of(last_id) if last_id else 0
        oldest = await self.r.xrange(self.stream, count=1)
        if oldest and seq_of(oldest[0][0].decode()) <= after + 1:
            entries = await self.r.xrange(self.stream, min=f"({event_id(after)}", count=limit)
            return [decoded(i, f) for i, f in entries]
        return await self.after_in_sql(after, limit=limit)

    async def after_in_sql(self, after: int, before: int | None = None, limit: int = 1000) -> list[dict]:
        """Events with `after < seq < before` from SQL, oldest first, at most `limit`."""
        return await asyncio.to_thread(self._after_in_sql, after, before, limit)

    async def newest_seq(self) -> int:
        """Where a live reader starts: the stream's last id, or the ledger's last seq when there is no stream."""
        try:
            info = await self.r.xinfo_stream(self.stream)
            return seq_of(info["last-generated-id"].decode())
        except ResponseError:  # no stream (a fresh or restarted Redis): the ledger knows how far the log goes
            return await self.newest_seq_in_sql()

    async def newest_seq_in_sql(self) -> int:
        return await asyncio.to_thread(self._max_seq)

    async def counts_by_type(self, start: datetime) -> dict[str, int]:
        """How many events of each type occurred (market clock) at or after `start`."""
        return await asyncio.to_thread(self._counts_by_type, start)

    def _after_in_sql(self, after: int, before: int | None, limit: int) -> list[dict]:
        query = select(events_table.c.seq, events_table.c.body).where(events_table.c.seq > after)
        if before is not None:
            query = query.where(events_table.c.seq < before)
        with reading(self.engine) as conn:
            rows = conn.execute(query.order_by(events_table.c.seq).limit(limit)).all()
        return [{"id": event_id(seq), **orjson.loads(body)} for seq, body in rows]

    def _max_seq(self) -> int:
        with reading(self.engine) as conn:
            return conn.scalar(select(func.coalesce(func.max(events_table.c.seq), 0)))

    def _counts_by_type(self, start: datetime) -> dict[str, int]:
        with reading(self.engine) as conn:
            rows = conn.execute(select(events_table.c.type, func.count()).where(events_table.c.occurred_at >= start)
                                .group_by(events_table.c.type).order_by(events_table.c.type)).all()
        return {type_: count for type_, count in rows}


def decoded(entry_id: bytes, fields: dict) -> dict:
    """A stream entry as the event it holds, with its id."""
    return {"id": entry_id.decode(), **orjson.loads(fields[b"e"])}
