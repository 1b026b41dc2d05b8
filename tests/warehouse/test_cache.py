"""The Redis serving cache on the real embedded server: layout, atomic publish, single-round-trip reads."""
from __future__ import annotations

import asyncio
import threading
import time

import orjson
import pytest
import redis
import redis.asyncio as aioredis

from intel.formats import render
from tests.cache_reads import CacheReader
from warehouse.cache import AsyncServingCache, ServingCache

PAYLOAD = {
    "module": "vix",
    "as_of": "2024-03-04",
    "data_as_of": "2024-03-01",
    "generated_at": "2024-03-04T21:05:00+00:00",
    "data": {"level": 14.2, "percentile_10y": 31.0, "change_1d": -0.4},
    "signals": {"direction": "bullish", "confidence": 0.6, "urgency": "low", "reason": "VIX below median"},
    "summary": "VIX at 14.2, 31st percentile of ten years.",
    "data_sources": {"provider": "sim", "series": [{"id": "VIXCLS", "last_observation": "2024-03-04"}],
                     "missing": []},
    "related_modules": [{"name": "vol_of_vol", "reason": "how jumpy VIX is"}],
    "full_data": True,
    "_meta": {"should": "never be stored"},
}


class CountingRedis(redis.Redis):
    """A real client that counts commands sent, to prove reads are one round trip."""

    calls = 0

    def execute_command(self, *args, **options):
        CountingRedis.calls += 1
        return super().execute_command(*args, **options)


@pytest.fixture
def client(redis_url):
    return redis.Redis.from_url(redis_url)


def test_publish_writes_every_format_and_meta(client):
    cache = ServingCache(client)
    cache.publish_modules([("vix", PAYLOAD, "sim")], True, 1700000000.5)

    assert sorted(k.decode() for k in client.keys("mi:*")) == [
        "mi:module:vix:compact", "mi:module:vix:full", "mi:module:vix:meta", "mi:module:vix:prompt", "mi:modules"]
    full = orjson.loads(client.get("mi:module:vix:full"))
    assert "_meta" not in full and full["data"] == PAYLOAD["data"] and full["summary"] == PAYLOAD["summary"]
    for fmt in ("compact", "prompt"):
        expected = {k: v for k, v in render(PAYLOAD, fmt).items() if k != "_meta"}
        assert orjson.loads(client.get(f"mi:module:vix:{fmt}")) == expected
    assert orjson.loads(client.get("mi:module:vix:meta")) == {
        "module": "vix", "as_of": "2024-03-04", "data_as_of": "2024-03-01", "generated_at": "2024-03-04T21:05:00+00:00",
        "published_at": 1700000000.5, "data_source": "sim", "simulated": True}


def test_get_module_is_one_round_trip(redis_url):
    counting = CountingRedis.from_url(redis_url)
    ServingCache(counting).publish_modules([("vix", PAYLOAD, "replay")], False, time.time())
    cache = CacheReader(counting)

    CountingRedis.calls = 0
    body, meta = cache.get_module("vix", "compact")
    assert CountingRedis.calls == 1
    assert orjson.loads(body) == {k: v for k, v in render(PAYLOAD, "compact").items() if k != "_meta"}
    assert meta["data_source"] == "replay" and meta["simulated"] is False

    CountingRedis.calls = 0
    assert cache.get_module("nope", "full") == (None, None)
    assert cache.get_pulse() == (None, None)
    assert CountingRedis.calls == 2


def test_full_rendering_takes_a_spliced_meta(client):
    ServingCache(client).publish_modules([("vix", PAYLOAD, "sim")], True, time.time())
    body, _ = CacheReader(client).get_module("vix", "full")
    spliced = orjson.loads(body[:-1] + b',"_meta":' + orjson.dumps({"request_id": "r1"}) + b"}")
    assert spliced["_meta"] == {"request_id": "r1"} and spliced["module"] == "vix"
    assert orjson.loads(body) == {k: v for k, v in PAYLOAD.items() if k != "_meta"}


def test_publish_many_is_one_transaction(redis_url):
    counting = CountingRedis.from_url(redis_url)
    cache = ServingCache(counting)
    items = [(name, {**PAYLOAD, "module": name}, "sim") for name in ("vix", "oil", "bitcoin")]
    CountingRedis.calls = 0
    assert cache.publish_modules(items, simulated=True, published_at=time.time()) == 3
    assert CountingRedis.calls == 0  # a pipeline sends MULTI..EXEC as one batch, not command by command
    assert CacheReader(counting).published_modules() == ["bitcoin", "oil", "vix"]
    assert orjson.loads(CacheReader(counting).get_module("oil", "full")[0])["module"] == "oil"


def test_a_reader_never_sees_half_a_publish(redis_url):
    writer, reader = ServingCache.from_url(redis_url), CacheReader.from_url(redis_url)
    writer.publish_modules([("vix", PAYLOAD, "sim")], True, 0.0)
    stop = threading.Event()

    def publish_forever():
        n = 0
        while not stop.is_set():
            n += 1
            writer.publish_modules([("vix", {**PAYLOAD, "as_of": f"2024-03-{n % 28 + 1:02d}"}, "sim")], True,
                                   float(n))

    thread = threading.Thread(target=publish_forever)
    thread.start()
    try:
        seen = set()
        for _ in range(300):
            body, meta = reader.get_module("vix", "full")
            assert orjson.loads(body)["as_of"] == meta["as_of"]  # rendering and meta of the same publish
            seen.add(meta["as_of"])
    finally:
        stop.set()
        thread.join()
    assert len(seen) > 1  # the writer really was publishing while we read


def test_pulse_round_trip_and_prefix_isolation(client):
    pulse = {"as_of": "2024-03-04", "data_as_of": "2024-03-01", "generated_at": "2024-03-04T21:05:00+00:00",
             "regime": "calm"}
    ServingCache(client, prefix="t1").publish_pulse({**pulse, "_meta": {"x": 1}}, "sim", True, 5.0)
    body, meta = CacheReader(client, prefix="t1").get_pulse()
    assert orjson.loads(body) == pulse
    assert meta == {"as_of": "2024-03-04", "data_as_of": "2024-03-01", "generated_at": "2024-03-04T21:05:00+00:00",
                    "published_at": 5.0, "data_source": "sim", "simulated": True}
    assert CacheReader(client).get_pulse() == (None, None)


def test_async_reader_sees_what_the_writer_published(redis_url):
    ServingCache.from_url(redis_url).publish_modules([("vix", PAYLOAD, "sim")], True, 3.0)
    ServingCache.from_url(redis_url).publish_pulse({"as_of": "2024-03-04"}, "sim", True, 3.0)

    async def read():
        client = aioredis.Redis.from_url(redis_url)
        try:
            cache = AsyncServingCache(client)
            return await cache.published_modules(), await cache.get_pulse()
        finally:
            await client.aclose()

    names, (pulse, pulse_meta) = asyncio.run(read())
    assert names == ["vix"]
    assert orjson.loads(pulse) == {"as_of": "2024-03-04"} and pulse_meta["simulated"] is True
