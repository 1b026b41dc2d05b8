"""Queue names and the enqueue side used by the API."""
from __future__ import annotations

import redis
from rq import Queue

USAGE_QUEUE = "mi-usage"


def usage_queue(redis_url: str) -> Queue:
    return Queue(USAGE_QUEUE, connection=redis.Redis.from_url(redis_url))
