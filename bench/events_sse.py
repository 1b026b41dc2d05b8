"""SSE fan-out latency: N concurrent stream clients (default 1,000) on one gunicorn instance with 2 workers,
then events appended one at a time with the real event log; for each (client, event), the time from just
before `EventLog.append` to the client reading the event's `data:` line. Prints p50, p99 and the worst.

One process holds the writer and the clients (raw asyncio streams, lighter than an HTTP client library per
connection), so both ends read the same monotonic clock. Each client sends its own `X-Forwarded-For` (the
instance trusts it here), so each is a separate caller within the free tier's connection limit. Its own
embedded Redis, a migrated SQLite ledger in a temporary home; the events are fixtures labelled simulated.

    python -m bench.events_sse [--clients 1000] [--events 5]"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis

from marketintel.redis_server import EmbeddedRedis, free_port
from warehouse.events import EventLog
from warehouse.ledger import make_engine

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2
CONNECT_BATCH = 100  # connections opened at once, below the listen backlog


class Client:
    """One SSE connection; `received[event id]` is when its data line was read."""

    def __init__(self, number: int):
        self.number, self.received = number, {}
        self.connected = asyncio.Event()

    async def run(self, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        address = f"10.{self.number // 65536}.{self.number // 256 % 256}.{self.number % 256}"
        writer.write(f"GET /api/v1/events/stream HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
                     f"X-Forwarded-For: {address}\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"client {self.number}: {status!r}")
        try:
            while line := await reader.readline():
                if line.startswith(b"retry:"):
                    self.connected.set()
                elif line.startswith(b"id:"):
                    self.received[line[3:].strip().decode()] = time.perf_counter()
        finally:
            writer.close()


def start_instance(home: Path, redis_url: str) -> tuple[subprocess.Popen, int]:
    from marketintel.cli import children
    from marketintel.settings import Settings

    env = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_"))}
    env.update(MI_HOME=str(home), MI_REDIS_URL=redis_url, MI_SOURCE="sim", MI_TRUST_FORWARDED_FOR="true",
               PYTHONPATH=str(ROOT))
    subprocess.run([str(Path(sys.executable).parent / "marketintel"), "migrate"], env=env, check=True,
                   capture_output=True)
    port = free_port()
    argv = children(Settings(api_port=port, api_workers=WORKERS))[0].argv
    argv[argv.index("--graceful-timeout") + 1] = "1"  # open streams hold a stop this long
    process = subprocess.Popen(argv + ["--log-level", "warning", "--backlog", "2048"], env=env, cwd=ROOT,
                               start_new_session=True)
    for _ in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process, port
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("gunicorn did not start")


def event(n: int) -> dict:
    return {"type": "market.vix_spike", "urgency": "high", "occurred_at": "2026-11-20T21:00:00+00:00",
            "data_as_of": "2026-11-20", "summary": f"bench event {n}", "figures": [], "simulated": True,
            "data_source": "sim", "audience": None}


async def measure(port: int, log: EventLog, clients: int, events: int) -> tuple[list[float], int]:
    """Latencies (s) of every (client, event) received, and how many were not received within 10 s."""
    group = [Client(n) for n in range(clients)]
    tasks = []
    for start in range(0, clients, CONNECT_BATCH):
        batch = group[start:start + CONNECT_BATCH]
        tasks += [asyncio.create_task(c.run(port)) for c in batch]
        await asyncio.wait_for(asyncio.gather(*(c.connected.wait() for c in batch)), 60)
    print(f"{clients} streams open", flush=True)
    sent = {}
    for n in range(1, events + 1):
        before = time.perf_counter()
        appended = await asyncio.to_thread(log.append, [event(n)])
        sent[appended[0]["id"]] = before
        await asyncio.sleep(1.0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sum(len(c.received) for c in group) < clients * events:
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies = [c.received[i] - t for c in group for i, t in sent.items() if i in c.received]
    return latencies, clients * events - len(latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--events", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mi-bench-sse-"))
    server = EmbeddedRedis(free_port(), folder / "redis").start()
    process = None
    try:
        process, port = start_instance(folder / "home", server.url)
        log = EventLog(make_engine(f"sqlite:///{(folder / 'home' / 'ledger.sqlite').resolve()}"),
                       redis.Redis.from_url(server.url))
        latencies, missing = asyncio.run(measure(port, log, args.clients, args.events))
        cuts = statistics.quantiles(latencies, n=100)
        print(f"{args.clients} SSE clients, 1 instance, {WORKERS} workers, {args.events} events: "
              f"{len(latencies)} receipts, {missing} missing; append-to-receipt p50 {cuts[49] * 1000:.1f} ms, "
              f"p99 {cuts[98] * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms (target p99 < 1000 ms)")
    finally:
        if process is not None:
            process.terminate()
            process.wait(30)
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
