"""Serving throughput over the real gunicorn set-up: a cached module keyed (within a huge free allowance) and
anonymous, the pulse, the catalog preview, a paid query (no allowance: each query debited from the balance in
SQL, on SQLite and on a throwaway PostgreSQL cluster) and a bare Falcon route under the same server settings.
Every row is printed with its ratio to the bare route's throughput measured in the same pass.

Two passes: quiet (only the server under load, on an embedded Redis), then with the whole `make run` stack
up (bench/stack.py), side by side. Each row also says the cores its load took: the load generator
(bench/loadgen.py: wrk where installed), the server's workers and the rest of the machine, which shows
whether the bare route's figure is bounded by the server or by the client.

Run: `make bench` or `.venv/bin/python bench/serve.py` (a few minutes; loopback only). BENCH_SECONDS (8) per
load, BENCH_WORKERS (2), BENCH_CONNECTIONS (16), BENCH_GENERATOR=python for the Python generator."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.harness import CLI, CONNECTIONS, SECONDS, WORKERS, api_rows, bare_rows, gunicorn, paid_row, stop  # noqa: E402
from bench.loadgen import generator  # noqa: E402
from bench.stack import stack_pass  # noqa: E402
from marketintel.postgres_cluster import create_database, throwaway_cluster, unavailable_reason  # noqa: E402
from marketintel.redis_server import EmbeddedRedis, free_port  # noqa: E402

ROWS = (("keyed", "cached module, keyed", 0.30),
        ("anonymous", "cached module, anonymous", 0.30),
        ("pulse", "pulse (one Redis read)", 0.50),
        ("preview", "catalog preview", 0.50),
        ("paid_sqlite", "paid query, debit in SQLite", 0.10),
        ("paid_postgresql", "paid query, debit in PostgreSQL", 0.10),
        ("bare_redis", "bare route + one Redis round trip", None),
        ("bare", "bare Falcon route", None))
GENEROUS = {"MI_SOURCE": "sim", "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "100000000",
            "MI_PULSE_RATE_PER_MINUTE": "100000000", "MI_RATE_LIMIT_FREE": "100000000/minute"}


def quiet_pass(base_env: dict, pg_admin_url: str | None) -> dict:
    home = Path(tempfile.mkdtemp(prefix="mi-bench-"))
    redis_server = EmbeddedRedis(free_port(), home / "redis").start()
    env = {**base_env, "MI_HOME": str(home), "MI_REDIS_URL": redis_server.url, "DAGSTER_HOME": str(home / "dagster")}
    try:
        t = time.perf_counter()
        subprocess.run([CLI, "migrate"], env=env, check=True)
        subprocess.run([CLI, "materialize"], env=env, check=True, stderr=subprocess.DEVNULL)
        print(f"quiet pass set-up (migrate + first materialization): {time.perf_counter() - t:.1f} s", flush=True)
        port = free_port()
        api = gunicorn("api.asgi:app", port, env)
        try:
            rows = api_rows(port, api.pid)
        finally:
            stop(api)
        rows["paid_sqlite"] = paid_row(env)
        rows["paid_postgresql"] = paid_row(env, create_database(pg_admin_url)) if pg_admin_url else None
        rows.update(bare_rows(env))
        return rows
    finally:
        redis_server.stop()
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    print(f"load generator: {generator()}", flush=True)
    base_env = {**os.environ, **GENEROUS, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                                      os.environ.get("PYTHONPATH")]))}
    pg_reason = unavailable_reason()
    with contextlib.ExitStack() as stack:
        pg_admin_url = None if pg_reason else stack.enter_context(throwaway_cluster())
        quiet = quiet_pass(base_env, pg_admin_url)
        loaded = stack_pass(base_env, pg_admin_url)
    report(quiet, loaded, pg_reason)


def report(quiet: dict, loaded: dict, pg_reason: str | None) -> None:
    print(f"\ngunicorn + uvicorn workers: {WORKERS}, connections: {CONNECTIONS}, {SECONDS:.0f} s per load, loopback, "
          f"{os.cpu_count()} cores shared by server, load generator and the rest of the machine")
    print(f"load generator: {generator()}")
    print("quiet: the server alone on an embedded Redis; with stack: `marketintel up` running (API, RQ worker, "
          "Dagster daemon and webserver, Redis), the paid and bare gunicorns beside it on its Redis")
    print("cached module: /api/v1/intelligence/market_intelligence, free within a huge allowance; paid: the same "
          "with no allowance, each query debited from a funded balance")
    print("x bare: the row's req/s over the bare route's in the same pass (* below the issue's target)\n")
    print(f"{'':<44}{'quiet':^34}| {'with stack':^34}|")
    cols = f"{'req/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'x bare':>8}  | "
    print(f"{'route':<44}{cols}{cols}target")
    for key, name, target in ROWS:
        line = f"{name:<44}"
        for rows in (quiet, loaded):
            r, bare = rows[key], rows["bare"]
            if r is None:
                line += f"{'skipped':>32}  | "
                continue
            ratio = r["rps"] / bare["rps"]
            mark = "*" if target and ratio < target else " "
            line += f"{r['rps']:>8.0f}{r['p50_ms']:>8.2f}{r['p99_ms']:>8.2f}{ratio:>7.2f}{mark}  | "
        goal = f">= {target:.2f} x bare" if target else ""
        print(line + goal + ("; p99 < 25 ms" if key == "keyed" else ""))
    if pg_reason:
        print(f"paid query on PostgreSQL skipped: {pg_reason}")
    for label, rows in (("quiet", quiet), ("with stack", loaded)):
        print(f"\n{label}: cores used during each load (generator / server workers / rest of the machine), "
              "connections per worker, statuses")
        for key, name, _ in ROWS:
            r = rows[key]
            if r is None:
                continue
            cores = f"{r['generator_cores']:.2f} / {r['server_cores']:.2f} / {r['other_cores']:.2f}"
            per_worker = "/".join(map(str, r["per_worker"])) + (f" (run {r['reruns'] + 1})" if r["reruns"] else "")
            errors = f" errors {r['errors']}" if r["errors"] else ""
            print(f"  {name:<40}{cores:<22}{per_worker:<16}{r['statuses']}{errors}")
        keyed, anonymous, bare = rows["keyed"], rows["anonymous"], rows["bare"]
        print(f"  keyed / anonymous: {keyed['rps'] / anonymous['rps']:.2f} of the throughput; "
              f"bare route: generator: {bare['generator']}, {bare['generator_cores']:.2f} cores; "
              f"server workers: {bare['server_cores']:.2f} cores")


if __name__ == "__main__":
    main()
