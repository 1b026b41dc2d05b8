"""Serving throughput: a cached module over the real gunicorn set-up, free (within an allowance) and paid (no
allowance: each query debited from the balance in SQL), beside the pulse and a bare Falcon route under the
same server settings. Run: `.venv/bin/python bench/serve.py` (about a minute; loopback only)."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

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
            workers_settled(process.pid)
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError(f"{app} did not start")


def workers_settled(master_pid: int, timeout_s: float = 30.0) -> None:
    """Wait until every worker has finished booting (all of them idle), so that no run starts while one is
    still importing and the other takes every connection."""
    master, deadline = psutil.Process(master_pid), time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        children = master.children()
        if len(children) >= WORKERS:
            before = [sum(c.cpu_times()[:2]) for c in children]
            time.sleep(0.3)
            if all(sum(c.cpu_times()[:2]) - b < 0.03 for c, b in zip(children, before)):
                return
        else:
            time.sleep(0.1)
    raise RuntimeError("the workers did not settle")


def spread(port: int, path: str, headers: dict | None, seconds: float) -> dict:
    """`run` with the load's connections counted per server process a second in: accept() hands a burst of
    new connections to whichever worker wakes first, so a run can end up served by one worker alone (about
    half the throughput); the count says when that happened."""
    counts: dict[int, int] = {}

    def sample() -> None:
        time.sleep(min(1.0, seconds / 2))
        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_ESTABLISHED and conn.pid:
                counts[conn.pid] = counts.get(conn.pid, 0) + 1

    sampler = threading.Thread(target=sample)
    sampler.start()
    result = run("127.0.0.1", port, path, headers, CONNECTIONS, seconds)
    sampler.join()
    return {**result, "per_worker": sorted(counts.values(), reverse=True)}


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
            module = spread(port, path, {"X-API-Key": key}, SECONDS)
            anonymous = spread(port, path, None, SECONDS)
            pulse = spread(port, "/api/v1/pulse", None, SECONDS)
        finally:
            stop(api)
        # the same route with no free allowance: every query is debited from the balance in SQL
        port = free_port()
        api = gunicorn("api.asgi:app", port, {**env, "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "0"})
        try:
            key = funded_key(f"http://127.0.0.1:{port}", 10_000_000)
            run("127.0.0.1", port, path, {"X-API-Key": key}, CONNECTIONS, 1.0)  # warm-up
            paid = spread(port, path, {"X-API-Key": key}, SECONDS)
        finally:
            stop(api)
        port = free_port()
        bare_server = gunicorn("bench.bare_app:app", port, env)
        try:
            run("127.0.0.1", port, "/bare", None, CONNECTIONS, 1.0)
            bare = spread(port, "/bare", None, SECONDS)
        finally:
            stop(bare_server)
    finally:
        redis_server.stop()
    print(f"gunicorn + uvicorn workers: {WORKERS}, connections: {CONNECTIONS}, {SECONDS:.0f} s each, loopback, "
          f"{os.cpu_count()} cores shared with the load generator")
    print(f"{'route':<44}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}  {'conns/worker':<14}statuses")
    rows = (("cached module (market_intelligence, keyed)", module),
            ("paid query (same module, debit in SQL)", paid), ("cached module, anonymous", anonymous),
            ("pulse (free, one Redis read)", pulse), ("bare Falcon route", bare))
    for name, r in rows:
        per_worker = "/".join(map(str, r["per_worker"]))
        print(f"{name:<44}{r['rps']:>10.0f}{r['p50_ms']:>10.2f}{r['p99_ms']:>10.2f}  {per_worker:<14}{r['statuses']}")
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
