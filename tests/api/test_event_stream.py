"""The SSE stream and its status in-process (falcon's ASGI conductor) on the embedded Redis and a migrated SQLite
ledger: events appended with the real event log arrive in order with their ids; the type filter (422 unknown,
403 above the tier); owner-only alerts; resuming with Last-Event-ID (header or parameter) without loss or
duplicate; the per-caller connection limit (429); the status counts. Events here are test fixtures, labelled
simulated."""
from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import falcon.testing
import orjson
import pytest
import redis

from tests.api.agent_helpers import auth, register, set_tier
from warehouse import keys
from warehouse.events import EventLog

HEARTBEAT_S = 0.2
STREAM = "/api/v1/events/stream"


@pytest.fixture(autouse=True)
def quick_heartbeat(monkeypatch):
    monkeypatch.setenv("MI_SSE_HEARTBEAT_S", str(HEARTBEAT_S))  # before `settings` reads the environment


@pytest.fixture
def log(services):
    return EventLog(services.engine, redis.Redis.from_url(services.settings.effective_redis_url))


def event(n: int, type_: str = "market.vix_spike", audience: str | None = None, when=None) -> dict:
    """A simulated event whose summary names its number."""
    occurred = (when or "2026-11-20T21:00:00+00:00") if isinstance(when, str | None) else when.isoformat()
    return {"type": type_, "urgency": "high", "occurred_at": occurred, "data_as_of": "2026-11-20",
            "summary": f"event {n}", "figures": [{"module": "vix", "field": "level", "value": 30.0 + n}],
            "simulated": True, "data_source": "sim", "audience": audience}


def parse(raw: bytes) -> list[dict]:
    """SSE messages as dicts of their fields (`comment` for a `:` line)."""
    messages = []
    for block in raw.decode().split("\n\n"):
        fields = {}
        for line in filter(None, block.split("\n")):
            name, _, value = line.partition(":")
            fields["comment" if name == "" else name] = value.removeprefix(" ")
        if fields:
            messages.append(fields)
    return messages


