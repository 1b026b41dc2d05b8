"""Serving throughput: a cached module over the real gunicorn set-up, free (within an allowance) and paid (no
allowance: each query debited from the balance in SQL), beside the pulse and a bare Falcon route under the
same server settings. Run: `.venv/bin/python bench/serve.py` (about a minute; loopback only)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.loadgen import run  # noqa: E402
from marketintel.redis_server import EmbeddedRedis, free_port  # noqa: E402

WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "8"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "16"))


def gunicorn(app: str, port: int, env: dict) -> subprocess.Popen:
    from marketintel.cli import children
    from marketintel.settings import Settings

    argv = children(Settings(api_port=port, api_workers=WORKERS))[0].argv  # the exact argv `marketintel up` uses
    argv[argv.index("api.asgi:app")] = app
    argv += ["--log-level", "warning"]
    process = subprocess.Popen(argv, env=env, cwd=ROOT, start_new_session=True)
    for _ in range(200):
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{app} did not start")


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, 15)
    process.wait(30)


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="mi-bench-"))
    redis_server = EmbeddedRedis(free_port(), home / "redis").start()
    env = {**os.environ, "MI_HOME": str(home), "MI_REDIS_URL": redis_server.url, "MI_SOURCE": "sim",
           "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "100000000",
           "MI_PULSE_RATE_PER_MINUTE": "100000000", "MI_RATE_LIMIT_FREE": "100000000/minute",
           "DAGSTER_HOME": str(home / "dagster")}
    os.environ.update(env)
    try:
        t = time.perf_counter()
        subprocess.run([str(Path(sys.executable).parent / "marketintel"), "migrate"], env=env, check=True)
        subprocess.run([str(Path(sys.executable).parent / "marketintel"), "materialize"], env=env, check=True,
                       stderr=subprocess.DEVNULL)
        print(f"set-up (migrate + first materialization): {time.perf_counter() - t:.1f} s")
        port = free_port()
        api = gunicorn("api.asgi:app", port, env)
        try:
            key = httpx.post(f"http://127.0.0.1:{port}/api/v1/agents/register",
                             json={"name": "bench"}).json()["api_key"]
            path = "/api/v1/intelligence/market_intelligence"
            run("127.0.0.1", port, path, {"X-API-Key": key}, CONNECTIONS, 1.0)  # warm-up
            module = run("127.0.0.1", port, path, {"X-API-Key": key}, CONNECTIONS, SECONDS)
            anonymous = run("127.0.0.1", port, path, None, CONNECTIONS, SECONDS)
            pulse = run("127.0.0.1", port, "/api/v1/pulse", None, CONNECTIONS, SECONDS)
        finally:
            stop(api)
        # the same route with no free allowance: every query is debited from the balance in SQL
        port = free_port()
        api = gunicorn("api.asgi:app", port, {**env, "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "0"})
        try:
            key = funded_key(f"http://127.0.0.1:{port}", 10_000_000)
            run("127.0.0.1", port, path, {"X-API-Key": key}, CONNECTIONS, 1.0)  # warm-up
            paid = run("127.0.0.1", port, path, {"X-API-Key": key}, CONNECTIONS, SECONDS)
        finally:
            stop(api)
        port = free_port()
        bare_server = gunicorn("bench.bare_app:app", port, env)
        try:
            run("127.0.0.1", port, "/bare", None, CONNECTIONS, 1.0)
            bare = run("127.0.0.1", port, "/bare", None, CONNECTIONS, SECONDS)
        finally:
            stop(bare_server)
    finally:
        redis_server.stop()
    print(f"gunicorn + uvicorn workers: {WORKERS}, connections: {CONNECTIONS}, {SECONDS:.0f} s each, loopback, "
          f"{os.cpu_count()} cores shared with the load generator")
    print(f"{'route':<44}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}  statuses")
    rows = (("cached module (market_intelligence, keyed)", module),
            ("paid query (same module, debit in SQL)", paid), ("cached module, anonymous", anonymous),
            ("pulse (free, one Redis read)", pulse), ("bare Falcon route", bare))
    for name, r in rows:
        print(f"{name:<44}{r['rps']:>10.0f}{r['p50_ms']:>10.2f}{r['p99_ms']:>10.2f}  {r['statuses']}")
    print(f"ratio cached module / bare route: {module['rps'] / bare['rps']:.2f} of the throughput, "
          f"p50 x{module['p50_ms'] / bare['p50_ms']:.2f}")
    print(f"ratio paid / free cached query: {paid['rps'] / module['rps']:.2f} of the throughput, "
          f"p50 x{paid['p50_ms'] / module['p50_ms']:.2f}")


def funded_key(base: str, sats: int) -> str:
    """Register an agent and top it up over the dev Lightning node, as an agent would."""
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import get_settings

    key = httpx.post(f"{base}/api/v1/agents/register", json={"name": "bench-paid"}).json()["api_key"]
    headers = {"X-API-Key": key}
    inv = httpx.post(f"{base}/api/v1/payments/create-invoice", json={"amount_sats": sats}, headers=headers).json()
    get_settings.cache_clear()
    preimage = make_backend(get_settings()).pay(inv["payment_request"])
    top = httpx.post(f"{base}/api/v1/agents/topup", headers=headers,
                     json={"payment_hash": inv["payment_hash"], "preimage": preimage})
    top.raise_for_status()
    return key


if __name__ == "__main__":
    main()
