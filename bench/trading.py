"""Trading figures: seconds of the trading_signals asset (after the ingest, on 16 years of simulated history and,
where ../shared/data/history is present, on the real history replayed to the end of 2023), and p50 / p95 latency
of the trading routes (signals cached; the journal and its track record from SQL) and agent consensus over the real
gunicorn server, called by an institutional key that accepted the journal's terms.

Run: `.venv/bin/python bench/trading.py` (about a minute and a half; loopback only). BENCH_REQUESTS (200) per
route. A route is one line of ROUTES: its path, and the query parameters to call it with."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.harness import CLI, bench_home, gunicorn, route_latencies, stop  # noqa: E402
from intel.daytrade import terms  # noqa: E402
from marketintel.redis_server import free_port  # noqa: E402

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))
HISTORY = Path(os.environ.get("BENCH_HISTORY", ROOT / ".." / "shared" / "data" / "history")).resolve()
REPLAY_CLOCK = "2023-12-29"  # every signal input (bitcoin's Coinbase series included) still published then
ROUTES = (  # the trading routes, and agent consensus (computed per request from the usage ledger)
    "/api/v1/trading/signals",
    "/api/v1/trading/signals?strategy=composite&min_edge=0.01",
    "/api/v1/trading/day-trade-ideas?limit=20&track=all",
    "/api/v1/trading/day-trade-ideas/track-record",
    "/api/v1/intelligence/consensus?hours=24",
)
GENEROUS = {"MI_SOURCE": "sim", "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "100000000",
            "MI_RATE_LIMIT_INSTITUTIONAL": "100000000/minute"}


def asset_seconds(label: str) -> dict[str, float]:
    """The ingest, then the signals asset twice (a refresh recomputes the whole back-test each run)."""
    from dagster import materialize

    from assets.ingest import observations
    from assets.resources import MarketResource, WarehouseResource
    from assets.signals import trading_signals_asset
    from marketintel.settings import Settings

    settings = Settings()
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                                analyst_path=str(settings.analyst_path.resolve())),
                 "market": MarketResource.from_settings(settings)}
    out = {}
    for name, selection in ((f"ingest ({label})", [observations]), (f"trading_signals ({label})",
                                                                    [trading_signals_asset]),
                            (f"trading_signals again ({label})", [trading_signals_asset])):
        t = time.perf_counter()
        result = materialize(selection, resources=resources)
        assert result.success, name
        out[name] = round(time.perf_counter() - t, 2)
        if "trading_signals" in name:
            meta = result.asset_materializations_for_node("trading_signals")[0].metadata
            out[f"{name}: back-test compute over {meta['decision_days'].value} decision days"] = \
                meta["compute_seconds"].value
    return out


def replay_seconds(env: dict) -> dict[str, float]:
    """The same on the real history, in a home of its own (a warehouse holds one source's runs at a time)."""
    home = Path(tempfile.mkdtemp(prefix="mi-bench-trading-replay-"))
    saved = dict(os.environ)
    os.environ.update({**env, "MI_HOME": str(home), "MI_SOURCE": "replay", "MI_REPLAY_DIR": str(HISTORY),
                       "MI_REPLAY_START": REPLAY_CLOCK, "MI_CLOCK_SPEED": "0"})
    try:
        return asset_seconds(f"real history replayed to {REPLAY_CLOCK}")
    finally:
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(home, ignore_errors=True)


def institutional_key(port: int, env: dict) -> str:
    """A registered agent given the institutional tier as an operator does it (`marketintel set-tier`), that
    accepted the day-trade journal's terms."""
    base = f"http://127.0.0.1:{port}/api/v1"
    key = httpx.post(f"{base}/agents/register", json={"name": "bench-trading"}).json()["api_key"]
    agent_id = httpx.get(f"{base}/agents/me", headers={"X-API-Key": key}).json()["agent_id"]
    subprocess.run([CLI, "set-tier", agent_id, "institutional"], env=env, check=True, capture_output=True)
    accept = f"{base}/trading/day-trade-ideas/accept-terms"  # the journal's terms, as its readers accept them
    httpx.post(accept, json={"version": terms.current().version}, headers={"X-API-Key": key}).raise_for_status()
    return key


def main() -> None:
    with bench_home("mi-bench-trading-", GENEROUS, dagster=True) as (_, env):
        os.environ.update(env)
        subprocess.run([CLI, "migrate"], env=env, check=True)
        figures = asset_seconds("16 years, sim")
        if HISTORY.is_dir():
            figures.update(replay_seconds(env))
        else:
            print(f"replay: skipped, no history folder at {HISTORY}")
        for name, seconds in figures.items():
            print(f"asset {name:<72} {seconds:8.3f} s", flush=True)
        subprocess.run([CLI, "materialize"], env=env, check=True, capture_output=True)  # publish everything
        port = free_port()
        api = gunicorn("api.asgi:app", port, env)
        try:
            for path, row in route_latencies(port, institutional_key(port, env), ROUTES, REQUESTS).items():
                print(f"route {path:<61} p50 {row['p50_ms']:6.2f} ms  p95 {row['p95_ms']:6.2f} ms  "
                      f"{row['bytes']} bytes (target p50 < 20 ms)", flush=True)
        finally:
            stop(api)


if __name__ == "__main__":
    main()
