"""Synthesis figures: quick-ask latency end to end (POST to answer, through gunicorn, the queue and RQ workers, on
the built-in engine) under 10 concurrent asks, p50 and p95 (target p50 < 2 s); content generation time per type,
end to end over the API and in process; and chart render time (what saving a piece's charts adds, per chart).

Run: `.venv/bin/python bench/synthesis.py` (about a minute; loopback only). Every non-ticker module is computed on
simulated data (seed 7) and published as the pipeline publishes it. BENCH_ASK_ROUNDS (5) rounds of
BENCH_CONCURRENCY (10) asks; BENCH_RQ_WORKERS (2) `python -m jobs.worker` processes beside BENCH_WORKERS gunicorn
workers (bench/harness.py)."""
from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.harness import CLI, bench_home, funded_key, gunicorn, stop  # noqa: E402
from marketintel.redis_server import free_port  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ASK_ROUNDS", "5"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "10"))
RQ_WORKERS = int(os.environ.get("BENCH_RQ_WORKERS", "2"))
QUESTION = "Is the yield curve inverted, and what does it mean for equities?"
TICKER = "AAPL"


def published_payloads(redis_url: str) -> tuple[dict, dict, dict]:
    """Every non-ticker module and the chart series on sim data as of the last closed day, published; (payloads,
    metas, products)."""
    import redis

    from intel.content.chart_series import INPUTS as CHART_INPUTS
    from intel.content.chart_series import chart_series_view
    from intel.frames import Frames
    from intel.providers.sim import SimProvider
    from intel.registry import modules
    from intel.sessions import last_closed_day
    from warehouse.cache import ServingCache

    registry, now = modules(), last_closed_day(datetime.now(UTC))
    inputs = sorted({sid for m in registry.values() for sid in m.inputs} | set(CHART_INPUTS))
    frames = Frames.from_long(SimProvider(seed=7).observations(inputs, now - timedelta(days=3700), now), now, "sim")
    payloads = {name: m.compute(frames) for name, m in registry.items() if not m.takes_ticker}
    products = {"chart_series": chart_series_view(frames, now, "sim", True)}
    cache = ServingCache(redis.Redis.from_url(redis_url))
    cache.publish_modules([(n, p, "sim") for n, p in payloads.items()], True, time.time())
    cache.publish_products([(n, p, "sim") for n, p in products.items()], True, time.time())
    metas = {n: {"as_of": str(p.get("as_of")), "data_source": "sim", "simulated": True} for n, p in payloads.items()}
    return payloads, metas, products


async def ask_round(base: str, key: str) -> list[tuple[float, int]]:
    """CONCURRENCY quick asks at once, each followed to its answer; (seconds, first status) each."""
    async with httpx.AsyncClient(base_url=base, headers={"X-API-Key": key}, timeout=120) as client:
        async def one() -> tuple[float, int]:
            began = time.perf_counter()
            resp = await client.post("/api/v1/intelligence/ask", json={"question": QUESTION, "depth": "quick"})
            first = resp.status_code
            while resp.status_code == 202:
                await asyncio.sleep(0.05)
                resp = await client.get(resp.headers["Location"])
            assert resp.status_code == 200, resp.text
            return time.perf_counter() - began, first

        return await asyncio.gather(*(one() for _ in range(CONCURRENCY)))


def content_api_seconds(base: str, key: str) -> dict[str, float]:
    from intel.content.types import content_types

    out = {}
    with httpx.Client(base_url=base, headers={"X-API-Key": key}, timeout=120) as client:
        for type_id, content_type in content_types().items():
            body = {"content_type": type_id, **({"ticker": TICKER} if content_type.needs_ticker else {})}
            began = time.perf_counter()
            resp = client.post("/api/v1/content/generate", json=body)
            while resp.status_code == 202:
                time.sleep(0.05)
                resp = client.get(resp.headers["Location"])
            assert resp.status_code == 200, resp.text
            out[type_id] = time.perf_counter() - began
    return out


def in_process_seconds(payloads: dict, metas: dict, products: dict,
                       folder: Path) -> dict[str, tuple[float, float, int]]:
    """Per type: (seconds without charts, seconds with charts saved, charts drawn)."""
    from intel.content.types import content_types
    from intel.content.writer import generate_piece
    from intel.synthesis.published import SnapshotReader
    from marketintel.chart_files import ChartFiles

    reader, now, out = SnapshotReader(payloads, metas, products), datetime.now(UTC), {}
    for type_id, content_type in content_types().items():
        ticker = TICKER if content_type.needs_ticker else None
        began = time.perf_counter()
        generate_piece(type_id, None, ticker, reader, now, None)
        bare = time.perf_counter() - began
        began = time.perf_counter()
        piece = generate_piece(type_id, None, ticker, reader, now, ChartFiles(folder))
        out[type_id] = (bare, time.perf_counter() - began, len(piece.get("charts", [])))
    return out


def main() -> None:
    with bench_home("mi-bench-synthesis-", {"MI_SOURCE": "sim", "MI_LLM_BASE_URL": ""}) as (home, env):  # built-in
        os.environ.update(env)
        run_bench(home, env)


def run_bench(home: Path, env: dict) -> None:
    workers, api = [], None
    try:
        subprocess.run([CLI, "migrate"], env=env, check=True, capture_output=True)
        payloads, metas, products = published_payloads(env["MI_REDIS_URL"])
        port = free_port()
        api = gunicorn("api.asgi:app", port, env)
        workers = [subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(RQ_WORKERS)]
        base = f"http://127.0.0.1:{port}"
        key = funded_key(base, 10_000_000, home)
        asyncio.run(ask_round(base, key))  # warm-up: imports in the workers, the first reads
        samples = [s for _ in range(ROUNDS) for s in asyncio.run(ask_round(base, key))]
        seconds = sorted(s for s, _ in samples)
        print(f"quick ask, {CONCURRENCY} concurrent, {len(seconds)} asks, {RQ_WORKERS} RQ workers: p50 "
              f"{statistics.median(seconds):.2f} s  p95 {seconds[int(0.95 * len(seconds)) - 1]:.2f} s  "
              f"({sum(1 for _, first in samples if first == 202)} answered 202 first; target p50 < 2 s)", flush=True)
        set_institutional(base, key)
        for type_id, took in content_api_seconds(base, key).items():
            print(f"content {type_id:<28} end to end {took:6.2f} s", flush=True)
        timings = in_process_seconds(payloads, metas, products, home / "bench-charts")
        for type_id, (bare, charted, charts) in timings.items():
            per_chart = (charted - bare) / charts if charts else 0.0
            print(f"content {type_id:<28} in process {bare:6.3f} s; {charts} charts, {per_chart:6.3f} s each to "
                  "render and save", flush=True)
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(15)
        if api is not None:
            stop(api)


def set_institutional(base: str, key: str) -> None:
    """The bench's agent may generate every type: as an operator does it (`marketintel set-tier`)."""
    import redis

    from marketintel.operator import set_tier
    from marketintel.settings import Settings
    from warehouse.ledger import make_engine

    settings = Settings()
    agent = httpx.get(f"{base}/api/v1/agents/me", headers={"X-API-Key": key}).json()
    set_tier(make_engine(settings.sqlalchemy_url), redis.Redis.from_url(settings.effective_redis_url),
             agent["agent_id"], "institutional")


if __name__ == "__main__":
    main()
