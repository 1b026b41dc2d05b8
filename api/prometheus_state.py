"""The deployment's shared state as Prometheus gauges, read at scrape time (marketintel/prometheus.py counts the
events): the age of every published copy, each live source's state and last success, RQ's queue and failed jobs,
webhook deliveries by status and the open event streams. Every API instance reads the same Redis and ledger, so
each reports the same figures (take one instance's, or the max, not the sum)."""
from __future__ import annotations

import time
from datetime import datetime

import orjson
import redis
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from rq import Queue
from rq.registry import FailedJobRegistry
from sqlalchemy import func, select

from jobs.queues import QUEUE
from marketintel.prometheus import NS
from warehouse import keys
from warehouse.ledger.tables import webhook_deliveries

OPEN = {"closed", "half_open"}  # a source whose breaker lets requests through


class SharedState(Collector):
    def __init__(self, redis_url: str, engine, modules: list[str]):
        self.client = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        self.engine = engine
        self.modules = modules

    def collect(self):
        yield self._copy_ages()
        yield from self._sources()
        yield from self._queue()
        yield self._deliveries()
        streams = GaugeMetricFamily(f"{NS}_sse_connections", "Event streams open across the deployment")
        streams.add_metric([], self.client.zcount(f"{keys.SSE_SLOTS}:all", f"({time.time()}", "+inf"))
        yield streams

    def _copy_ages(self) -> GaugeMetricFamily:
        ages = GaugeMetricFamily(f"{NS}_published_copy_age_seconds", "Seconds since each module, the pulse and each "
                                 "derived product was last published to the serving cache", labels=["product"])
        names = [*self.modules, "pulse"]
        meta_keys = [*(f"{keys.PREFIX}:module:{n}:meta" for n in self.modules), f"{keys.PREFIX}:pulse:meta"]
        for key in self.client.scan_iter(match=f"{keys.PREFIX}:product:*:meta", count=500):
            meta_keys.append(key.decode())
            names.append(key.decode().split(":")[2])
        now = time.time()
        for name, meta in zip(names, self.client.mget(meta_keys)):
            if meta is not None:
                ages.add_metric([name], max(0.0, now - float(orjson.loads(meta).get("published_at", now))))
        return ages

    def _sources(self):
        up = GaugeMetricFamily(f"{NS}_source_up", "1 while a live source's circuit breaker lets requests through",
                               labels=["source"])
        last = GaugeMetricFamily(f"{NS}_source_last_success_timestamp_seconds", "When a live source last answered",
                                 labels=["source"])
        for name, raw in sorted(self.client.hgetall(keys.STATUS_SOURCES).items()):
            status = orjson.loads(raw)
            up.add_metric([name.decode()], 1.0 if status.get("state") in OPEN else 0.0)
            if status.get("last_success_at"):
                last.add_metric([name.decode()], datetime.fromisoformat(status["last_success_at"]).timestamp())
        yield up
        yield last

    def _queue(self):
        queue = Queue(QUEUE, connection=self.client)
        jobs = GaugeMetricFamily(f"{NS}_rq_queue_jobs", "Jobs waiting in an RQ queue", labels=["queue"])
        jobs.add_metric([QUEUE], queue.count)
        failed = GaugeMetricFamily(f"{NS}_rq_failed_jobs", "Jobs in an RQ queue's failed registry", labels=["queue"])
        failed.add_metric([QUEUE], FailedJobRegistry(queue=queue).count)
        yield jobs
        yield failed

    def _deliveries(self) -> GaugeMetricFamily:
        deliveries = GaugeMetricFamily(f"{NS}_webhook_deliveries", "Webhook and alert deliveries in the outbox, by "
                                       "status (pending, delivered, failed, abandoned)", labels=["status"])
        with self.engine.connect() as conn:
            rows = conn.execute(select(webhook_deliveries.c.status, func.count())
                                .group_by(webhook_deliveries.c.status)).all()
        for status, count in rows:
            deliveries.add_metric([status], count)
        return deliveries
