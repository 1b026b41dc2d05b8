"""The RQ worker entry: `python -m jobs.worker` (what the supervisor runs)."""
from __future__ import annotations

import redis
from rq import Worker

import jobs.webhooks  # noqa: F401 (loaded once here, so each forked job starts with it: fan-out speed)
from jobs import synthesis, synthesis_failures
from jobs.queues import QUEUE
from marketintel.logs import configure
from marketintel.settings import get_settings


def main() -> None:
    configure("worker", get_settings().log_format)
    settings = get_settings()
    synthesis.warm(settings)  # built once before the work horses fork, not per synthesis job
    connection = redis.Redis.from_url(settings.effective_redis_url)
    # a work horse killed mid-job gets no failure callback from RQ: this handler fails or requeues its synthesis
    Worker([QUEUE], connection=connection,
           work_horse_killed_handler=synthesis_failures.on_horse_killed).work(with_scheduler=False)


if __name__ == "__main__":
    main()
