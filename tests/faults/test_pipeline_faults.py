"""Faults behind the published data, on real processes: the materialization runs in a child process (the real Dagster
`refresh_job`, tests/faults/pipeline_helpers.py), the API under real gunicorn, clients asking all along.

- The disk of MI_HOME full for the warehouse write: simulated with RLIMIT_FSIZE on any machine, then with a real
  tmpfs too small for the write where mounting is permitted (one test, one recovery after both). The run fails and
  says so (run failure, the ingest report /health/dashboard shows), the DuckDB file stays whole, no half-written file
  is left, the clients keep getting the last published data, and the next run once space returns recovers everything.
- The live data sources hanging (a local server speaking their protocols that never answers in time): the run ends in
  bounded time, the breakers open, the clients keep getting the last published data, and the next run after the
  sources return is fresh again.
- A published copy that outlives its freshness window (the pipeline failing or stopped) is served labelled
  `_meta.cache.stale: true`, and only then.
- The RQ worker SIGKILLed mid-ask (the stack of tests/e2e/test_synthesis_e2e.py: gunicorn, `python -m jobs.worker`, a
  local chat-completions model that holds its answer): the polling client gets a 500 `synthesis_failed` with
  `refunded: true` within the lease, never a 202 forever, refunded exactly once; a new worker answers the next ask."""
from __future__ import annotations

import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import httpx
import orjson
import psutil
import pytest
import redis

from intel.envelope import copy_stale_after
from tests.api.conftest import app, computed_payloads, services  # noqa: F401 (fixtures)
from tests.e2e.paid_load import migrate, register_and_fund, service_env, start_gunicorn, stop
from tests.e2e.test_synthesis_e2e import QUESTION, answered, entries, stack, start_worker  # noqa: F401 (stack)
from tests.faults.pipeline_helpers import (
    FAULT_LIMITS,
    WATCHED,
    Watch,
    ledger_ok,
    materialize_in_child,
    poll_until_ended,
    published_metas,
    warehouse_rows,
)
from tests.intel.providers.live.protocol_server import FRED_KEY, ProtocolServer
from warehouse import keys
from warehouse.cache import ServingCache

pytestmark = pytest.mark.e2e
GOOD_RUN_DB = 13  # a database of the session's Redis that no test's `redis_url` (database 0) flushes


@pytest.fixture(autouse=True)
def generous_limits(monkeypatch):
    """The same budgets for an in-process app (its settings read the environment)."""
    for name, value in FAULT_LIMITS.items():
        monkeypatch.setenv(name, value)


def fault_env(home: Path, redis_url: str) -> dict:
    return {**service_env(home, redis_url, None), **FAULT_LIMITS}


@pytest.fixture(scope="module")
def good_run(tmp_path_factory, redis_server):
    """One good sim materialization (3 years of history) in a child process: its home and its Redis keys."""
    home = tmp_path_factory.mktemp("good-run") / "home"
    home.mkdir()
    url = redis_server.url.rsplit("/", 1)[0] + f"/{GOOD_RUN_DB}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    try:
        env = fault_env(home, url)
        migrate(env)
        out = materialize_in_child(env)
        assert out["success"], out
        dump = {key: client.dump(key) for key in client.scan_iter(count=1000)}
    finally:
        client.flushdb()
        client.close()
    return home, dump


@pytest.fixture
def ran_once(good_run, tmp_path, redis_url):
    """This test's home and Redis as the good run left them, and the environment of its processes."""
    source, dump = good_run
    home = tmp_path / "home"
    shutil.copytree(source, home)
    client = redis.Redis.from_url(redis_url)
    with client.pipeline(transaction=False) as pipe:
        for key, payload in dump.items():
            pipe.restore(key, 0, payload, replace=True)
        pipe.execute()
    client.close()
    return home, fault_env(home, redis_url)


def ingest_report(redis_url: str) -> dict:
    return orjson.loads(redis.Redis.from_url(redis_url).get(keys.STATUS_INGEST))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def assert_served_throughout(watch: Watch) -> None:
    assert watch.statuses and set(watch.statuses) == {200}, watch.statuses
    assert all(body["_meta"]["cache"]["source"] == "redis" for _, body in watch.bodies)


