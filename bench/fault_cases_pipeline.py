"""The pipeline's faults, one row each for bench/faults.py's table: what clients saw during the fault (`statuses`,
`p99_ms`), how many seconds after the part returned the service was whole again (`recover_s`), the ledger check
after it (`ledger_ok`: entries sum to each balance, no balance below zero) and a `note` with the figures behind it.

- `worker_killed_mid_ask`: the RQ worker and its work horse SIGKILLed while an ask waits on the model (a local
  chat-completions server holding its answer); the client polls /api/v1/synthesis/result/{id}.
- `work_horse_killed_mid_ask`: the work horse alone SIGKILLed; RQ retries the job.
- `disk_full_warehouse_write`: a refresh run whose files may not grow past half the warehouse (RLIMIT_FSIZE, the
  write refused with EFBIG as a full disk refuses it); clients ask for the pulse and a module meanwhile.
- `live_sources_hanging`: every live source (a local server speaking their protocols) accepts and never answers.

Every row runs on its own throwaway home and Redis (bench/harness.bench_home), simulated data (the live row: the
local server's fixture data), on the real processes: gunicorn, `python -m jobs.worker`, the Dagster `refresh_job`
in a child process. Run alone: `.venv/bin/python bench/fault_cases_pipeline.py` (a few minutes)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psutil  # noqa: E402

from bench.harness import bench_home  # noqa: E402
from tests.e2e.paid_load import migrate, register_and_fund, start_gunicorn, stop  # noqa: E402
from tests.faults.pipeline_helpers import (  # noqa: E402
    FAULT_LIMITS,
    WATCHED,
    Watch,
    ledger_ok,
    materialize_in_child,
    p99,
    poll_until_ended,
    published_metas,
    warehouse_rows,
)

QUESTION = "Is the yield curve inverted, and what does it mean for equities?"


def _ledger(home: Path) -> bool:
    return ledger_ok(f"sqlite:///{home / 'ledger.sqlite'}")


@contextmanager
def _synthesis_stack(prefix: str) -> Iterator[dict]:
    """gunicorn and one RQ worker on a fresh home, every module published (sim), the model a local server; the
    default lease (MI_SYNTHESIS_LEASE_S, 15 s), so the figures are the shipped configuration's."""
    from bench.synthesis import published_payloads
    from marketintel.settings import get_settings
    from tests.chat_server import ChatServer

    with bench_home(prefix, FAULT_LIMITS) as (home, env), ChatServer() as model:
        env.update(MI_SOURCE="sim", MI_LLM_BASE_URL=model.url, MI_LLM_MODEL="local", MI_LLM_API_KEY="local",
                   MI_LLM_TIMEOUT_S="60")
        os.environ.update(MI_HOME=env["MI_HOME"], MI_REDIS_URL=env["MI_REDIS_URL"])  # the dev node that pays
        get_settings.cache_clear()
        migrate(env)
        published_payloads(env["MI_REDIS_URL"])
        api, base = start_gunicorn(env, workers=1)
        stack = {"home": home, "env": env, "base": base, "model": model}
        stack["worker"] = _worker(env)
        try:
            yield stack
        finally:
            stop(api)
            stop(stack["worker"])
            get_settings.cache_clear()


