"""A webhook receiver on loopback for tests: a real threaded HTTP server that records every request and answers
from a script (status, headers, delay), and the receiver's side of Standard Webhooks: verify, deduplicate."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook


@dataclass
class Answer:
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay_s: float = 0.0
    hold: threading.Event | None = None  # wait for this (the test releases it) before answering


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes


class Receiver:
    """Answers the n-th request with script[n] (the last entry for every later one)."""

    def __init__(self, script: list[Answer] | None = None):
        self.script = script or [Answer()]
        self.received: list[Received] = []
        self.arrived = threading.Event()  # set at each request's arrival, before it is answered
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                receiver.received.append(Received(self.path, dict(self.headers.items()), body))
                answer = receiver.script[min(len(receiver.received), len(receiver.script)) - 1]
                receiver.arrived.set()
                if answer.hold is not None:
                    answer.hold.wait(30)
                time.sleep(answer.delay_s)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self) -> Receiver:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        for answer in self.script:
            if answer.hold is not None:
                answer.hold.set()
        self.server.shutdown()
        self.server.server_close()

    def verified(self, secret: str) -> list[dict]:
        """Every request's payload, each verified with the standardwebhooks verifier (raises on a bad one)."""
        return [Webhook(secret).verify(r.body, r.headers) for r in self.received]

    def unique_ids(self) -> set[str]:
        """What a receiver deduplicating by `webhook-id` keeps."""
        return {r.headers["webhook-id"] for r in self.received}


class WallClock:
    """The ledger's wall clock, moved by the test (signatures still use the real time)."""

    def __init__(self):
        self.at = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, delta: timedelta) -> None:
        self.at += delta


def sample_event(seq: int, type_: str = "market.vix_spike", audience: str | None = None) -> dict:
    """A simulated event as the event log hands it out (with its id)."""
    return {"id": f"{seq}-0", "type": type_, "urgency": "high", "occurred_at": "2026-11-25T12:00:00+00:00",
            "data_as_of": "2026-11-24", "summary": "Simulated: VIX closed at 31.2.",
            "figures": [{"module": "vix", "field": "close", "value": 31.2}], "simulated": True,
            "data_source": "sim", "audience": audience}
