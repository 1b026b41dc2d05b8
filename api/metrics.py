"""Request metrics in Redis, shared by every API worker, for /api/v1/sla and /health/dashboard.

Keys (laid out in warehouse/keys.py):
    mi:metrics:m:<epoch minute>   hash  n (requests), 2xx/3xx/4xx/5xx (counts), b<k> (latency histogram)
    mi:metrics:workers            hash  <host>:<pid> -> JSON {host, pid, started_at, last_seen}

Latency bucket k holds requests that took at most BASE_MS * GROWTH**k milliseconds (k >= 0), so a
percentile is known to within one bucket (+25%). Each request costs one pipelined round trip of four
commands, sent in `process_response` once the response is built; minute hashes expire after a day
and a bit, so the day's error rate is always readable and nothing grows without bound.
"""
from __future__ import annotations

import asyncio
import logging
import math
import os
import socket
import time
import weakref

import orjson
import psutil
import redis.asyncio as aioredis

from warehouse import keys

WORKERS = keys.METRICS_WORKERS
BASE_MS = 0.1
GROWTH = 1.25
RETENTION_S = 26 * 3600
STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")
# A worker on another host counts as live while it has recorded a request this recently.
REMOTE_LIVE_S = 300

log = logging.getLogger(__name__)

HOST = socket.gethostname()
# The process's real start time from the OS (not import time), so uptime includes start-up.
PROCESS_STARTED = psutil.Process().create_time()


def minute_key(minute: int) -> str:
    return keys.metrics_minute(minute)


def bucket_of(ms: float) -> int:
    if ms <= BASE_MS:
        return 0
    return math.ceil(math.log(ms / BASE_MS, GROWTH) - 1e-9)


def bucket_upper_ms(k: int) -> float:
    return BASE_MS * GROWTH ** k


class RequestMetrics:
    """App-wide middleware: latency from the first middleware hook to the built response, and the status."""

    def __init__(self, redis_url: str):
        self.url = redis_url
        self.worker = f"{HOST}:{os.getpid()}"
        # One client per event loop: redis.asyncio connections belong to the loop that opened them, and a
        # pooled connection reused from another loop (tests driving the app from several loops) would
        # break whichever request got it next. A uvicorn worker has one loop, so one client.
        self._clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _client(self) -> aioredis.Redis:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = self._clients[loop] = aioredis.Redis.from_url(self.url, client_name="mi-api-metrics")
        return client

    async def process_shutdown(self, scope, event):
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    async def process_request(self, req, resp):
        req.context.metrics_started = time.perf_counter()

    async def process_response(self, req, resp, resource, req_succeeded):
        started = req.context.metrics_started
        if started is None:
            return
        ms = (time.perf_counter() - started) * 1000
        now = time.time()
        key = minute_key(int(now // 60))
        status = f"{resp.status_code // 100}xx"
        heartbeat = orjson.dumps({"host": HOST, "pid": os.getpid(), "started_at": PROCESS_STARTED, "last_seen": now})
        try:
            pipe = self._client().pipeline(transaction=False)
            pipe.hincrby(key, "n", 1).hincrby(key, status, 1).hincrby(key, f"b{bucket_of(ms)}", 1)
            pipe.expire(key, RETENTION_S).hset(WORKERS, self.worker, heartbeat)
            await pipe.execute()
        except Exception as exc:  # noqa: BLE001  (metrics must never turn a served request into an error)
            log.warning("request metrics not recorded: %s", exc)


async def window(client: aioredis.Redis, seconds: int, now: float | None = None) -> dict:
    """Totals over the minutes of the last `seconds` (the current minute included): requests, counts per
    status class, and the merged latency histogram {bucket: count}."""
    now = time.time() if now is None else now
    last = int(now // 60)
    first = last - max(1, seconds // 60) + 1
    async with client.pipeline(transaction=False) as pipe:
        for minute in range(first, last + 1):
            pipe.hgetall(minute_key(minute))
        rows = await pipe.execute()
    totals = {"n": 0, **dict.fromkeys(STATUS_CLASSES, 0)}
    histogram: dict[int, int] = {}
    for row in rows:
        for field, value in row.items():
            name, count = field.decode(), int(value)
            if name.startswith("b"):
                histogram[int(name[1:])] = histogram.get(int(name[1:]), 0) + count
            else:
                totals[name] = totals.get(name, 0) + count
    return {**totals, "histogram": histogram}


def percentile_ms(histogram: dict[int, int], q: float) -> float | None:
    """Upper bound of the bucket holding the q-th quantile; None when nothing was recorded."""
    total = sum(histogram.values())
    if not total:
        return None
    rank, seen = q * total, 0
    for k in sorted(histogram):
        seen += histogram[k]
        if seen >= rank:
            return round(bucket_upper_ms(k), 3)
    return round(bucket_upper_ms(max(histogram)), 3)


async def workers(client: aioredis.Redis, now: float | None = None) -> list[dict]:
    """API workers believed live: on this host, the pid exists and started when it said it did; elsewhere,
    it recorded a request in the last REMOTE_LIVE_S. Dead local entries are dropped from the hash."""
    now = time.time() if now is None else now
    entries = {k.decode(): orjson.loads(v) for k, v in (await client.hgetall(WORKERS)).items()}
    # This process is live by definition, even before its first request is recorded.
    entries[f"{HOST}:{os.getpid()}"] = {"host": HOST, "pid": os.getpid(), "started_at": PROCESS_STARTED,
                                        "last_seen": now}
    live, dead_here = [], []
    for key, entry in entries.items():
        if entry["host"] == HOST:
            if _local_alive(entry["pid"], entry["started_at"]):
                live.append(entry)
            else:
                dead_here.append(key)
        elif now - entry["last_seen"] <= REMOTE_LIVE_S:
            live.append(entry)
    if dead_here:
        await client.hdel(WORKERS, *dead_here)
    return sorted(live, key=lambda e: e["started_at"])


def _local_alive(pid: int, started_at: float) -> bool:
    try:
        return abs(psutil.Process(pid).create_time() - started_at) < 1.0  # not a recycled pid
    except psutil.Error:
        return False
