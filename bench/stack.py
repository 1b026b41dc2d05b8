"""The bench's second pass: the same rows while the whole `make run` stack is up.

`marketintel up` (the real CLI) runs in the background on a temporary MI_HOME with its own embedded Redis,
API, RQ worker and Dagster daemon and webserver, on ports of its own. The free rows are measured against its
API; the paid gunicorns (its SQLite ledger, and a PostgreSQL database) and the bare one run beside it on the
same Redis, so every row is measured while the rest of the service is running."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import psutil

from bench.harness import CLI, WORKERS, api_rows, bare_rows, paid_row, workers_settled
from marketintel.postgres_cluster import create_database
from marketintel.redis_server import free_port

START_TIMEOUT_S = 600  # migration and the first materialization come first


@contextlib.contextmanager
def running_stack(base_env: dict, workers: int = WORKERS):
    """`marketintel up` on a temporary home, answering: (its environment, its processes by role, its ports)."""
    folder = Path(tempfile.mkdtemp(prefix="mi-bench-stack-"))
    home = folder / "home"
    api_port, dagster_port, redis_port = free_port(), free_port(), free_port()
    env = {k: v for k, v in base_env.items() if not k.startswith("DAGSTER_") and k != "MI_REDIS_URL"}
    env.update(MI_HOME=str(home), MI_API_PORT=str(api_port), MI_API_WORKERS=str(workers),
               MI_DAGSTER_PORT=str(dagster_port), MI_REDIS_PORT=str(redis_port))
    log = (folder / "up.log").open("w")
    started = time.perf_counter()
    up = subprocess.Popen([CLI, "up"], env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                          start_new_session=True)
    try:
        _answering(f"http://127.0.0.1:{api_port}/", up, folder)
        _answering(f"http://127.0.0.1:{dagster_port}/server_info", up, folder)
        processes = _supervised(up)
        workers_settled(processes["api"].pid)
        print(f"stack up in {time.perf_counter() - started:.0f} s: "
              + ", ".join(f"{name} (pid {p.pid})" for name, p in processes.items()), flush=True)
        yield env, processes, {"api": api_port, "dagster": dagster_port, "redis": redis_port, "up": up,
                               "folder": folder}
        if up.poll() is not None:
            raise RuntimeError(f"`marketintel up` stopped during the pass (code {up.returncode}); see {folder}/up.log")
    finally:
        os.killpg(up.pid, signal.SIGTERM)  # `up` stops its children, then its Redis
        try:
            up.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(up.pid, signal.SIGKILL)
            up.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


def stack_pass(base_env: dict, pg_admin_url: str | None) -> dict:
    with running_stack(base_env) as (env, processes, ports):
        rows = api_rows(ports["api"], processes["api"].pid)
        beside = {**env, "MI_REDIS_URL": f"redis://127.0.0.1:{ports['redis']}/0"}
        rows["paid_sqlite"] = paid_row(beside)
        rows["paid_postgresql"] = paid_row(beside, create_database(pg_admin_url)) if pg_admin_url else None
        rows.update(bare_rows(beside))
        return rows


def _answering(url: str, up: subprocess.Popen, folder: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if up.poll() is not None:
            raise RuntimeError(f"`marketintel up` exited with code {up.returncode}:\n"
                               + (folder / "up.log").read_text()[-3000:])
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {START_TIMEOUT_S} s")


def _supervised(up: subprocess.Popen) -> dict[str, psutil.Process]:
    """The supervisor's children by role (the API's is the gunicorn master)."""
    roles = {"api": "gunicorn", "rq worker": "jobs.worker", "dagster daemon": "dagster-daemon",
             "dagster webserver": "dagster-webserver"}
    found = {}
    for child in psutil.Process(up.pid).children():
        cmdline = " ".join(child.cmdline())
        for role, marker in roles.items():
            if marker in cmdline:
                found[role] = child
    missing = set(roles) - set(found)
    if missing:
        raise RuntimeError(f"`marketintel up` is not running {', '.join(sorted(missing))}")
    return found
