"""The queue the API enqueues on and the worker listens to."""
from __future__ import annotations

import redis
from rq import Queue

QUEUE = "mi"


def job_queue(redis_url: str, **redis_options) -> Queue:
    """The queue for enqueuing; `redis_options` (the API's timeouts: marketintel/redis_clients.py) go to its
    client. Not for a worker's own connection: its blocking dequeue needs a read timeout longer than the wait."""
    return Queue(QUEUE, connection=redis.Redis.from_url(redis_url, **redis_options))
