"""A real fault for the usage recorder: the usage stream's key made a string, so XADD fails in Redis with
WRONGTYPE (in a free query's one round trip, and in a paid query's pipeline after its charge)."""
from __future__ import annotations

from contextlib import contextmanager

import redis

from warehouse import keys

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
