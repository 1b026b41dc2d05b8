"""The SSE stream under real gunicorn (2 workers) on an embedded Redis of its own and a SQLite ledger: an
`httpx-sse` client receives the events the real event log appends, in order; it drops its connection and
resumes with Last-Event-ID without loss or duplicate; the Redis server is stopped, its data lost, and started
again on the same port, and the client, resuming, still receives every event once and in order (those appended
while Redis was down are in SQL: the log writes SQL first). Events here are fixtures, labelled simulated."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest
import redis
from httpx_sse import connect_sse

from marketintel.redis_server import EmbeddedRedis, free_port
from tests.e2e.paid_load import migrate, service_env, start_gunicorn, stop
from warehouse import keys
from warehouse.events import EventLog
from warehouse.ledger import make_engine

pytestmark = pytest.mark.e2e
HEARTBEAT_S = 0.5
STREAM = "/api/v1/events/stream"


def event(n: int) -> dict:
    return {"type": "market.vix_spike", "urgency": "high", "occurred_at": "2026-11-20T21:00:00+00:00",
            "data_as_of": "2026-11-20", "summary": f"event {n}", "figures": [], "simulated": True,
            "data_source": "sim", "audience": None}




class Listener(threading.Thread):
    """An SSE client as a browser's EventSource behaves: on any break it reconnects with the last id it got."""

    def __init__(self, base: str):
        super().__init__(daemon=True)
        self.base, self.received, self.connections = base, [], 0
        self.done, self.response = threading.Event(), None

    @property
    def ids(self) -> list[str]:
        return [e.id for e in self.received]

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=httpx.Timeout(5.0)) as client:
            while not self.done.is_set():
                headers = {"Last-Event-ID": self.ids[-1]} if self.received else {}
                try:
                    with connect_sse(client, "GET", STREAM, headers=headers) as source:
                        source.response.raise_for_status()
                        self.response = source.response
                        for sse in source.iter_sse():
                            if sse.retry:  # the stream's first message: subscribed from here on
                                self.connections += 1
                            if sse.data:
                                self.received.append(sse)
                except (httpx.HTTPError, httpx.StreamError, OSError, RuntimeError):
                    time.sleep(0.2)  # refused, 503 while Redis is away, or a cut connection: try again

    def cut(self) -> None:
        """Break the open connection from outside, as a network cut does."""
        connected = self.connections
        self.response.close()
        while self.connections == connected and not self.done.is_set():
            time.sleep(0.05)  # until it is connected again

    def stopped(self) -> None:
        self.done.set()
        self.response.close()
        self.join(10)

    def wait_for(self, count: int, timeout: float = 20.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.ids


def appended(log: EventLog, numbers) -> None:
    """Append as the scanner does; while Redis is down the SQL commit stands and the stream part raises."""
    try:
        log.append([event(n) for n in numbers])
    except redis.ConnectionError:
        pass


def topped_up(log: EventLog, timeout: float = 20.0) -> None:
    """The writer's retry once Redis answers again: the stream gets what only SQL has."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            log.top_up()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture
def stack(mi_home, tmp_path):
    """Its own Redis (the test restarts it), a migrated ledger, gunicorn with 2 workers, the event log."""
    server = EmbeddedRedis(free_port(), tmp_path / "redis").start()
    env = service_env(mi_home, server.url, None) | {"MI_SSE_HEARTBEAT_S": str(HEARTBEAT_S)}
    migrate(env)
    process, base = start_gunicorn(env, 2, graceful_timeout_s=1)  # an open stream holds a stop that long
    log = EventLog(make_engine(f"sqlite:///{(Path(mi_home) / 'ledger.sqlite').resolve()}"),
                   redis.Redis.from_url(server.url, socket_timeout=2))
    try:
        yield server, base, log
    finally:
        stop(process)
        server.stop()


def connected_with_three_events(base: str, log) -> Listener:
    """A listening client that has received events 1 to 3."""
    listener = Listener(base)
    listener.start()
    while listener.connections == 0:
        time.sleep(0.05)
    appended(log, range(1, 4))
    assert listener.wait_for(3) == ["1-0", "2-0", "3-0"]
    return listener


def test_a_client_receives_in_order_and_resumes_after_a_drop(stack):
    _, base, log = stack
    listener = connected_with_three_events(base, log)
    appended(log, range(4, 6))  # while it is connected ...
    listener.cut()  # (returns once it is connected again)
    appended(log, range(6, 9))  # ... and after it is back
    got = listener.wait_for(8)
    listener.stopped()
    assert got == [f"{n}-0" for n in range(1, 9)] and listener.connections >= 2
    assert [e.json()["summary"] for e in listener.received] == [f"event {n}" for n in range(1, 9)]


@pytest.mark.parametrize("cut", [True, False], ids=["client-reconnects", "connection-held"])
def test_a_client_resumes_exactly_after_redis_restarts_empty(stack, cut):
    """Cut: the client's connection breaks while Redis is down, and it resumes with Last-Event-ID (the replay
    reads SQL). Held: its stream stays open, and the worker's reader catches up from SQL once Redis is back."""
    server, base, log = stack
    listener = connected_with_three_events(base, log)
    server.stop()
    (server.data_dir / "redis.rdb").unlink(missing_ok=True)  # whatever it saved: the stream is lost with it
    appended(log, range(4, 7))  # in SQL only
    cutter = threading.Thread(target=listener.cut if cut else lambda: None)
    cutter.start()
    time.sleep(1)
    server.start()
    cutter.join(20)
    assert log.r.exists(keys.EVENTS_STREAM) == 0
    appended(log, range(7, 9))  # refills the lost stream from SQL, then adds these
    topped_up(log)
    got = listener.wait_for(8)
    listener.stopped()
    assert got == [f"{n}-0" for n in range(1, 9)], got
    assert listener.connections >= 2 if cut else listener.connections == 1
