"""The queue the API enqueues on and the worker listens to."""
from __future__ import annotations

import redis
from rq import Queue

QUEUE = "mi"


def job_queue(redis_url: str) -> Queue:
    return Queue(QUEUE, connection=redis.Redis.from_url(redis_url))
