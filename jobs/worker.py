"""The RQ worker entry: `python -m jobs.worker` (what the supervisor runs)."""
from __future__ import annotations

import logging

import redis
from rq import Worker

import jobs.webhooks  # noqa: F401 (loaded once here, so each forked job starts with it: fan-out speed)
from jobs.queues import QUEUE
from marketintel.settings import get_settings


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s worker %(levelname)s %(message)s")
    connection = redis.Redis.from_url(get_settings().effective_redis_url)
    Worker([QUEUE], connection=connection).work(with_scheduler=False)


if __name__ == "__main__":
    main()
