"""What both passes of bench/serve.py share: gunicorn started with the argv `marketintel up` uses, the rows'
loads measured with the CPU each side used, and the servers behind the paid and bare rows."""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil

from bench.loadgen import lead_s, run
from marketintel.redis_server import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parents[1]
CLI = str(Path(sys.executable).parent / "marketintel")
WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "8"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "16"))
MODULE = "/api/v1/intelligence/market_intelligence"
RERUNS = 2  # of a load whose connections all but missed a worker


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


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, 15)
    process.wait(30)


def spread(port: int, path: str, headers: dict | None, seconds: float) -> dict:
    """`run` with the load's connections counted per server process a second into the load: accept() hands a burst of
    new connections to whichever worker wakes first, so a run can end up served by one worker alone (about
    half the throughput); the count says when that happened."""
    counts: dict[int, int] = {}

    def sample() -> None:
        time.sleep(lead_s() + min(1.0, seconds / 2))
        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_ESTABLISHED and conn.pid:
                counts[conn.pid] = counts.get(conn.pid, 0) + 1

    sampler = threading.Thread(target=sample)
    sampler.start()
    result = run("127.0.0.1", port, path, headers, CONNECTIONS, seconds)
    sampler.join()
    return {**result, "per_worker": sorted(counts.values(), reverse=True)}


def measure(port: int, path: str, headers: dict | None, master_pid: int) -> dict:
    """One row: the load, and the cores used meanwhile by the generator, the server's workers and all the rest
    of the machine (other processes, ours or not). wrk opens each thread's connections in one burst, so now
    and then (about 1 run in 25 here) a worker gets none or one of them: such a load is run again, at most
    RERUNS times, and `reruns` says so."""
    workers = psutil.Process(master_pid).children()
    for attempt in range(RERUNS + 1):
        server, machine, started = _cpu(workers), _busy(), time.perf_counter()
        result = spread(port, path, headers, SECONDS)
        wall = time.perf_counter() - started - lead_s()  # the Python generator starts late
        gen, srv, busy = result["generator_cpu_s"] / wall, (_cpu(workers) - server) / wall, (_busy() - machine) / wall
        result.update(generator_cores=gen, server_cores=srv, other_cores=max(0.0, busy - gen - srv), reruns=attempt)
        fewest = min(result["per_worker"]) if len(result["per_worker"]) >= WORKERS else 0
        if fewest >= CONNECTIONS / WORKERS / 4:
            break
    return result


def _cpu(processes: list[psutil.Process]) -> float:
    return sum(sum(p.cpu_times()[:2]) for p in processes)


def _busy() -> float:
    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq + t.steal


def api_rows(port: int, master_pid: int) -> dict[str, dict]:
    """The free rows against a running API: the cached module keyed (within a huge free allowance) and
    anonymous, the pulse and the catalog preview."""
    key = httpx.post(f"http://127.0.0.1:{port}/api/v1/agents/register", json={"name": "bench"}).json()["api_key"]
    run("127.0.0.1", port, MODULE, {"X-API-Key": key}, CONNECTIONS, 1.0)  # warm-up
    return {"keyed": measure(port, MODULE, {"X-API-Key": key}, master_pid),
            "anonymous": measure(port, MODULE, None, master_pid),
            "pulse": measure(port, "/api/v1/pulse", None, master_pid),
            "preview": measure(port, "/api/v1/catalog/preview", None, master_pid)}


def paid_row(env: dict, database_url: str | None = None) -> dict:
    """The cached module with no free allowance: every query is debited from the balance in SQL (the SQLite
    ledger under MI_HOME, or `database_url`, migrated first)."""
    env = {**env, "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "0"}
    if database_url:
        env["MI_DATABASE_URL"] = database_url
        subprocess.run([CLI, "migrate"], env=env, check=True, capture_output=True)
    port = free_port()
    api = gunicorn("api.asgi:app", port, env)
    try:
        key = funded_key(f"http://127.0.0.1:{port}", 10_000_000, Path(env["MI_HOME"]))
        run("127.0.0.1", port, MODULE, {"X-API-Key": key}, CONNECTIONS, 1.0)  # warm-up
        return measure(port, MODULE, {"X-API-Key": key}, api.pid)
    finally:
        stop(api)


def bare_rows(env: dict) -> dict[str, dict]:
    """The bare route, and the bare route after one Redis round trip (env's MI_REDIS_URL)."""
    port = free_port()
    server = gunicorn("bench.bare_app:app", port, env)
    try:
        run("127.0.0.1", port, "/bare", None, CONNECTIONS, 1.0)
        return {"bare": measure(port, "/bare", None, server.pid),
                "bare_redis": measure(port, "/bare/redis", None, server.pid)}
    finally:
        stop(server)


def funded_key(base: str, sats: int, home: Path) -> str:
    """Register an agent and top it up over the dev Lightning node (its state is under `home`), as an agent would."""
    from marketintel.lightning.factory import make_backend
    from marketintel.settings import Settings

    key = httpx.post(f"{base}/api/v1/agents/register", json={"name": "bench-paid"}).json()["api_key"]
    headers = {"X-API-Key": key}
    inv = httpx.post(f"{base}/api/v1/payments/create-invoice", json={"amount_sats": sats}, headers=headers).json()
    preimage = make_backend(Settings(home=home)).pay(inv["payment_request"])
    top = httpx.post(f"{base}/api/v1/agents/topup", headers=headers,
                     json={"payment_hash": inv["payment_hash"], "preimage": preimage})
    top.raise_for_status()
    return key


def route_latencies(port: int, key: str, routes: tuple[str, ...], requests: int) -> dict[str, dict]:
    """Per route, one request at a time with the key: p50 and p95 in ms over `requests` calls after a warm-up, and
    the answer's size."""
    out = {}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"X-API-Key": key}, timeout=30) as client:
        for path in routes:
            assert client.get(path).status_code == 200, path
            samples = []
            for _ in range(requests):
                t = time.perf_counter()
                resp = client.get(path)
                samples.append((time.perf_counter() - t) * 1000)
                assert resp.status_code == 200
            samples.sort()
            out[path] = {"p50_ms": round(statistics.median(samples), 2),
                         "p95_ms": round(samples[int(0.95 * len(samples)) - 1], 2), "bytes": len(resp.content)}
    return out


@contextmanager
def bench_home(prefix: str, settings_env: dict, dagster: bool = False) -> Iterator[tuple[Path, dict]]:
    """A throwaway MI_HOME with an embedded Redis of its own: (the home, the environment for the service's
    processes: `settings_env`, the home, the Redis, DAGSTER_HOME when `dagster`); both gone afterwards."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    redis_server = EmbeddedRedis(free_port(), home / "redis").start()
    env = {**os.environ, **settings_env, "MI_HOME": str(home), "MI_REDIS_URL": redis_server.url,
           "PYTHONPATH": str(ROOT)}
    if dagster:
        env["DAGSTER_HOME"] = str(home / "dagster")
        (home / "dagster").mkdir(parents=True)
    try:
        yield home, env
    finally:
        redis_server.stop()
        shutil.rmtree(home, ignore_errors=True)
