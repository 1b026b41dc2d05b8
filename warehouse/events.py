"""The event log: every event in SQL (the `events` table, durable, ordered by `seq`) and in one Redis stream (the
recent ones, what SSE readers tail). An event's id is `<seq>-0`: its Redis stream id and its SSE `id`.

`append` commits the events to SQL first, then adds them to the stream with those ids; a stream that missed some
(Redis down at that moment, restarted empty, trimmed) is topped up from SQL before the next append, and a reader
asking for events older than the stream holds gets them from SQL (`since`), so `Last-Event-ID` resumes exactly.
Two writers (the scanner, and the worker's low-balance warnings) take turns: a writer holds the log's lock from its
first insert to its commit (SQLite's BEGIN IMMEDIATE; a PostgreSQL advisory lock), so a seq is given only once the
ones below it are committed and the stream never gets a later event before an earlier one."""
from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime

import orjson
import redis
from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import Connection, Engine

from warehouse import keys
from warehouse.ledger.db import reading
from warehouse.ledger.tables import events as events_table

STREAM_MAXLEN = 10_000  # recent events kept in Redis (approximately); older ones are read from SQL
_WRITERS_LOCK_ID = int.from_bytes(hashlib.sha256(b"marketintel-event-log").digest()[:7], "big")  # any fixed number


def event_id(seq: int) -> str:
    return f"{seq}-0"


def seq_of(event_id_: str) -> int:
    """The sequence number of an event id (`<seq>-0`); ValueError for anything else."""
    head, sep, tail = event_id_.partition("-")
    if not head.isdigit() or (sep and tail != "0"):
        raise ValueError(f"not an event id: {event_id_!r}")
    return int(head)


class EventLog:
    def __init__(self, engine: Engine, redis_client: redis.Redis, stream: str = keys.EVENTS_STREAM):
        self.engine = engine
        self.r = redis_client
        self.stream = stream

    def append(self, events: Iterable[dict]) -> list[dict]:
        """Commit `events` (dicts without `id`) to SQL, then to the stream; returns them with their ids."""
        with self.engine.begin() as conn:
            out = self.insert(conn, events)
        if out:
            self.top_up()
        return out

    @staticmethod
    def insert(conn: Connection, events: Iterable[dict]) -> list[dict]:
        """Add `events` to SQL in the caller's transaction (with what else must commit with them, as the scanner's
        state); returns them with their ids. They reach the stream at the next `top_up`, after the commit."""
        batch = [{k: v for k, v in e.items() if k != "id"} for e in events]
        if not batch:
            return []
        if conn.dialect.name == "postgresql":  # until this transaction ends: no other writer reads the same max
            conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _WRITERS_LOCK_ID})
        first = conn.scalar(select(func.coalesce(func.max(events_table.c.seq), 0))) + 1
        rows = [{"seq": first + i, "type": e["type"], "audience": e.get("audience"),
                 "occurred_at": datetime.fromisoformat(e["occurred_at"]).astimezone(UTC),
                 "body": orjson.dumps(e).decode()} for i, e in enumerate(batch)]
        conn.execute(insert(events_table), rows)
        return [{"id": event_id(row["seq"]), **e} for row, e in zip(rows, batch)]

    def newest_seq(self) -> int:
        with reading(self.engine) as conn:
            return int(conn.scalar(select(func.coalesce(func.max(events_table.c.seq), 0))))

    def top_up(self) -> int:
        """Add to the stream every SQL event after its last id (all of them after a lost stream); how many."""
        last = self._stream_last_seq()
        with reading(self.engine) as conn:
            rows = conn.execute(select(events_table.c.seq, events_table.c.body).where(events_table.c.seq > last)
                                .order_by(events_table.c.seq)).all()
        if rows:
            pipe = self.r.pipeline(transaction=False)
            for seq, body in rows:
                pipe.xadd(self.stream, {"e": body}, id=event_id(seq), maxlen=STREAM_MAXLEN, approximate=True)
            for result in pipe.execute(raise_on_error=False):
                # another writer's top-up added it first: same id, same event
                if isinstance(result, redis.ResponseError) and "equal or smaller" not in str(result):
                    raise result
        return len(rows)

    def since(self, last_id: str | None, limit: int = 1000) -> list[dict]:
        """Events after `last_id` (all from the oldest kept when None), oldest first, at most `limit`: from the
        stream when it still holds the next one, else from SQL."""
        after = seq_of(last_id) if last_id else 0
        oldest = self.r.xrange(self.stream, count=1)
        if oldest and seq_of(oldest[0][0].decode()) <= after + 1:
            entries = self.r.xrange(self.stream, min=f"({event_id(after)}", count=limit)
            return [{"id": i.decode(), **orjson.loads(f[b"e"])} for i, f in entries]
        with reading(self.engine) as conn:
            rows = conn.execute(select(events_table.c.seq, events_table.c.body).where(events_table.c.seq > after)
                                .order_by(events_table.c.seq).limit(limit)).all()
        return [{"id": event_id(seq), **orjson.loads(body)} for seq, body in rows]

    def _stream_last_seq(self) -> int:
        try:
            info = self.r.xinfo_stream(self.stream)
        except redis.ResponseError:  # no stream yet (a fresh or restarted Redis)
            return 0
        return seq_of(info["last-generated-id"].decode())
