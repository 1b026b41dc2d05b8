"""Foresight figures: seconds of the regime, parallels, predictions and prediction_resolutions assets over 16
years of simulated history (each materialized alone after the ingest, the regime's first run labelling every
day), the back-test's wall time over 2005-2024 of the real history (`marketintel backtest`, into the SQL chain),
and p50 / p95 latency of the cached parallels, predictions?limit=200 and accuracy over the real gunicorn server.

Run: `.venv/bin/python bench/foresight.py` (about two minutes; loopback only). BENCH_REQUESTS (200) per route;
BENCH_HISTORY (../shared/data/history) for the back-test, which is skipped, saying so, where it is absent."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.harness import CLI, gunicorn, route_latencies, stop  # noqa: E402
from marketintel.redis_server import EmbeddedRedis, free_port  # noqa: E402

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))
HISTORY = Path(os.environ.get("BENCH_HISTORY", ROOT / ".." / "shared" / "data" / "history")).resolve()
ROUTES = ("/api/v1/intelligence/parallels", "/api/v1/predictions?limit=200&origin=backtest",
          "/api/v1/predictions/accuracy")
GENEROUS = {"MI_SOURCE": "sim", "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "100000000",
            "MI_RATE_LIMIT_FREE": "100000000/minute"}


def asset_seconds() -> dict[str, float]:
    from dagster import materialize

    from assets.ingest import observations
    from assets.parallels import parallels
    from assets.predictions import prediction_resolutions, predictions
    from assets.regime import regime
    from assets.resources import MarketResource, RecordsResource, WarehouseResource
    from marketintel.settings import Settings

    settings = Settings()
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                                analyst_path=str(settings.analyst_path.resolve())),
                 "market": MarketResource.from_settings(settings), "ledger": RecordsResource.from_settings(settings)}
    out = {}
    for name, selection in (("ingest (16 years, sim)", [observations]), ("regime (first run)", [regime]),
                            ("regime (next run)", [regime]), ("parallels", [parallels]),
                            ("predictions", [predictions]), ("prediction_resolutions", [prediction_resolutions])):
        t = time.perf_counter()
        assert materialize(selection, resources=resources).success, name
        out[name] = round(time.perf_counter() - t, 2)
    return out


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="mi-bench-foresight-"))
    redis_server = EmbeddedRedis(free_port(), home / "redis").start()
    env = {**os.environ, **GENEROUS, "MI_HOME": str(home), "MI_REDIS_URL": redis_server.url,
           "DAGSTER_HOME": str(home / "dagster"), "PYTHONPATH": str(ROOT)}
    os.environ.update(env)
    (home / "dagster").mkdir(parents=True)
    try:
        subprocess.run([CLI, "migrate"], env=env, check=True)
        for name, seconds in asset_seconds().items():
            print(f"asset {name:<28} {seconds:8.2f} s", flush=True)
        if HISTORY.is_dir():
            from marketintel.backtest import run
            from marketintel.settings import Settings

            figures = run(Settings(), date(2005, 1, 1), date(2024, 12, 31), HISTORY, say=lambda _: None)
            print(f"backtest 2005-01-01..2024-12-31 on {HISTORY}: {figures['predictions']} predictions, "
                  f"{figures['resolutions']} resolutions, {figures['appended']} records appended and signed: "
                  f"{figures['seconds']} s (target < 600 s)", flush=True)
            t = time.perf_counter()
            subprocess.run([CLI, "materialize"], env=env, check=True, capture_output=True)  # publish both origins
            print(f"full materialization after the back-test (listings and accuracy of 150k records rebuilt): "
                  f"{time.perf_counter() - t:.1f} s", flush=True)
        else:
            print(f"backtest: skipped, no history folder at {HISTORY}")
            subprocess.run([CLI, "materialize"], env=env, check=True, capture_output=True)
        port = free_port()
        api = gunicorn("api.asgi:app", port, env)
        try:
            registered = httpx.post(f"http://127.0.0.1:{port}/api/v1/agents/register", json={"name": "bench"})
            key = registered.json()["api_key"]
            for path, figures in route_latencies(port, key, ROUTES, REQUESTS).items():
                print(f"cached {path:<48} p50 {figures['p50_ms']:6.2f} ms  p95 {figures['p95_ms']:6.2f} ms  "
                      f"{figures['bytes']} bytes (target p50 < 20 ms)", flush=True)
        finally:
            stop(api)
    finally:
        redis_server.stop()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
