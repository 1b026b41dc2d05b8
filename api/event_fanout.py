"""One reader of the event stream per worker process, fanning out to that process's SSE clients.

The reader is an asyncio task on the process's own `redis.asyncio` client, started with the first client: it
blocks on `XREAD` of `mi:events` from the last id it passed on and puts each event into every client's bounded
queue. So a process holds one Redis connection for its streams, not one per client.

- A slow client (its queue full: it does not read its socket) is dropped rather than slowing the others: its
  stream ends after what is already queued, and it resumes with `Last-Event-ID`.
- Redis lost (a restart, a network cut): the reader retries with backoff; once back, it catches up from the
  event log (`since` its last id: SQL when the stream was lost) before it reads the stream again.
- `follow` gives one client every event after its `Last-Event-ID` in log order, each once: it subscribes first,
  replays the log, then takes the live queue, skipping what the replay already gave and filling any hole in the
  ids from SQL (ids are the consecutive SQL sequence, and SQL is written before the stream). An id beyond the
  log's last (one from a ledger since reset) resumes from the log's end rather than waiting for that id."""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import orjson
import redis.asyncio as aioredis

from marketintel.redis_clients import blocking_twin
from warehouse.events import event_id, seq_of
from warehouse.events_async import AsyncEventLog, decoded

log = logging.getLogger(__name__)

QUEUE_SIZE = 1000  # events a client may have waiting before it counts as too slow and is dropped
READ_BATCH = 500  # events per XREAD and per replay page
BLOCK_MS = 2000  # one XREAD waits this long for a new event, then asks again: under redis-py 8's 5 s read timeout
BACKOFF_S = (0.1, 5.0)  # first and longest wait between reconnection attempts
READY_TIMEOUT_S = 1.5  # how long a new client waits for the reader to find its start (Redis down): under the 2 s bound
# Redis calls the streams of one process make at once (connecting, replaying, heartbeats): a burst of clients
# (a reconnect storm after a restart) queues here instead of exhausting the process's Redis pool (redis-py 8:
# 100 connections, then MaxConnectionsError), which the other routes share.
REDIS_CALLS_AT_ONCE = 32


@dataclass(frozen=True)
class StreamEvent:
    """An event as a stream sends it: the fields the filter needs and its JSON, encoded once for all clients."""
    seq: int
    type: str
    audience: str | None
    data: bytes

    @property
    def id(self) -> str:
        return event_id(self.seq)

    @classmethod
    def of(cls, event: dict) -> StreamEvent:
        return cls(seq_of(event["id"]), event["type"], event.get("audience"), orjson.dumps(event))


class Subscriber:
    def __init__(self, capacity: int):
        self.queue: asyncio.Queue[StreamEvent] = asyncio.Queue(maxsize=capacity)
        self.dropped = False  # its queue overflowed: nothing more is put in it