def _worker(env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "jobs.worker"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _ask_in_flight(stack: dict, client: httpx.Client, key: str) -> str:
    stack["model"].delay_s, stack["model"].arrived = 60.0, threading.Event()
    resp = client.post("/api/v1/intelligence/ask/async", json={"question": QUESTION, "depth": "standard"},
                       headers={"X-API-Key": key})
    assert resp.status_code == 202, resp.text
    assert stack["model"].arrived.wait(60), "the job never reached the model"
    return resp.json()["request_id"]


def worker_killed_mid_ask() -> dict:
    with _synthesis_stack("mi-fault-worker-") as stack, httpx.Client(base_url=stack["base"], timeout=30) as client:
        (agent,) = register_and_fund(stack["base"], 1, 1000)
        request_id = _ask_in_flight(stack, client, agent["key"])
        worker = stack["worker"]
        for process in [*psutil.Process(worker.pid).children(), psutil.Process(worker.pid)]:
            process.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        done, statuses, waits = poll_until_ended(client, request_id, agent["key"], deadline_s=120)
        ended_s = time.monotonic() - killed
        refunded = done.status_code == 500 and done.json().get("refunded") is True
        stack["model"].delay_s = 0.0
        restarted = time.monotonic()
        stack["worker"] = _worker(stack["env"])
        again = client.post("/api/v1/intelligence/ask/async", json={"question": QUESTION, "depth": "standard"},
                            headers={"X-API-Key": agent["key"]})
        answer, _, _ = poll_until_ended(client, again.json()["request_id"], agent["key"], deadline_s=120)
        recover_s = time.monotonic() - restarted
        balance = client.get("/api/v1/agents/balance", headers={"X-API-Key": agent["key"]}).json()["balance_sats"]
        return {"fault": "RQ worker SIGKILLed mid-ask", "statuses": dict(statuses), "p99_ms": p99(waits),
                "recover_s": round(recover_s, 2) if answer.status_code == 200 else None,
                "ledger_ok": _ledger(stack["home"]) and balance == 500,
                "note": f"polling client got {done.status_code} synthesis_failed refunded={refunded} "
                        f"{ended_s:.1f} s after the kill (lease 15 s); a restarted worker answered the next ask "
                        f"in {recover_s:.1f} s; balance 1000 - 500 (the answered ask) = {balance}"}


def work_horse_killed_mid_ask() -> dict:
    with _synthesis_stack("mi-fault-horse-") as stack, httpx.Client(base_url=stack["base"], timeout=30) as client:
        (agent,) = register_and_fund(stack["base"], 1, 1000)
        request_id = _ask_in_flight(stack, client, agent["key"])
        horses = psutil.Process(stack["worker"].pid).children()
        stack["model"].delay_s = 0.0  # the retry is answered at once
        for horse in horses:
            horse.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        done, statuses, waits = poll_until_ended(client, request_id, agent["key"], deadline_s=120)
        ended_s = time.monotonic() - killed
        charged = done.json().get("_meta", {}).get("charged_sats")
        return {"fault": "RQ work horse SIGKILLed mid-ask", "statuses": dict(statuses), "p99_ms": p99(waits),
                "recover_s": round(ended_s, 2) if done.status_code == 200 else None,
                "ledger_ok": _ledger(stack["home"]),
                "note": f"RQ retried the job: the polling client got {done.status_code} (charged {charged} sats "
                        f"once) {ended_s:.1f} s after the kill"}


def disk_full_warehouse_write() -> dict:
    with bench_home("mi-fault-disk-", {**FAULT_LIMITS, "MI_SOURCE": "sim"}) as (home, env):
        migrate(env)
        assert materialize_in_child(env)["success"]
        wh = home / "warehouse" / "warehouse.duckdb"
        before = warehouse_rows(wh)
        api, base = start_gunicorn(env, workers=1)
        try:
            with Watch(base, WATCHED) as during:
                full = materialize_in_child(env, file_limit_bytes=wh.stat().st_size // 2)
            after = warehouse_rows(wh)
            recovered = materialize_in_child(env)
        finally:
            stop(api)
        left = sorted(p.name for p in wh.parent.iterdir() if p.name.startswith("."))
        return {"fault": "disk full for the warehouse write", "statuses": dict(during.statuses),
                "p99_ms": during.p99_ms, "recover_s": recovered["wall_s"] if recovered["success"] else None,
                "ledger_ok": _ledger(home),
                "note": f"files capped at half the warehouse (RLIMIT_FSIZE, EFBIG): the run failed at "
                        f"{full['failed_steps']} after {full['wall_s']} s; the DuckDB file opened whole "
                        f"(module_results {before['module_results']} -> {after['module_results']}), temp files "
                        f"left: {left or 'none'}; recover_s is the next run's length once space was back"}


def live_sources_hanging() -> dict:
    from tests.intel.providers.live.protocol_server import FRED_KEY, ProtocolServer

    with bench_home("mi-fault-live-", FAULT_LIMITS) as (home, env), ProtocolServer() as sources:
        env.update(sources.env(), MI_SOURCE="live", MI_LIVE_TIMEOUT_S="0.5", MI_LIVE_RETRIES="0",
                   MI_LIVE_BREAKER_RESET_S="1", MI_FRED_API_KEY=FRED_KEY, MI_LIVE_FRED_API_REQUESTS_PER_MINUTE="100000")
        migrate(env)
        assert materialize_in_child(env)["success"]
        metas = published_metas(env["MI_REDIS_URL"])
        api, base = start_gunicorn(env, workers=1)
        try:
            sources.timeout_sleep_s = 30.0
            sources.faults.update({name: "timeout" for name in ("fred", "treasury", "ecb", "coinbase", "stooq")})
            with Watch(base, WATCHED) as during:
                hung = materialize_in_child(env)
            kept = all(published_metas(env["MI_REDIS_URL"])[n]["as_of"] == metas[n]["as_of"] for n in metas)
            sources.faults.clear()
            time.sleep(1.0)  # the breakers' reset (MI_LIVE_BREAKER_RESET_S)
            recovered = materialize_in_child(env)
        finally:
            stop(api)
        return {"fault": "live data sources hanging", "statuses": dict(during.statuses),
                "p99_ms": during.p99_ms, "recover_s": recovered["wall_s"] if recovered["success"] else None,
                "ledger_ok": _ledger(home),
                "note": f"timeout 0.5 s, no retry, breakers open after 3 failures: the run ended in "
                        f"{hung['wall_s']} s (success={hung['success']}), the last good results kept ({kept}); "
                        f"recover_s is the next run's length once the sources answered"}


PIPELINE_FAULTS = [worker_killed_mid_ask, work_horse_killed_mid_ask, disk_full_warehouse_write, live_sources_hanging]


if __name__ == "__main__":
    for case in PIPELINE_FAULTS:
        print(case(), flush=True)
