"""A module query's Redis work in one round trip: a free query served as cached is counted and recorded by
the trip itself (one usage event, the caller's last seen payload), a paid one is recorded after its debit, and
a query refused by its rate window counts and records nothing."""
from __future__ import annotations

import time

import orjson
import pytest
import redis

from tests.api.agent_helpers import auth, fund, register
from warehouse import keys


@pytest.fixture
def settings(settings, request):
    return settings.model_copy(update=getattr(request, "param", {"rate_limit_free": "3/minute"}))


def events(r: redis.Redis) -> list[dict]:
    return [{k.decode(): v.decode() for k, v in fields.items()} for _, fields in r.xrange(keys.USAGE_STREAM)]


def test_free_and_paid_queries_each_leave_one_usage_event(client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    key, agent = register(client)
    fund(client, key, 100)
    free = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    assert free.status_code == 200 and free.json["_meta"]["paid_with"] == "free_allowance"
    assert [(e["module"], e["charged_sats"], e["free"]) for e in events(r)] == [("vix", "0", "1")]
    assert events(r)[0]["request_id"] == free.headers["X-Request-ID"]
    assert events(r)[0]["client"] == f"a:{agent['agent_id']}"
    seen = r.get(keys.seen(f"a:{agent['agent_id']}", "vix", None))
    assert seen is not None and free.json["data"] == orjson.loads(seen)["data"]
    assert r.get(keys.USAGE_DRAIN_GATE) is not None  # the trip took the gate: a drain job was queued
    paid = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key), params={"format": "compact"})
    assert paid.status_code == 200 and paid.json["_meta"]["charged_sats"] == 50
    assert [(e["charged_sats"], e["free"]) for e in events(r)] == [("0", "1"), ("50", "0")]


def test_a_query_over_its_window_counts_and_records_nothing(client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    key, agent = register(client)
    statuses = [client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code for _ in range(4)]
    assert statuses == [200, 402, 402, 429]
    counts = [int(r.get(k)) for k in r.scan_iter(f"{keys.PREFIX}:free:*:a:{agent['agent_id']}:module:vix")]
    assert counts == [1] and len(events(r)) == 1  # the 402s were counted then undone; the 429 counted nothing


@pytest.mark.parametrize("settings", [{"rate_limit_free": "2/second"}], indirect=True)
def test_a_window_found_full_refuses_without_a_round_trip_until_it_frees(client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    key, _ = register(client)

    def calls(command: str) -> int:
        return r.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0)

    statuses = [client.simulate_get(f"/api/v1/intelligence/{m}", headers=auth(key)).status_code
                for m in ("vix", "yield_curve", "inflation")]
    assert statuses == [200, 200, 429]
    before = calls("evalsha") + calls("evalsha_ro") + calls("lrange")
    refused = [client.simulate_get("/api/v1/intelligence/bitcoin", headers=auth(key)) for _ in range(5)]
    assert [r.status_code for r in refused] == [429] * 5
    assert all(int(r.headers["Retry-After"]) >= 1 for r in refused)
    assert calls("evalsha") + calls("evalsha_ro") + calls("lrange") == before  # no script, no window read
    time.sleep(1.1)  # the oldest entry leaves the window
    assert client.simulate_get("/api/v1/intelligence/bitcoin", headers=auth(key)).status_code == 200


def test_the_trip_says_whether_the_last_seen_payload_is_the_first_read_without_carrying_it(settings):
    """The caller's last seen payload is compared in Redis: the reply holds only the reads asked for, and a
    recorded query writes the snapshot only when it differs."""
    import asyncio

    import redis.asyncio as aioredis

    from api.one_trip import FreeRecord, OneTrip

    async def trips() -> list:
        r = aioredis.Redis.from_url(settings.effective_redis_url)
        trip = OneTrip(r)
        await r.set("t:payload", b"new")
        await r.set("t:seen", b"old")
        record = FreeRecord(5, "t:stream", {"k": "v"}, ("t:gate", 60))
        out = [await trip.run(["t:payload"], seen=("t:seen", 60)),  # not recorded: compared only
               await trip.run(["t:payload"], counter=("t:count", 60), record=record, seen=("t:seen", 60)),
               await trip.run(["t:payload"], seen=("t:seen", 60)),
               await r.get("t:seen"), await r.ttl("t:seen")]
        await r.aclose()
        return out

    before, recorded, after, seen, ttl = asyncio.run(trips())
    assert before.reads == (b"new",) and before.seen_is_first is False
    assert recorded.recorded and recorded.seen_is_first is False and seen == b"new" and 0 < ttl <= 60
    assert after.reads == (b"new",) and after.seen_is_first is True


def test_a_rendering_the_caller_holds_for_the_same_meta_does_not_travel_back(settings):
    """`held`: while the meta is the one the caller holds the rendering for, the reply leaves the rendering out
    (the caller's copy comes back in its place); a new publish (another meta) sends the new rendering."""
    import asyncio

    import redis.asyncio as aioredis

    from api.one_trip import OneTrip

    async def trips() -> list:
        r = aioredis.Redis.from_url(settings.effective_redis_url)
        trip = OneTrip(r)
        await r.mset({"t:full": b"published body", "t:meta": b"meta 1"})
        out = [await trip.run(["t:full", "t:meta"], held=(b"meta 1", b"the caller's copy"))]
        await r.mset({"t:full": b"republished body", "t:meta": b"meta 2"})
        out.append(await trip.run(["t:full", "t:meta"], held=(b"meta 1", b"the caller's copy")))
        out.append(await trip.run(["t:full", "t:meta"]))
        await r.aclose()
        return out

    same, republished, plain = asyncio.run(trips())
    assert same.reads == (b"the caller's copy", b"meta 1")
    assert republished.reads == plain.reads == (b"republished body", b"meta 2")


def test_a_new_publish_is_served_at_once_by_a_process_that_held_the_old_rendering(client, settings):
    from warehouse.cache import ServingCache

    key, _ = register(client)
    fund(client, key, 100)
    first = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json
    republished = {**first, "summary": "republished"}
    del republished["_meta"]
    ServingCache(redis.Redis.from_url(settings.effective_redis_url)).publish_modules(
        [("vix", republished, "sim")], True, time.time())
    for _ in range(2):  # the first read after the publish, then the one the process now holds
        again = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).json
        assert again["summary"] == "republished" and again["data"] == first["data"]
