"""MCP against REST over the real gunicorn server: `tools/call` of a cached module (market_intelligence) beside
GET /api/v1/intelligence/market_intelligence, one call at a time (p50, p95) and under concurrent load (calls per
second, target MCP >= 50% of REST), and `tools/list` p50 for a premium key (73 tools). Both paths serve the same
published copy through the same charging path (the free allowance, set high here so every call is served alike).

Run: `.venv/bin/python bench/mcp.py` (about half a minute; loopback only). BENCH_REQUESTS (200) sequential calls
per path; BENCH_SECONDS (5) and BENCH_CONNECTIONS (16) for the load. The load generator is one Python process on
the same machine: its own CPU bounds both figures alike, so the ratio is the figure to read."""
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

from bench.harness import CLI, bench_home, gunicorn, stop  # noqa: E402
from marketintel.redis_server import free_port  # noqa: E402

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "16"))
MODULE = "market_intelligence"
REST = f"/api/v1/intelligence/{MODULE}"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2025-06-18"}
GENEROUS = {"MI_SOURCE": "sim", "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "100000000",
            "MI_RATE_LIMIT_PREMIUM": "100000000/minute"}


def publish(redis_url: str) -> None:
    """The module computed on sim data and published, as the pipeline's publish step does."""
    import redis

    from intel.frames import Frames
    from intel.providers.sim import SimProvider
    from intel.registry import modules
    from intel.sessions import last_closed_day
    from warehouse.cache import ServingCache

    module, now = modules()[MODULE], last_closed_day(datetime.now(UTC))
    frames = Frames.from_long(SimProvider(seed=7).observations(module.inputs, now - timedelta(days=3700), now),
                              now, "sim")
    ServingCache(redis.Redis.from_url(redis_url)).publish_modules([(MODULE, module.compute(frames), "sim")], True,
                                                                   time.time())


def premium_key(base: str, env: dict) -> str:
    reg = httpx.post(f"{base}/api/v1/agents/register", json={"name": "bench-mcp"}).json()
    subprocess.run([CLI, "set-tier", reg["agent_id"], "premium"], env=env, check=True, capture_output=True)
    return reg["api_key"]


def requests_of(key: str) -> dict[str, tuple[str, str, dict | None]]:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": MODULE, "arguments": {}}}
    return {"REST GET": ("GET", REST, None), "MCP tools/call": ("POST", "/mcp", call),
            "MCP tools/list": ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})}


def headers_for(method: str, key: str) -> dict:
    return {"X-API-Key": key, **(MCP_HEADERS if method == "POST" else {})}


def sequential(base: str, key: str, method: str, path: str, body: dict | None) -> dict:
    samples = []
    with httpx.Client(base_url=base, headers=headers_for(method, key), timeout=30) as client:
        for i in range(REQUESTS + 10):
            t = time.perf_counter()
            resp = client.request(method, path, json=body)
            if i >= 10:  # after a warm-up
                samples.append((time.perf_counter() - t) * 1000)
            assert resp.status_code == 200 and b'"isError":true' not in resp.content, resp.text[:300]
    samples.sort()
    return {"p50_ms": round(statistics.median(samples), 2), "p95_ms": round(samples[int(0.95 * len(samples)) - 1], 2),
            "bytes": len(resp.content)}


async def load(base: str, key: str, method: str, path: str, body: dict | None) -> float:
    """Calls per second over SECONDS with CONNECTIONS connections, each calling one after the other."""
    done = 0
    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
    async with httpx.AsyncClient(base_url=base, headers=headers_for(method, key), limits=limits,
                                 timeout=30) as client:
        deadline = time.perf_counter() + SECONDS

        async def worker():
            nonlocal done
            while time.perf_counter() < deadline:
                resp = await client.request(method, path, json=body)
                assert resp.status_code == 200, resp.text[:300]
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
        return done / (time.perf_counter() - started)


def main() -> None:
    with bench_home("mi-bench-mcp-", GENEROUS) as (_, env):
        subprocess.run([CLI, "migrate"], env=env, check=True, capture_output=True)
        publish(env["MI_REDIS_URL"])
        port = free_port()
        api = gunicorn("api.asgi:app", port, env)
        base = f"http://127.0.0.1:{port}"
        try:
            key = premium_key(base, env)
            rates = {}
            for label, (method, path, body) in requests_of(key).items():
                row = sequential(base, key, method, path, body)
                print(f"{label:<16} p50 {row['p50_ms']:6.2f} ms  p95 {row['p95_ms']:6.2f} ms  {row['bytes']} bytes",
                      flush=True)
                if label != "MCP tools/list":
                    rates[label] = asyncio.run(load(base, key, method, path, body))
                    print(f"{label:<16} {rates[label]:7.0f} calls/s ({CONNECTIONS} connections, {SECONDS:.0f} s)",
                          flush=True)
            ratio = rates["MCP tools/call"] / rates["REST GET"]
            print(f"MCP tools/call throughput = {ratio:.0%} of REST's (target >= 50%)", flush=True)
        finally:
            stop(api)


if __name__ == "__main__":
    main()
