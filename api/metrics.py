"""Request metrics in Redis, shared by every API worker, for /api/v1/sla and /health/dashboard.

Keys (laid out in warehouse/keys.py):
    mi:metrics:m:<epoch minute>   hash  n (requests), 2xx/3xx/4xx/5xx (counts), b<k> (latency histogram)
    mi:metrics:workers            hash  <host>:<pid> -> JSON {host, pid, started_at, last_seen}

Latency bucket k holds requests that took at most BASE_MS * GROWTH**k milliseconds (k >= 0), so a
percentile is known to within one bucket (+25%). Minute hashes expire after a day and a bit, so the day's
error rate is always readable and nothing grows without bound.

A request costs no I/O: `process_response` adds to counters in this process, and a flusher task sends
them about once a second (FLUSH_INTERVAL_S) in one pipeline: an HINCRBY per field and an EXPIRE per minute
touched, and the worker's heartbeat. A flush that fails (Redis down) keeps its counts for the next one, so
what a crash can lose is the last second of metrics, never money or usage records (written elsewhere).
The readers below first flush this process's pending counts, so a process sees its own requests at once;
other workers' requests appear within about a second.
"""
from __future__ import annotations

import asyncio
import logging
import math
import os
import socket
import time
import weakref
from collections import Counter, defaultdict

import orjson
import psutil
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from marketintel import prometheus
from marketintel.redis_clients import async_options
from marketintel.settings import get_settings
from warehouse import keys

WORKERS = keys.METRICS_WORKERS
BASE_MS = 0.1
GROWTH = 1.25
RETENTION_S = 26 * 3600
STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")
# A worker on another host counts as live while it has recorded a request this recently.
REMOTE_LIVE_S = 300
FLUSH_INTERVAL_S = 1.0
# A flusher that keeps failing (Redis down) warns at most this often.
WARN_EVERY_S = 60.0

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
    """App-wide middleware: latency from the first middleware hook to the built response, and the status.

    A request only adds to `pending` ({epoch minute: Counter of fields}); a flusher task sends it."""

    def __init__(self, redis_url: str):
        self.url = redis_url
        self.worker = f"{HOST}:{os.getpid()}"
        self.pending: defaultdict[int, Counter] = defaultdict(Counter)
        # Per event loop: the Redis client, the flusher task and a lock that keeps flushes one at a time.
        # redis.asyncio connections belong to the loop that opened them, and a pooled connection reused from
        # another loop (tests driving the app from several loops) would break. A uvicorn worker has one loop.
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Loop] = weakref.WeakKeyDictionary()
        self._failures = 0
        self._warned_at = -math.inf
        _instances.add(self)

    def _loop(self) -> _Loop:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._loops[loop] = _Loop(self.url)
        return state

    async def process_request(self, req, resp):
        req.context.metrics_started = time.perf_counter()

    async def process_response(self, req, resp, resource, req_succeeded):
        started = req.context.metrics_started
        if started is None:
            return
        seconds = time.perf_counter() - started
        ms = seconds * 1000
        route = req.uri_template or "unmatched"  # the template, never the path: one series per route, not per URL
        prometheus.REQUESTS.labels(route, req.method, str(resp.status_code)).inc()
        prometheus.LATENCY.labels(route, req.method).observe(seconds)
        self.pending[int(time.time() // 60)].update(("n", f"{resp.status_code // 100}xx", f"b{bucket_of(ms)}"))
        state = self._loop()
        if state.flusher is None or state.flusher.done():  # started lazily: test clients may skip lifespan
            state.flusher = asyncio.create_task(self._flush_while_busy(state), name="request-metrics-flusher")

    async def process_shutdown(self, scope, event):
        state = self._loops.pop(asyncio.get_running_loop(), None)
        if state is None:
            return
        if state.flusher is not None:
            async with state.lock:  # cancelled between flushes, never halfway through one
                state.flusher.cancel()
            await asyncio.wait([state.flusher])
        await self._flush(state)
        if self.pending:
            log.warning("request metrics of %d requests lost at shutdown: Redis did not take them",
                        sum(fields["n"] for fields in self.pending.values()))
        await state.client.aclose()

    async def flush(self) -> None:
        """Send the pending counts now, or wait for the flush under way (readers call this via flush_pending)."""
        state = self._loops.get(asyncio.get_running_loop())
        if self.pending or (state is not None and state.lock.locked()):
            await self._flush(state or self._loop())

    async def _flush_while_busy(self, state: _Loop) -> None:
        """Flushes every FLUSH_INTERVAL_S; ends after an interval with no requests (the next one restarts it).
        Counts a failed flush kept are retried every interval, so the task lives on while Redis is down."""
        while True:
            await asyncio.sleep(FLUSH_INTERVAL_S)
            if not self.pending:
                return
            await self._flush(state)

    async def _flush(self, state: _Loop) -> None:
        async with state.lock:
            taken, self.pending = self.pending, defaultdict(Counter)
            if not taken:
                return
            pipe = state.client.pipeline(transaction=False)
            for minute, fields in taken.items():
                key = minute_key(minute)
                for field, count in fields.items():
                    pipe.hincrby(key, field, count)
                pipe.expire(key, RETENTION_S)
            heartbeat = {"host": HOST, "pid": os.getpid(), "started_at": PROCESS_STARTED, "last_seen": time.time()}
            pipe.hset(WORKERS, self.worker, orjson.dumps(heartbeat))
            try:
                await pipe.execute()
            except Exception as exc:  # noqa: BLE001  (Redis down: keep the counts for the next flush)
                self._keep(taken)
                self._failed(exc)
                return
            except asyncio.CancelledError:
                self._keep(taken)
                raise
            if self._failures:
                log.info("request metrics flushed again after %d failed flushes", self._failures)
                self._failures, self._warned_at = 0, -math.inf

    def _keep(self, taken: dict[int, Counter]) -> None:
        for minute, fields in taken.items():
            self.pending[minute].update(fields)

    def _failed(self, exc: Exception) -> None:
        self._failures += 1
        if time.monotonic() - self._warned_at >= WARN_EVERY_S:
            self._warned_at = time.monotonic()
            log.warning("request metrics not flushed (%d failed flushes in a row; counts kept, retried every %s s): "
                        "%s", self._failures, FLUSH_INTERVAL_S, exc)


class _Loop:
    def __init__(self, url: str):
        # One retry, no backoff: the flusher retries every interval itself, and a reader flushing first
        # should not wait seconds on a Redis that is down.
        # The settings' timeouts, so a frozen Redis holds a reader's flush no longer than any other call.
        options = {**async_options(get_settings()), "retry": Retry(NoBackoff(), 1)}
        self.client = aioredis.Redis.from_url(url, client_name="mi-api-metrics", **options)
        self.lock = asyncio.Lock()
        self.flusher: asyncio.Task | None = None


_instances: weakref.WeakSet[RequestMetrics] = weakref.WeakSet()


async def flush_pending() -> None:
    """Send what every RequestMetrics of this process has pending, so a reader sees this process's requests."""
    for metrics in list(_instances):
        await metrics.flush()


async def window(client: aioredis.Redis, seconds: int, now: float | None = None) -> dict:
    """Totals over the minutes of the last `seconds` (the current minute included): requests, counts per
    status class, and the merged latency histogram {bucket: count}. This process's pending counts included."""
    await flush_pending()
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
    await flush_pending()
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