async def collect(result, until, timeout: float = 5.0) -> list[dict]:
    """Every message of a streamed result so far, read until `until(messages)` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result.raw = getattr(result, "raw", b"") + await result.stream.read()
        if until(parse(result.raw)):
            return parse(result.raw)
        await asyncio.sleep(0.02)
    raise AssertionError(f"not within {timeout} s: {parse(result.raw)}")


def summaries(messages: list[dict]) -> list[str]:
    return [orjson.loads(m["data"])["summary"] for m in messages if "data" in m]


def events_in(messages: list[dict]) -> list[dict]:
    return [m for m in messages if "data" in m]


def has(count: int):
    return lambda messages: len(events_in(messages)) >= count


def run(app, scenario):
    async def go():
        async with falcon.testing.ASGIConductor(app) as conductor:
            return await scenario(conductor)
    return asyncio.run(go())


def test_events_arrive_in_order_with_ids_types_and_retry_first(app, log):
    async def scenario(conductor):
        async with conductor.simulate_get_stream(STREAM) as result:
            assert result.status_code == 200
            assert result.headers["content-type"].startswith("text/event-stream")
            first = await collect(result, bool)
            await asyncio.to_thread(log.append, [event(1), event(2, "market.tail_risk_rise"), event(3)])
            return first, await collect(result, has(2))

    first, messages = run(app, scenario)
    assert first[0] == {"comment": "connected", "retry": "3000"}
    got = events_in(messages)
    assert [m["id"] for m in got] == ["1-0", "3-0"]  # tail risk needs premium: not sent to the free tier
    assert [orjson.loads(m["data"])["type"] for m in got] == ["market.vix_spike"] * 2 and "event" not in got[0]
    assert summaries(got) == ["event 1", "event 3"] and orjson.loads(got[0]["data"])["id"] == "1-0"


def test_idle_streams_get_heartbeats(app):
    async def scenario(conductor):
        async with conductor.simulate_get_stream(STREAM) as result:
            return await collect(result, lambda m: sum(x.get("comment") == "ping" for x in m) >= 2)

    assert run(app, scenario)


def test_unknown_types_are_422_and_types_above_the_tier_403(client, services):
    unknown = client.simulate_get(STREAM, params={"types": "market.vix_spike,market.nope"})
    assert unknown.status_code == 422
    assert unknown.json["detail"][0]["loc"] == ["query", "types"]
    assert "market.nope" in unknown.json["detail"][0]["msg"] and "market.regime_change" in unknown.json["detail"][0][
        "msg"]
    above = client.simulate_get(STREAM, params={"types": "market.tail_risk_rise"})
    assert above.status_code == 403 and above.json["error"]["required_tier"] == "premium"
    key, agent = register(client, "premium-agent")
    set_tier(services, agent["agent_id"], "premium")
    higher = client.simulate_get(STREAM, headers=auth(key),
                                 params={"types": "market.tail_risk_rise,market.correlation_break"})
    assert higher.status_code == 403 and higher.json["error"]["required_tier"] == "institutional"
    assert higher.json["error"]["types"] == {"market.correlation_break": "institutional"}
    bad_id = client.simulate_get(STREAM, headers={"Last-Event-ID": "abc"})
    assert bad_id.status_code == 422


def test_an_alert_reaches_only_its_owner(client, app, log):
    owner_key, owner = register(client, "owner")
    other_key, _ = register(client, "other")

    async def scenario(conductor):
        async with (conductor.simulate_get_stream(STREAM, headers=auth(owner_key)) as mine,
                    conductor.simulate_get_stream(STREAM, headers=auth(other_key)) as theirs,
                    conductor.simulate_get_stream(STREAM) as anonymous):
            for result in (mine, theirs, anonymous):
                await collect(result, bool)
            await asyncio.to_thread(log.append, [event(1, "alert.triggered", owner["agent_id"]), event(2)])
            return [await collect(r, lambda m: "event 2" in summaries(m)) for r in (mine, theirs, anonymous)]

    mine, theirs, anonymous = (summaries(m) for m in run(app, scenario))
    assert mine == ["event 1", "event 2"] and theirs == ["event 2"] and anonymous == ["event 2"]


@pytest.mark.parametrize("how", ["header", "parameter"])
def test_resuming_replays_what_was_missed_then_goes_live(app, log, how):
    log.append([event(n) for n in range(1, 5)])
    resume = {"headers": {"Last-Event-ID": "2-0"}} if how == "header" else {"params": {"last_event_id": "2-0"}}

    async def scenario(conductor):
        async with conductor.simulate_get_stream(STREAM, **resume) as result:
            await collect(result, has(2))
            await asyncio.to_thread(log.append, [event(5), event(6)])
            return await collect(result, has(4))

    got = events_in(run(app, scenario))
    assert [m["id"] for m in got] == ["3-0", "4-0", "5-0", "6-0"]


def test_connections_beyond_the_tier_limit_are_429(app, client, services):
    async def scenario(conductor):
        async with (conductor.simulate_get_stream(STREAM) as first,
                    conductor.simulate_get_stream(STREAM) as second):
            for result in (first, second):
                await collect(result, bool)
            status = await conductor.simulate_get("/api/v1/events/status")
            third = await conductor.simulate_get(STREAM)
        await asyncio.sleep(3 * HEARTBEAT_S)  # the closed streams noticed at their next heartbeat
        again = await conductor.simulate_get("/api/v1/events/status")
        return status, third, again

    status, third, again = run(app, scenario)
    assert services.settings.sse_connections_free == 2
    assert status.json["active_connections"] == 2
    assert third.status_code == 429 and third.json["error"]["code"] == "too_many_streams"
    assert 1 <= int(third.headers["Retry-After"]) <= 3 * HEARTBEAT_S + 1
    assert again.json["active_connections"] == 0


def test_status_lists_the_callers_types_usage_and_own_connections(client, services, log):
    now = services.clock.now()
    log.append([event(1, when=now - timedelta(hours=30)), event(2, when=now - timedelta(hours=2)),
                event(3, "economic.release", when=now - timedelta(minutes=5))])
    anonymous = client.simulate_get("/api/v1/events/status").json
    assert "market.tail_risk_rise" not in anonymous["available_types"]
    assert "market.vix_spike" in anonymous["available_types"] and "your_connections" not in anonymous
    assert anonymous["usage"]["events_by_type"] == {"economic.release": 1, "market.vix_spike": 1}
    assert anonymous["stream"]["connection_limits"] == {"free": 2, "premium": 10, "institutional": 50}
    key, agent = register(client, "institutional-agent")
    set_tier(services, agent["agent_id"], "institutional")
    keyed = client.simulate_get("/api/v1/events/status", headers=auth(key)).json
    assert "market.correlation_break" in keyed["available_types"] and keyed["your_connections"] == 0


def test_resuming_older_than_the_stream_holds_replays_from_sql(app, log):
    log.append([event(n) for n in range(1, 7)])
    log.r.xtrim(keys.EVENTS_STREAM, minid="5-0")  # the stream keeps 5 and 6 only

    async def scenario(conductor):
        async with conductor.simulate_get_stream(STREAM, headers={"Last-Event-ID": "1-0"}) as result:
            await collect(result, has(5))
            await asyncio.to_thread(log.append, [event(7)])
            return await collect(result, has(6))

    assert [m["id"] for m in events_in(run(app, scenario))] == [f"{n}-0" for n in range(2, 8)]


def test_an_id_the_log_never_issued_resumes_from_its_end(app, log):
    log.append([event(1), event(2)])

    async def scenario(conductor):
        async with conductor.simulate_get_stream(STREAM, headers={"Last-Event-ID": "999-0"}) as result:
            await collect(result, bool)
            await asyncio.to_thread(log.append, [event(3)])
            return await collect(result, has(1))

    assert [m["id"] for m in events_in(run(app, scenario))] == ["3-0"]


def test_a_client_too_slow_for_its_queue_is_dropped_and_its_stream_ends(services, log):
    from api.event_fanout import EventFanout, RedisGate
    from warehouse.events_async import AsyncEventLog

    fanout = EventFanout(AsyncEventLog(services.engine, services.redis), RedisGate(), queue_size=2)

    async def scenario():
        slow, fast = await fanout.subscribe(), await fanout.subscribe()
        read = []

        async def reading():  # the other client keeps up
            while True:
                read.append((await fast[0].queue.get()).seq)

        reader = asyncio.create_task(reading())
        await asyncio.to_thread(log.append, [event(n) for n in range(1, 4)])
        for _ in range(100):
            if len(read) == 3:
                break
            await asyncio.sleep(0.02)
        reader.cancel()
        sent = [e.seq async for e in fanout.follow(slow, None, lambda e: True, HEARTBEAT_S)]  # ends by itself
        await fanout.process_shutdown(None, None)
        return slow[0].dropped, sent, fast[0].dropped, read

    dropped, sent, fast_dropped, read = asyncio.run(scenario())
    assert dropped and not fast_dropped and read == [1, 2, 3]
    assert sent == [1, 2, 3]  # what the log holds from its start, then the stream ends: it resumes by id
