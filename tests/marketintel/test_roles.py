"""`marketintel api` and `marketintel worker` each start on their own against the deployment's Redis and ledger (as
on separate machines), serve, and stop with everything they started; a role without an external Redis refuses to
start and says what to set."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from redis import Redis
from rq import Worker

from marketintel.redis_server import free_port
from marketintel.roles import problems
from marketintel.settings import Settings
from tests.e2e.processes import described, kill, wait_until_gone

BIN = Path(sys.executable).parent


def role(name: str, env: dict, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen([str(BIN / "marketintel"), name], env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def until(check, process: subprocess.Popen, log: Path, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            if found := check():
                return found
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    pytest.fail(log.read_text()[-3000:])


def test_the_api_and_worker_roles_run_apart_on_a_shared_redis_and_ledger(settings, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MI_", "DAGSTER_"))}
    port, metrics_port = free_port(), free_port()
    env.update(MI_HOME=str(settings.home), MI_REDIS_URL=settings.effective_redis_url, MI_SOURCE="sim",
               MI_API_PORT=str(port), MI_API_WORKERS="1", MI_RQ_WORKERS="1", MI_METRICS_PORT=str(metrics_port))
    api, worker = role("api", env, tmp_path / "api.log"), role("worker", env, tmp_path / "worker.log")
    try:
        pricing = until(lambda: httpx.get(f"http://127.0.0.1:{port}/api/v1/pricing", timeout=2), api,
                        tmp_path / "api.log")
        assert pricing.status_code == 200
        redis = Redis.from_url(settings.effective_redis_url)
        assert until(lambda: Worker.all(connection=redis), worker, tmp_path / "worker.log")
        scraped = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5)  # the worker role's own
        assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
        list(text_string_to_metric_families(scraped.text))  # well-formed
    finally:
        for process in (api, worker):
            process.send_signal(signal.SIGTERM)
        codes = [process.wait(60) for process in (api, worker)]
        left = wait_until_gone(settings.home)
        kill(left)
    assert left == [], described(left)
    assert codes == [0, 0], codes


def test_a_role_without_an_external_redis_says_what_to_set(mi_home, monkeypatch):
    monkeypatch.delenv("MI_REDIS_URL", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "MI_REDIS_URL"}
    done = subprocess.run([str(BIN / "marketintel"), "worker"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "set MI_REDIS_URL" in done.stderr, done.stderr
    assert problems(Settings(redis_url="redis://127.0.0.1:1/0", source="replay", clock_speed=1.0), "api") == [
        "set MI_CLOCK_ANCHOR (the same epoch seconds for every role): a replay's clock runs from it"]
