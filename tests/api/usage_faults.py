"""A real fault after the charge: the usage stream's key made a string, so XADD fails in Redis with WRONGTYPE
(in a free query's one round trip, and in a paid query's pipeline after its debit); and what the ledger
holds afterwards."""
from __future__ import annotations

from contextlib import contextmanager

import redis
from sqlalchemy import select

from warehouse import keys
from warehouse.ledger.tables import ledger_entries

ASIDE = f"{keys.USAGE_STREAM}:aside"


@contextmanager
def usage_stream_broken(r: redis.Redis):
    """While inside, the usage stream's key holds a string; the events queued before are kept aside and put
    back on the way out."""
    had_events = r.exists(keys.USAGE_STREAM)
    if had_events:
        r.rename(keys.USAGE_STREAM, ASIDE)
    r.set(keys.USAGE_STREAM, "not a stream")
    try:
        yield
    finally:
        r.delete(keys.USAGE_STREAM)
        if had_events:
            r.rename(ASIDE, keys.USAGE_STREAM)


def ledger_moves(engine, kinds=("query", "refund")) -> list[tuple]:
    """The ledger's entries of these kinds, in the order written: (kind, sats, reference)."""
    e = ledger_entries.c
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(select(e.kind, e.amount_sats, e.reference)
                                               .where(e.kind.in_(kinds)).order_by(e.id))]
