"""Module history: a Dagster backfill of `module_history` over the real history, then reads of it over the real
server.

`backfill`: writes a warehouse of ../shared/data/history (as a replay's ingest would), publishes its analyst copy,
then runs `history_job` over BENCH_FROM..BENCH_TO (2005-01-03..2025-12-31) as one run, as the single-run backfill
the Dagster UI launches does, recorded in the home's instance (the run shows in the UI). Prints the wall time, the
answers stored and the DuckDB sizes. Target (issue 32): under 30 minutes on this 2-core machine.

`serve`: starts gunicorn on that home and measures, from a client on loopback, `as_of` points of stored days (each
day asked once, so every one is read from the history file, not the Redis cache) and `history` over five years of
daily steps. Targets: p50 < 10 ms and < 300 ms.

Run: `.venv/bin/python bench/history.py backfill` (about half an hour), then `... serve` (a minute). BENCH_HOME
(var/bench/history) keeps the home between the two."""
from __future__ import annotations

import os
import random
import statistics
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HISTORY = ROOT.parent / "shared" / "data" / "history"
HOME = Path(os.environ.get("BENCH_HOME", ROOT / "var" / "bench" / "history")).resolve()
FROM, TO = os.environ.get("BENCH_FROM", "2005-01-03"), os.environ.get("BENCH_TO", "2025-12-31")
CLOCK = "2026-01-05"  # the replay clock's start: after the last backfilled day
ENV = {"MI_HOME": str(HOME), "MI_SOURCE": "replay", "MI_REPLAY_DIR": str(HISTORY), "MI_REPLAY_START": CLOCK,
       "DAGSTER_HOME": str(HOME / "dagster")}


def backfill() -> None:
    os.environ.update(ENV)
    from intel.providers.replay import ReplayProvider
    from marketintel.settings import get_settings
    from pipelines.materialize import backfill_history
    from warehouse.duckdb_store import Warehouse

    settings = get_settings()
    provider, end = ReplayProvider(HISTORY), datetime.fromisoformat(CLOCK).replace(tzinfo=UTC)
    if not settings.analyst_path.exists():
        with Warehouse(settings.warehouse_path) as store:
            store.write_observations(provider.observations(provider.series_ids(), date(1900, 1, 1), end), "replay",
                                     end)
            store.refresh_analyst_copy(settings.analyst_path)
    result = backfill_history(settings, FROM, TO)
    assert result["success"], result
    print(f"backfill {FROM}..{TO}: {result['days']} days, {result['answers']} answers, {result['without_answer']} "
          f"without (history begins later), {result['seconds'] / 60:.1f} min wall with {settings.history_workers} "
          "workers (target < 30 min)")
    print(f"history.duckdb {settings.history_path.stat().st_size / 1e6:.0f} MB, published copy "
          f"{settings.history_copy_path.stat().st_size / 1e6:.0f} MB")


def fund(client, headers: dict, env: dict, sats: int) -> None:
    """A top-up paid through the dev Lightning backend, as `marketintel dev pay` pays it."""
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import Settings

    invoice = client.post("/api/v1/payments/create-invoice", json={"amount_sats": sats}, headers=headers).json()
    preimage = make_backend(Settings(**{k[3:].lower(): v for k, v in env.items() if k.startswith("MI_")})).pay(
        invoice["payment_request"])
    client.post("/api/v1/agents/topup", headers=headers,
                json={"payment_hash": invoice["payment_hash"], "preimage": preimage}).raise_for_status()


def serve() -> None:
    import httpx

    from bench.harness import CLI, gunicorn, stop
    from marketintel.redis_server import EmbeddedRedis, free_port

    redis_server = EmbeddedRedis(free_port(), HOME / "redis").start()
    env = {**os.environ, **ENV, "MI_REDIS_URL": redis_server.url, "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "100000000",
           "MI_RATE_LIMIT_FREE": "100000000/minute"}
    import subprocess

    subprocess.run([CLI, "migrate"], env=env, check=True)
    port = free_port()
    api = gunicorn("api.asgi:app", port, env)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            key = client.post("/api/v1/agents/register", json={"name": "bench"}).json()["api_key"]
            headers = {"X-API-Key": key}
            fund(client, headers, env, 100_000)
            rng = random.Random(5)
            names = ["vix", "yield_curve", "credit_spreads", "fear_greed", "inflation", "liquidity"]
            first = date.fromisoformat(FROM)
            points = []
            for _ in range(200):
                day = first + timedelta(days=rng.randrange((date.fromisoformat(TO) - first).days))
                day -= timedelta(days=max(0, day.weekday() - 4))
                url = f"/api/v1/intelligence/{rng.choice(names)}?as_of={day.isoformat()}"
                started = time.perf_counter()
                response = client.get(url, headers=headers)
                points.append((time.perf_counter() - started) * 1000)
                assert response.status_code in (200, 404), (url, response.status_code, response.text[:300])
            ranges = []
            for name in names * 5:
                start = first + timedelta(days=rng.randrange(365 * 15))
                url = (f"/api/v1/intelligence/{name}/history?from={start.isoformat()}"
                       f"&to={(start + timedelta(days=5 * 365)).isoformat()}&step=day")
                started = time.perf_counter()
                response = client.get(url, headers=headers)
                ranges.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, (url, response.status_code, response.text[:300])
        print(f"as_of point from a stored day, {len(points)} distinct days: p50 {statistics.median(points):.1f} ms, "
              f"p95 {sorted(points)[int(len(points) * 0.95)]:.1f} ms (target p50 < 10 ms)")
        print(f"history, 5 years daily ({len(response.json()['points'])} steps), {len(ranges)} calls: "
              f"p50 {statistics.median(ranges):.0f} ms, p95 {sorted(ranges)[int(len(ranges) * 0.95)]:.0f} ms "
              "(target p50 < 300 ms)")
    finally:
        stop(api)
        redis_server.stop()


if __name__ == "__main__":
    {"backfill": backfill, "serve": serve}[sys.argv[1] if len(sys.argv) > 1 else "backfill"]()
