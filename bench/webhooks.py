"""Fan-out of one event to 1,000 webhook subscriptions (issue 14's target: the receiver has all 1,000 in under 10 s).

Set-up, all real and local: an embedded Redis, a fresh migrated SQLite ledger, one agent holding 1,000 active
subscriptions to `market.vix_spike` (inserted directly, past the per-tier limit, as only a bench may), each with
its own URL on one loopback receiver (a threaded HTTP server answering 200 at once) and its own secret, and
`--workers` real `python -m jobs.worker` processes. The event is a simulated one (it says so: `simulated: true`).

Timed: from `jobs.webhooks.enqueue_deliveries([event])` (outbox rows, then the batch jobs) until the receiver holds
1,000 requests, and until the outbox has recorded every outcome. Then every request is verified with the
`standardwebhooks` verifier and its subscription's secret; the share verified is printed.
Run: `.venv/bin/python bench/webhooks.py [--workers 2] [--subscriptions 1000]`."""
from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from rq import Worker  # noqa: E402
from standardwebhooks import Webhook  # noqa: E402

from marketintel.redis_server import EmbeddedRedis, free_port  # noqa: E402

EVENT = {"id": "1-0", "type": "market.vix_spike", "urgency": "high", "occurred_at": "2026-11-25T12:00:00+00:00",
         "data_as_of": "2026-11-24", "summary": "Simulated: VIX closed at 31.2, up 42% in a day.",
         "figures": [{"module": "vix", "field": "close", "value": 31.2}], "simulated": True, "data_source": "sim",
         "audience": None}


class LoopbackReceiver:
    """Answers every POST 200 at once and keeps (path, headers, body); `complete` is set at the `expected`-th."""

    def __init__(self, expected: int):
        self.requests: list[tuple[str, dict, bytes]] = []
        self.complete = threading.Event()
        lock, receiver = threading.Lock(), self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()
                with lock:
                    receiver.requests.append((self.path, dict(self.headers.items()), body))
                    if len(receiver.requests) >= expected:
                        receiver.complete.set()

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 1024  # the default backlog of 5 resets a fan-out's concurrent connections
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, n: int) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook/{n}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def subscribe_all(engine, urls: list[str]) -> dict[str, str]:
    """One agent's subscriptions to every URL, inserted past the tier's limit; {URL path: secret}."""
    from warehouse.ledger import Agents
    from warehouse.ledger.tables import webhook_subscriptions
    from warehouse.ledger.webhooks import new_secret

    agent, _ = Agents(engine).register("bench-receiver")
    now = datetime.now(UTC)
    rows = [{"id": "whs_" + secrets.token_hex(12), "agent_id": agent["id"], "event_type": EVENT["type"],
             "callback_url": url, "secret": new_secret(), "created_at": now} for url in urls]
    with engine.begin() as conn:
        conn.execute(webhook_subscriptions.insert(), rows)
    return {"/" + r["callback_url"].split("/", 3)[3]: r["secret"] for r in rows}


def start_workers(count: int, logs: Path, connection: redis.Redis) -> list[subprocess.Popen]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=env,
                                stdout=(logs / f"worker-{n}.log").open("wb"), stderr=subprocess.STDOUT)
               for n in range(count)]
    deadline = time.monotonic() + 60
    while len(Worker.all(connection=connection)) < count:  # registered: listening on the queue
        if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
            raise RuntimeError(f"workers did not start; see {logs}")
        time.sleep(0.1)
    return workers


def stop_workers(workers: list[subprocess.Popen]) -> None:
    for worker in workers:
        worker.terminate()  # RQ's warm shutdown
    for worker in workers:
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(5)


def run(subscriptions: int, worker_count: int, home: Path) -> None:
    redis_server = EmbeddedRedis(free_port(), home / "redis").start()
    workers: list[subprocess.Popen] = []
    receiver = LoopbackReceiver(subscriptions)
    try:
        os.environ.update({"MI_HOME": str(home), "MI_REDIS_URL": redis_server.url, "MI_SOURCE": "sim",
                           "MI_WEBHOOK_ALLOW_PRIVATE": "true"})
        from jobs.webhooks import BATCH_SIZE, CONCURRENCY, enqueue_deliveries
        from marketintel.settings import get_settings
        from warehouse.ledger import make_engine, migrate
        from warehouse.ledger.webhooks import Webhooks

        url = get_settings().sqlalchemy_url
        migrate(url)
        engine = make_engine(url)
        secrets_by_path = subscribe_all(engine, [receiver.url(n) for n in range(subscriptions)])
        workers = start_workers(worker_count, home, redis.Redis.from_url(redis_server.url))

        started = time.perf_counter()
        queued = enqueue_deliveries([EVENT])
        enqueued_s = time.perf_counter() - started
        arrived = receiver.complete.wait(120)
        received_s = time.perf_counter() - started
        hooks = Webhooks(engine)
        while hooks.count_pending() and time.perf_counter() - started < 180:
            time.sleep(0.02)
        recorded_s = time.perf_counter() - started

        verified = sum(1 for path, headers, body in receiver.requests
                       if _verifies(secrets_by_path.get(path), body, headers))
        print(f"subscriptions: {subscriptions}; deliveries queued: {queued} in {enqueued_s:.3f} s "
              f"(jobs of {BATCH_SIZE}, {CONCURRENCY} in flight each; {worker_count} workers)")
        print(f"receiver had all {subscriptions}: {'yes' if arrived else 'NO'} after {received_s:.2f} s "
              f"(target < 10 s); requests received: {len(receiver.requests)}, "
              f"distinct webhook-ids: {len({h['webhook-id'] for _, h, _ in receiver.requests})}")
        print(f"every outcome recorded in the outbox after {recorded_s:.2f} s; still pending: {hooks.count_pending()}")
        print(f"verified with standardwebhooks: {verified}/{len(receiver.requests)} "
              f"({100 * verified / max(len(receiver.requests), 1):.1f}%)")
        engine.dispose()
    finally:
        stop_workers(workers)
        receiver.close()
        redis_server.stop()


def _verifies(secret: str | None, body: bytes, headers: dict) -> bool:
    try:
        Webhook(secret).verify(body, headers)
    except Exception:  # a wrong or missing secret, or a bad signature: not verified
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subscriptions", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-webhooks-") as home:
        run(args.subscriptions, args.workers, Path(home))


if __name__ == "__main__":
    main()
