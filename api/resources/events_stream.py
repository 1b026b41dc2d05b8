"""GET /api/v1/events/stream (Server-Sent Events) and GET /api/v1/events/status.

The stream sends `retry: <ms>` first, then each event as `id: <seq>-0` and `data: <the event as JSON>` (its
`type` inside), and a `: ping` comment after each `sse_heartbeat_s` without one (it keeps proxies from closing an idle
stream, and is how a closed connection is noticed). A reconnecting client sends `Last-Event-ID` (or the
`last_event_id` query parameter, for clients that cannot set headers) and gets every event after it, in order,
each once (api/event_fanout.py). Anonymous callers get the free tier's types, a key its effective tier's;
`alert.triggered` goes only to the agent it names in `audience`.

Open streams per caller (the agent, or the address without a key) are limited by tier (settings
`sse_connections_*`: free 2, premium 10, institutional 50), counted in Redis so the limit holds across workers
and instances; one more is a 429 whose `Retry-After` is when the oldest slot would lapse. Each stream holds a
slot in a sorted set with an expiry the heartbeat pushes forward; closing frees it at once, and a stream whose
process died lapses within three heartbeats instead of holding its slot for ever (as a bare counter would)."""
from __future__ import annotations

import contextlib
import math
import time
import uuid
from datetime import timedelta

from falcon.asgi import SSEvent
from redis.asyncio import Redis
from redis.exceptions import RedisError

from api import response_docs_routes as r
from api.errors import APIError, invalid, tier_required
from api.event_fanout import EventFanout, ReaderUnavailable, RedisGate, StreamEvent
from api.schemas import EventStreamQuery
from api.spec import Documented, api_spec
from intel.events.types import EVENT_TYPES, OWNER_ONLY, TIERS, types_for
from warehouse import keys
from warehouse.events import seq_of
from warehouse.events_async import AsyncEventLog

RETRY_AFTER_UNAVAILABLE_S = 2  # Redis unreachable: a restart is usually over within seconds
USAGE_WINDOW_S = 86_400  # status: events of the last 24 hours of the market clock
SLOTS_PREFIX = keys.SSE_SLOTS
ALL_SLOTS = f"{SLOTS_PREFIX}:all"