class RedisGate:
    """A semaphore per event loop (tests run one loop per test; a semaphore belongs to one loop)."""

    def __init__(self, limit: int = REDIS_CALLS_AT_ONCE):
        self.limit = limit
        self._by_loop: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def __call__(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._by_loop is None or self._by_loop[0] is not loop:
            self._by_loop = (loop, asyncio.Semaphore(self.limit))
        return self._by_loop[1]


class ReaderUnavailable(Exception):
    """The reader could not find where the log stands (Redis unreachable) within READY_TIMEOUT_S."""


class EventFanout:
    def __init__(self, log_: AsyncEventLog, gate: RedisGate, queue_size: int = QUEUE_SIZE):
        self.log, self.gate = log_, gate
        self.queue_size = queue_size
        self.subscribers: set[Subscriber] = set()
        self.position: int | None = None  # seq of the last event passed on to the subscribers
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = asyncio.Event()
        self._xread: tuple[asyncio.AbstractEventLoop, aioredis.Redis] | None = None  # per loop, as the task

    async def subscribe(self) -> tuple[Subscriber, int]:
        """A new subscriber, collecting every event the reader passes on from now, and the seq it stands at."""
        self._start()
        try:
            await asyncio.wait_for(self._ready.wait(), READY_TIMEOUT_S)
        except TimeoutError:
            raise ReaderUnavailable("the event stream's reader cannot reach Redis") from None
        subscriber = Subscriber(self.queue_size)
        self.subscribers.add(subscriber)
        return subscriber, self.position

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.discard(subscriber)

    async def start(self, subscription: tuple[Subscriber, int], after: int | None) -> int:
        """The seq a stream resumes after: `after`, the subscription's start when None, the log's end when `after`
        is an id this log never issued (a reset ledger?). Resolve it before telling the client it is connected:
        an event appended once the client knows would otherwise be taken for part of the log it skips."""
        subscriber, now = subscription
        if after is not None and after > now:  # ahead of the reader: then from the log's end
            after = min(after, max(now, await self.log.newest_seq_in_sql()))
        return now if after is None else after

    async def follow(self, subscription: tuple[Subscriber, int], after: int | None,
                     wants: Callable[[StreamEvent], bool], heartbeat_s: float) -> AsyncIterator[StreamEvent | None]:
        """Every event after seq `after` (as `start` resolves it) that `wants` accepts, in order, each once; None
        after each `heartbeat_s` without one. Ends when the client was dropped as too slow. Subscribe, and
        resolve `after` with `start`, before telling the client it is connected: what it is sent starts there."""
        subscriber, _ = subscription
        last = await self.start(subscription, after)
        getter: asyncio.Future | None = None
        try:
            async for event in self._replay(last):  # meanwhile the subscription collects what is new
                last = event.seq
                if wants(event):
                    yield event
            while not (subscriber.dropped and subscriber.queue.empty()):
                getter = getter or asyncio.ensure_future(subscriber.queue.get())
                done, _ = await asyncio.wait({getter}, timeout=heartbeat_s)
                if not done:
                    yield None
                    continue
                event, getter = getter.result(), None
                if event.seq <= last:  # the replay gave it already
                    continue
                async for missed in self._replay(last, before=event.seq, from_sql=True):
                    last = missed.seq
                    if wants(missed):
                        yield missed
                last = event.seq
                if wants(event):
                    yield event
        finally:
            if getter is not None:
                getter.cancel()
            self.unsubscribe(subscriber)

    async def _replay(self, after: int, before: int | None = None, from_sql: bool = False):
        """The log after seq `after` (and before `before`), page by page; SQL alone with `from_sql`."""
        while before is None or after + 1 < before:
            async with self.gate():
                if from_sql:
                    page = await self.log.after_in_sql(after, before, limit=READ_BATCH)
                else:
                    page = await self.log.since(event_id(after), limit=READ_BATCH)
            if not page:
                return
            for event in page:
                streamed = StreamEvent.of(event)
                after = streamed.seq
                yield streamed

    def _start(self) -> None:
        """The reader task, once per process (again in a new event loop: tests run one per test)."""
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._loop is loop:
            return
        self._loop, self._ready, self.subscribers, self.position = loop, asyncio.Event(), set(), None
        self._task = loop.create_task(self._read(), name="event-fanout")

    async def _read(self) -> None:
        backoff, lost = BACKOFF_S[0], False
        while True:
            try:
                if self.position is None:
                    self.position = await self.log.newest_seq()
                    self._ready.set()
                if lost:
                    async for event in self._replay(self.position):  # SQL when the stream was lost
                        self._pass_on(event)
                    lost = False
                reply = await self._blocking().xread({self.log.stream: event_id(self.position)}, count=READ_BATCH,
                                                     block=BLOCK_MS)
                for _, entries in reply or []:
                    for entry_id, fields in entries:
                        self._pass_on(StreamEvent.of(decoded(entry_id, fields)))
                backoff = BACKOFF_S[0]
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the reader must outlive anything Redis or the ledger throws at it
                log.warning("event stream reader: %s: %s; retrying in %.1f s", type(exc).__name__, exc, backoff)
                lost = True
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, BACKOFF_S[1])

    def _blocking(self) -> aioredis.Redis:
        """The reader's XREAD client: the request path's read timeout is shorter than BLOCK_MS (a blocked XREAD
        would time out while Redis is only waiting for news), so the reader has a client of its own."""
        if self._xread is None or self._xread[0] is not self._loop:
            self._xread = (self._loop, blocking_twin(self.log.r, BLOCK_MS / 1000))
        return self._xread[1]

    def _pass_on(self, event: StreamEvent) -> None:
        if event.seq <= self.position:
            return
        self.position = event.seq
        for subscriber in list(self.subscribers):
            try:
                subscriber.queue.put_nowait(event)
            except asyncio.QueueFull:  # too slow: drop it rather than hold the others back
                subscriber.dropped = True
                self.unsubscribe(subscriber)

    async def process_shutdown(self, scope, event) -> None:
        """Falcon middleware hook: stop the reader when the server stops."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._xread is not None:
            await self._xread[1].aclose(close_connection_pool=True)
            self._xread = None
