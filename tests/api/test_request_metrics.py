"""Request metrics are counted in the process and reach Redis in one pipeline about once a second: never a
Redis write per request, counts of a failed flush are kept for the next one, and shutdown flushes the rest.
All on a real Redis: the session's server, or one of the test's own that it stops and starts again."""
from __future__ import annotations

import asyncio
import logging

import falcon.asgi
import falcon.testing
import redis

from api import metrics
from api.metrics import WORKERS, RequestMetrics
from marketintel.redis_server import EmbeddedRedis, free_port


class Ok:
    async def on_get(self, req, resp):
        resp.media = {"ok": True}


def small_app(recorder: RequestMetrics) -> falcon.asgi.App:
    app = falcon.asgi.App(middleware=[recorder])
    app.add_route("/ok", Ok())
    return app


def kill(server: EmbeddedRedis) -> None:
    server.process.kill()
    server.process.wait()


def recorded(r: redis.Redis) -> int:
    """Requests counted in Redis, over every minute."""
    return sum(int(r.hget(key, "n") or 0) for key in r.scan_iter("mi:metrics:m:*"))


def calls(r: redis.Redis, command: str) -> int:
    return r.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0)


def test_many_requests_reach_redis_in_one_flush_not_one_write_each(app, settings, monkeypatch):
    monkeypatch.setattr(metrics, "FLUSH_INTERVAL_S", 60.0)  # only the flushes this test asks for
    r = redis.Redis.from_url(settings.effective_redis_url)

    async def run():
        # one lifespan for all the requests, as in a server (falcon's TestClient runs one per request)
        async with falcon.testing.ASGIConductor(app) as conductor:
            await metrics.flush_pending()  # whatever earlier requests left
            start, hincrby, hset = recorded(r), calls(r, "hincrby"), calls(r, "hset")
            for _ in range(40):
                assert (await conductor.simulate_get("/api/v1/pricing")).status_code == 200
            assert (recorded(r), calls(r, "hincrby"), calls(r, "hset")) == (start, hincrby, hset)  # no writes yet

            fields = sum(len(counts) for m in list(metrics._instances) for counts in m.pending.values())
            assert fields < 20  # n, 2xx and a few latency buckets (per minute touched), not three per request
            await metrics.flush_pending()
            assert recorded(r) - start == 40
            assert calls(r, "hincrby") - hincrby == fields  # one HINCRBY per field, whatever the number of requests
            assert calls(r, "hset") - hset == 1  # one heartbeat: one pipeline

    asyncio.run(run())


def test_the_flusher_sends_within_about_a_second_on_its_own_and_stops_when_idle(redis_url):
    r = redis.Redis.from_url(redis_url)
    recorder = RequestMetrics(redis_url)

    async def run():
        async with falcon.testing.ASGIConductor(small_app(recorder)) as conductor:
            for _ in range(3):
                await conductor.simulate_get("/ok")
            assert recorded(r) == 0
            await asyncio.sleep(metrics.FLUSH_INTERVAL_S * 1.5)
            assert recorded(r) == 3 and r.hexists(WORKERS, recorder.worker)
            await asyncio.sleep(metrics.FLUSH_INTERVAL_S * 1.2)  # an interval with no requests
            assert recorder._loops[asyncio.get_running_loop()].flusher.done()
            await conductor.simulate_get("/ok")  # the next request starts it again
            assert not recorder._loops[asyncio.get_running_loop()].flusher.done()

    asyncio.run(run())
    assert recorded(r) == 4  # the last one by the flush at shutdown


def test_a_failed_flush_keeps_its_counts_and_a_later_flush_delivers_them(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(metrics, "FLUSH_INTERVAL_S", 60.0)
    server = EmbeddedRedis(free_port(), tmp_path / "redis").start()
    r = redis.Redis.from_url(server.url)
    recorder = RequestMetrics(server.url)

    async def run():
        async with falcon.testing.ASGIConductor(small_app(recorder)) as conductor:
            for _ in range(5):
                await conductor.simulate_get("/ok")
            kill(server)  # Redis dies
            assert (await conductor.simulate_get("/ok")).status_code == 200  # metrics never fail a request
            with caplog.at_level(logging.INFO, logger="api.metrics"):
                for _ in range(3):
                    await recorder.flush()
                assert sum(c["n"] for c in recorder.pending.values()) == 6  # kept, not lost
                server.start()
                await recorder.flush()
            assert not recorder.pending and recorded(r) == 6

    try:
        asyncio.run(run())
    finally:
        kill(server)
    warnings = [rec for rec in caplog.records if rec.levelno == logging.WARNING]
    assert len(warnings) == 1 and "counts kept" in warnings[0].getMessage()  # once, not per failed flush
    assert any("flushed again after 3 failed flushes" in rec.getMessage() for rec in caplog.records)


def test_shutdown_flushes_what_is_pending_and_leaves_no_task(redis_url, monkeypatch):
    monkeypatch.setattr(metrics, "FLUSH_INTERVAL_S", 60.0)
    r = redis.Redis.from_url(redis_url)
    recorder = RequestMetrics(redis_url)

    async def run():
        async with falcon.testing.ASGIConductor(small_app(recorder)) as conductor:
            for _ in range(7):
                await conductor.simulate_get("/ok")
            assert recorded(r) == 0
        assert asyncio.all_tasks() == {asyncio.current_task()}  # the flusher was cancelled, not left pending

    asyncio.run(run())
    assert recorded(r) == 7 and r.hexists(WORKERS, recorder.worker)
    assert not recorder.pending