# KEYS: the caller's slots, everyone's; ARGV: now, expiry, limit, member. {1} taken, else {0, oldest expiry}.
TAKE_SLOT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return {0, redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]}
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(ARGV[2])))
return {1}
"""


def caller_slots(caller_id: str) -> str:
    return f"{SLOTS_PREFIX}:caller:{caller_id}"


class ConnectionSlots:
    """Open streams per caller, in Redis: a sorted set of connection ids scored by when each lapses."""

    def __init__(self, redis: Redis, limits: dict[str, int], heartbeat_s: float, gate: RedisGate):
        self.redis, self.limits, self.heartbeat_s, self.gate = redis, limits, heartbeat_s, gate
        self.lease_s = 3 * heartbeat_s  # a live stream refreshes its slot every heartbeat
        self._take = redis.register_script(TAKE_SLOT)

    async def take(self, caller_id: str, tier: str) -> str:
        """A slot for a new stream (its member id); 429 when the caller has `limits[tier]` open."""
        member, now = f"{caller_id}:{uuid.uuid4().hex}", time.time()
        async with self.gate():
            taken = await self._take(keys=[caller_slots(caller_id), ALL_SLOTS],
                                     args=[now, now + self.lease_s, self.limits[tier], member])
        if taken[0] == 1:
            return member
        retry_after = max(1, math.ceil(float(taken[1]) - now))
        raise APIError(429, "too_many_streams",
                       f"At most {self.limits[tier]} open event streams per caller at the {tier} tier; close one "
                       "or upgrade.", headers={"Retry-After": str(retry_after)}, retry_after_seconds=retry_after,
                       limit=self.limits[tier], tier=tier)

    async def refresh(self, caller_id: str, member: str) -> None:
        expiry = time.time() + self.lease_s
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(caller_slots(caller_id), {member: expiry}, xx=True)
        pipe.zadd(ALL_SLOTS, {member: expiry}, xx=True)
        pipe.expireat(caller_slots(caller_id), math.ceil(expiry))
        async with self.gate():
            await pipe.execute()

    async def give_back(self, caller_id: str, member: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(caller_slots(caller_id), member)
        pipe.zrem(ALL_SLOTS, member)
        async with self.gate():
            await pipe.execute()

    async def open_count(self, caller_id: str | None = None) -> int:
        """Streams open now: the caller's, or everyone's."""
        return await self.redis.zcount(caller_slots(caller_id) if caller_id else ALL_SLOTS, f"({time.time()}", "+inf")


def chosen_types(types: str | None, tier: str) -> frozenset[str]:
    """The types a stream sends: those asked for (all the tier allows when none); 422 for an unknown name, 403
    for a type above the tier, naming the tier it needs."""
    if not types:
        return frozenset(types_for(tier))
    names = [name.strip() for name in types.split(",") if name.strip()]
    unknown = [name for name in names if name not in EVENT_TYPES]
    if unknown:
        raise invalid(["query", "types"], f"unknown event type(s): {', '.join(unknown)}; known types: "
                      f"{', '.join(EVENT_TYPES)}")
    above = {name: EVENT_TYPES[name].min_tier for name in names if not EVENT_TYPES[name].allowed_for(tier)}
    if above:
        needed = max(above.values(), key=TIERS.index)
        raise tier_required(f"{', '.join(above)} need(s) the {needed} tier; this caller is {tier}.", tier, needed,
                            types=above)
    return frozenset(names)


def resume_point(req) -> int | None:
    """The seq after which to resume: `Last-Event-ID`, else the `last_event_id` parameter; 422 when malformed."""
    given = req.get_header("Last-Event-ID") or req.get_param("last_event_id")
    if not given:
        return None
    try:
        return seq_of(given.strip())
    except ValueError:
        raise invalid(["header", "Last-Event-ID"], "an event id is `<seq>-0`, as sent in the stream's `id:`",
                      "value_error.event_id") from None


def receives(types: frozenset[str], agent_id: str | None):
    """Whether a stream with these types, for this agent (None: anonymous), is sent an event."""
    def wants(event: StreamEvent) -> bool:
        if event.type not in types:
            return False
        if event.type in OWNER_ONLY or event.audience is not None:  # addressed to one agent: to it alone
            return agent_id is not None and event.audience == agent_id
        return True
    return wants


class EventStreamResource:
    public = True  # no key needed: the free tier's types

    def __init__(self, fanout: EventFanout, slots: ConnectionSlots, heartbeat_s: float, retry_ms: int):
        self.fanout, self.slots, self.heartbeat_s, self.retry_ms = fanout, slots, heartbeat_s, retry_ms

    @api_spec.validate(query=EventStreamQuery, tags=["events"],
                       resp=Documented("HTTP_200", "HTTP_403", "HTTP_422", "HTTP_429", "HTTP_503"))
    async def on_get(self, req, resp):
        """The live event stream (`text/event-stream`). The first message is `retry: <ms>` with the comment
        `: connected`; then each event is one message, `id: <seq>-0` and `data: <the event as JSON>` (id, type,
        urgency, occurred_at on the market clock, data_as_of, summary, figures with their module and field,
        simulated, data_source); an idle stream gets a `: ping` comment every heartbeat (15 s by default).

        Which events: `types` (comma-separated), else every type your tier may receive (anonymous callers: the
        free tier's). An unknown type is 422 with the known list; a type above your tier is 403 naming the tier
        it needs. `alert.triggered` reaches the alert's owner only. Resuming: send `Last-Event-ID` (or
        `last_event_id`) with the last id you received: every later event is sent once, in order, from the
        stream or, when it no longer holds them (trimmed, or Redis restarted), from the durable copy in SQL.
        Open streams per caller (agent, or address without a key): free 2, premium 10, institutional 50
        (settings); one more is 429 with Retry-After. A client that cannot keep up (1,000 events queued) is
        disconnected and resumes with Last-Event-ID. 503 while the event store is unreachable."""
        agent = req.context.agent
        tier = agent["tier"] if agent else "free"
        wants = receives(chosen_types(req.get_param("types"), tier), agent["agent_id"] if agent else None)
        after = resume_point(req)
        caller_id = req.context.payer.caller_id
        try:
            member = await self.slots.take(caller_id, tier)
        except RedisError:
            raise APIError(503, "events_unavailable", "The event stream's store is unreachable; retry shortly.",
                           headers={"Retry-After": str(RETRY_AFTER_UNAVAILABLE_S)},
                           retry_after_seconds=RETRY_AFTER_UNAVAILABLE_S) from None
        resp.set_header("Cache-Control", "no-cache")
        resp.set_header("X-Accel-Buffering", "no")  # nginx: pass each event on at once
        resp.sse = self._events(after, wants, caller_id, member)

    async def _events(self, after, wants, caller_id: str, member: str):
        followed = subscription = None
        try:
            # subscribed before `connected` is sent: a client without Last-Event-ID gets everything after it
            subscription = await self.fanout.subscribe()
            # and the resume point resolved: what is appended once the client reads `connected` is sent to it
            after = await self.fanout.start(subscription, after)
            followed = self.fanout.follow(subscription, after, wants, self.heartbeat_s)
            yield SSEvent(retry=self.retry_ms, comment="connected")
            async for event in followed:
                if event is None:
                    with contextlib.suppress(RedisError):  # Redis away: the reader reconnects, the stream waits
                        await self.slots.refresh(caller_id, member)
                    yield SSEvent(comment="ping")
                else:
                    # no `event:` name: EventSource's `onmessage` only sees unnamed events; the type is in data
                    yield SSEvent(data=event.data, event_id=event.id)
        except ReaderUnavailable:
            return  # Redis unreachable: the client reconnects after `retry`
        finally:
            if followed is not None:
                await followed.aclose()
            if subscription is not None:  # (a generator closed before it started runs no `finally`)
                self.fanout.unsubscribe(subscription[0])
            with contextlib.suppress(RedisError):  # unreachable: the slot lapses on its own
                await self.slots.give_back(caller_id, member)


class EventStatusResource:
    public = True

    def __init__(self, log: AsyncEventLog, slots: ConnectionSlots, clock):
        self.log, self.slots, self.clock = log, slots, clock

    @api_spec.validate(tags=["events"], resp=Documented(HTTP_200=r.EventStatus))
    async def on_get(self, req, resp):
        """The event types the caller may receive (anonymous: the free tier's), open streams in total, events in
        the last 24 hours of the market clock by type (from the event log), and with a key the agent's own open
        streams and limit."""
        agent = req.context.agent
        tier = agent["tier"] if agent else "free"
        counts = await self.log.counts_by_type(self.clock.now() - timedelta(seconds=USAGE_WINDOW_S))
        body = {"tier": tier, "available_types": types_for(tier),
                "active_connections": await self.slots.open_count(),
                "usage": {"window_hours": USAGE_WINDOW_S // 3600, "events_by_type": counts,
                          "events": sum(counts.values())},
                "stream": {"path": "/api/v1/events/stream", "heartbeat_s": self.slots.heartbeat_s,
                           "connection_limits": self.slots.limits}}
        if agent:
            body["your_connections"] = await self.slots.open_count(req.context.payer.caller_id)
        resp.media = body