def test_a_full_disk_fails_the_warehouse_write_cleanly_and_the_next_run_recovers(ran_once, tmp_path, redis_url):
    """Two full disks, then one recovery: the file-size limit (EFBIG, any machine), then a real tmpfs too small for
    the run's writes (ENOSPC, where mounting is permitted), each failing cleanly while clients are served."""
    home, env = ran_once
    folder = home / "warehouse"
    wh, analyst = folder / "warehouse.duckdb", folder / "analyst.duckdb"
    rows, analyst_rows, analyst_mtime = warehouse_rows(wh), warehouse_rows(analyst), analyst.stat().st_mtime_ns
    metas = published_metas(redis_url)
    api, base = start_gunicorn(env, workers=1, log=tmp_path / "gunicorn.log")
    mounted = False
    try:
        with Watch(base, WATCHED) as watch:
            # no file may grow past half the warehouse: the analyst copy (a whole copy) cannot be written
            full = materialize_in_child(env, file_limit_bytes=wh.stat().st_size // 2)
        assert not full["success"] and "publish" in full["failed_steps"], full
        assert_served_throughout(watch)
        after = warehouse_rows(wh)  # opens: the file is whole; what the run committed before the failure stays
        assert all(after[t] >= rows[t] for t in rows), (rows, after)
        assert warehouse_rows(analyst) == analyst_rows and analyst.stat().st_mtime_ns == analyst_mtime
        assert leftovers(folder) == []  # the half-written copy is gone, its space given back
        noted = ingest_report(redis_url)["warehouse_error"]
        assert noted["path"] == str(wh) and "too large" in noted["error"].lower(), noted  # EFBIG's message

        used = sum(p.stat().st_size for p in folder.iterdir())
        mounted = tmpfs_under(folder, used + 256 * 1024)  # the files, and a quarter MB for the run's writes
        if mounted:
            rows = warehouse_rows(wh)
            with Watch(base, WATCHED) as watch:
                full = materialize_in_child(env)
            assert not full["success"], full
            assert_served_throughout(watch)
            after = warehouse_rows(wh)  # whole, and nothing it had is lost
            assert all(after[t] >= rows[t] for t in rows), (rows, after)
            assert leftovers(folder) == [], leftovers(folder)
            noted = ingest_report(redis_url)["warehouse_error"]
            assert "space" in noted["error"].lower() or "too large" in noted["error"].lower(), noted
            subprocess.run(["mount", "-o", f"remount,size={used * 4}", str(folder)], check=True)

        with Watch(base, WATCHED) as watch:
            recovered = materialize_in_child(env)  # space is back: the next run, as the schedule would start it
        assert recovered["success"], recovered
        assert_served_throughout(watch)
        assert analyst.stat().st_mtime_ns > analyst_mtime and leftovers(folder) == []
        assert "warehouse_error" not in ingest_report(redis_url)
        assert published_metas(redis_url)["pulse"]["published_at"] > metas["pulse"]["published_at"]
    finally:
        stop(api)
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def tmpfs_under(folder: Path, size_bytes: int) -> bool:
    """The folder's files moved onto a tmpfs of `size_bytes` mounted on it; False (saying why) where this machine
    does not permit mounting, the folder left as it was."""
    held = folder.with_name(folder.name + "-held")
    shutil.move(folder, held)
    folder.mkdir()
    reason = mount_tmpfs(folder, size_bytes)
    if reason:
        print(f"the real tmpfs part did not run: {reason}")
        folder.rmdir()
        shutil.move(held, folder)
        return False
    for path in held.iterdir():
        shutil.copy2(path, folder / path.name)
    return True


def mount_tmpfs(folder: Path, size_bytes: int) -> str | None:
    """Mount a tmpfs of `size_bytes` on `folder`; the reason when this machine does not permit it."""
    if shutil.which("mount") is None:
        return "no mount command"
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    return None if done.returncode == 0 else f"mounting a tmpfs is not permitted here: {done.stderr.strip()}"


def test_hanging_live_sources_end_the_run_in_bounded_time_and_the_next_run_recovers(mi_home, tmp_path,
                                                                                    redis_url):
    with ProtocolServer() as sources:
        env = {**fault_env(mi_home, redis_url), **sources.env(), "MI_FRED_API_KEY": FRED_KEY,
               "MI_LIVE_FRED_API_REQUESTS_PER_MINUTE": "100000", "MI_SOURCE": "live", "MI_LIVE_TIMEOUT_S": "0.5",
               "MI_LIVE_RETRIES": "0", "MI_LIVE_BREAKER_RESET_S": "1",
               "MI_LIVE_BREAKER_FAILURES": "1"}  # a hung source costs one timeout before its breaker opens
        migrate(env)
        good = materialize_in_child(env)
        assert good["success"], good
        metas = published_metas(redis_url)
        api, base = start_gunicorn(env, workers=1, log=tmp_path / "gunicorn.log")
        try:
            sources.timeout_sleep_s = 30.0  # every source accepts the request, then says nothing
            sources.faults.update({name: "timeout" for name in ("fred", "treasury", "ecb", "coinbase", "stooq",
                                                                "gold_prices")})
            with Watch(base, WATCHED) as watch:
                hung = materialize_in_child(env, timeout_s=300)
            assert_served_throughout(watch)
            report = ingest_report(redis_url)
            assert report["series_ok"] == [] and report["rows_written"] == 0, report
            assert hung["wall_s"] < 120, hung  # the timeouts and breakers bound the run
            served = published_metas(redis_url)
            assert all(served[n]["as_of"] == metas[n]["as_of"] for n in metas), "the last good results are served"

            sources.faults.clear()
            time.sleep(1.0)  # the breakers' reset
            with Watch(base, WATCHED) as watch:
                recovered = materialize_in_child(env)
            assert recovered["success"], recovered
            assert_served_throughout(watch)
            report = ingest_report(redis_url)
            assert report["series_failed"] == {} and report["series_ok"], report
        finally:
            stop(api)


def test_a_copy_past_its_freshness_window_is_served_labelled_stale(app, computed_payloads, redis_url):  # noqa: F811
    import falcon.testing

    payloads, pulse = computed_payloads
    cache = ServingCache(redis.Redis.from_url(redis_url))
    client = falcon.testing.TestClient(app)
    for age_minutes, stale in ((1, False), (3 * 2 + 1, True)):  # the default schedule refreshes every 2 minutes
        published_at = time.time() - age_minutes * 60
        stale_after = copy_stale_after(published_at, 2)
        cache.publish_modules([("market_intelligence", payloads["market_intelligence"], "sim")], True, published_at,
                              stale_after)
        cache.publish_pulse(pulse, "sim", True, published_at, stale_after)
        for path in WATCHED:
            meta = client.simulate_get(path).json["_meta"]["cache"]
            assert meta["stale"] is stale and meta["stale_after"] == pytest.approx(stale_after), (path, meta)
    # a copy published without a window (an older publisher) claims nothing either way
    cache.publish_pulse(pulse, "sim", True, time.time())
    assert "stale" not in client.simulate_get("/api/v1/pulse").json["_meta"]["cache"]


@pytest.mark.llm
def test_a_worker_sigkilled_mid_ask_is_a_refunded_500_to_the_polling_client_then_a_new_worker_answers(stack):  # noqa: F811
    (asker,) = register_and_fund(stack["base"], 1, 1000)
    model, worker, lease_s = stack["model"], stack["worker"], float(stack["env"]["MI_SYNTHESIS_LEASE_S"])
    model.delay_s, model.arrived = 60.0, threading.Event()
    with httpx.Client(base_url=stack["base"], timeout=30) as client:
        resp = client.post("/api/v1/intelligence/ask/async", json={"question": QUESTION, "depth": "standard"},
                           headers={"X-API-Key": asker["key"]})
        request_id = resp.json()["request_id"]
        assert model.arrived.wait(60), (stack["home"] / "worker.log").read_text()[-3000:]
        # the worker and its work horse, mid-request; the worker first, so it cannot see its horse die and end the
        # job itself (tests/e2e/test_synthesis_e2e.py says when that happened)
        horse = psutil.Process(worker.pid).children()
        for process in [psutil.Process(worker.pid), *horse]:
            process.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        worker.wait(10)
        done, statuses, _ = poll_until_ended(client, request_id, asker["key"])
        waited_s = time.monotonic() - killed
        assert done.status_code == 500 and done.json()["refunded"] is True, done.text
        assert done.json()["error"]["code"] == "synthesis_failed" and set(statuses) == {202, 500}
        assert waited_s < lease_s + 2, waited_s  # the lease lapses: no waiting for RQ's 90 s heartbeat
        assert entries(stack["env"], request_id) == [("query", -500), ("refund", 500)]

        model.delay_s = 0.0
        stack["worker"] = start_worker(stack)
        again = client.post("/api/v1/intelligence/ask", json={"question": QUESTION, "depth": "standard"},
                            headers={"X-API-Key": asker["key"]})
        again = answered(client, again, asker["key"])
        assert again.status_code == 200, again.text
        assert client.get(f"/api/v1/synthesis/result/{request_id}",
                          headers={"X-API-Key": asker["key"]}).json()["refunded"] is True  # still, and once
        assert entries(stack["env"], request_id) == [("query", -500), ("refund", 500)]
        balance = client.get("/api/v1/agents/balance", headers={"X-API-Key": asker["key"]}).json()["balance_sats"]
    assert balance == 500
    assert ledger_ok(f"sqlite:///{stack['env']['MI_HOME']}/ledger.sqlite")


def test_the_analyst_copy_clears_what_an_earlier_failed_copy_left(tmp_path):
    """A copy killed half-way (SIGKILL, or a full disk before this fix) left its temp file under its own pid: as
    large as the copy got. The next copy removes it, whatever pid left it."""
    from warehouse.duckdb_store import Warehouse

    dest = tmp_path / "analyst.duckdb"
    left = [tmp_path / ".analyst.duckdb.99999.tmp", tmp_path / ".analyst.duckdb.99999.tmp.wal"]
    for path in left:
        path.write_bytes(b"\0" * 4096)
    with Warehouse(tmp_path / "warehouse.duckdb") as store:
        store.refresh_analyst_copy(dest)
    assert leftovers(tmp_path) == [] and warehouse_rows(dest)["observations"] == 0
