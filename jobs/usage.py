"""Usage statistics, written off the request path.

The API appends one event per served query to a Redis stream and, when it takes the drain gate, enqueues
`drain_usage`. The job drops the gate before reading, so an event added after its read takes the gate
again and gets a job of its own: no event waits for a later request to be written."""
from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

import redis

from marketintel.settings import get_settings
from warehouse import keys
from warehouse.ledger import Usage, make_engine

BATCH = 2000


@lru_cache(maxsize=1)
def _collaborators() -> tuple[redis.Redis, Usage]:
    settings = get_settings()
    return redis.Redis.from_url(settings.effective_redis_url), Usage(make_engine(settings.sqlalchemy_url))


def drain_usage() -> int:
    """Move every queued usage event from the stream into SQL; returns how many were written."""
    return drain(*_collaborators())


def drain(client: redis.Redis, usage: Usage) -> int:
    """`drain_usage` on given clients: also run by a reader of usage (agent consensus) before it reads SQL, so
    what it counts includes every query served so far. Two drains at once write each event once: a repeated
    request_id is ignored, and deleting a stream entry twice is harmless."""
    client.delete(keys.USAGE_DRAIN_GATE)
    written = 0
    while True:
        entries = client.xrange(keys.USAGE_STREAM, count=BATCH)
        if not entries:
            return written
        usage.record_many([_event(fields) for _, fields in entries])
        client.xdel(keys.USAGE_STREAM, *[entry_id for entry_id, _ in entries])
        written += len(entries)


def _event(fields: dict) -> dict:
    f = {k.decode(): v.decode() for k, v in fields.items()}
    return {"request_id": f["request_id"], "module": f["module"], "charged_sats": int(f["charged_sats"]),
            "free": f["free"] == "1", "agent_id": int(f["agent_pk"]) if f["agent_pk"] else None,
            "client": f["client"], "created_at": datetime.fromtimestamp(float(f["ts"]), tz=UTC),
            "format": f.get("format") or None}  # events queued before formats were recorded have none
