"""GET /metrics in Prometheus' text format: requests counted by route template and status, charges by what paid and
402s through the charging service, the shared state read at scrape time; loopback only without a token, the token
with one. Over real gunicorn with two workers, the counts of both workers add up to the requests sent."""
from __future__ import annotations

import os
import signal
import subprocess
import time

import falcon.testing
import httpx
from prometheus_client.mmap_dict import _read_all_values
from prometheus_client.parser import text_string_to_metric_families

from marketintel.redis_server import free_port
from marketintel.settings import Settings
from tests.api.agent_helpers import auth, fund, register


def samples(text: str) -> dict[tuple, float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def count(found: dict, name: str, **labels) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_requests_charges_and_402s_are_counted(client):
    before = samples(client.simulate_get("/metrics").text)
    key, _ = register(client, "metered")
    for _ in range(3):
        client.simulate_get("/api/v1/pricing")
    client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))  # the free query
    refused = client.simulate_get("/api/v1/intelligence/vix", headers=auth(key))
    assert refused.status_code == 402
    fund(client, key, 500)
    assert client.simulate_get("/api/v1/intelligence/vix", headers=auth(key)).status_code == 200
    after = samples(client.simulate_get("/metrics").text)

    def grew(name: str, **labels) -> float:
        return count(after, name, **labels) - count(before, name, **labels)

    assert grew("marketintel_http_requests_total", route="/api/v1/pricing", method="GET", status="200") == 3
    route = "/api/v1/intelligence/{module_name}"
    assert grew("marketintel_http_requests_total", route=route, method="GET", status="402") == 1
    assert grew("marketintel_http_request_duration_seconds_count", route=route, method="GET") == 3
    assert grew("marketintel_charges_total", pool="free_allowance") == 1
    assert grew("marketintel_charges_total", pool="balance") == 1
    assert grew("marketintel_charged_sats_total", pool="balance") == 50
    assert grew("marketintel_payment_required_total", kind="module") == 1
    ages = {dict(k[1])["product"] for k in after if k[0] == "marketintel_published_copy_age_seconds"}
    assert {"vix", "pulse"} <= ages  # the conftest published every module and the pulse
    assert count(after, "marketintel_rq_queue_jobs", queue="mi") >= 0
    assert ("marketintel_sse_connections", ()) in after


def test_metrics_answer_loopback_or_the_token(settings, services, monkeypatch):
    from api.app import create_app

    far = falcon.testing.TestClient(create_app(settings, services))
    assert far.simulate_get("/metrics", remote_addr="10.1.2.3").status_code == 403
    monkeypatch.setenv("MI_METRICS_TOKEN", "scrape-secret")
    guarded = falcon.testing.TestClient(create_app(Settings(), services))
    assert guarded.simulate_get("/metrics").status_code == 401
    ok = guarded.simulate_get("/metrics", remote_addr="10.1.2.3", headers={"Authorization": "Bearer scrape-secret"})
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")


def test_two_gunicorn_workers_add_up(settings, tmp_path):
    from marketintel.cli import children

    port = free_port()
    folder = tmp_path / "prometheus"
    folder.mkdir()
    env = {**os.environ, "MI_HOME": str(settings.home), "MI_REDIS_URL": settings.effective_redis_url,
           "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    argv = children(Settings(api_port=port, api_workers=2), ("api",))[0].argv
    api = subprocess.Popen(argv, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            deadline = time.monotonic() + 60
            while True:  # both workers booted: gunicorn binds first, then forks them
                try:
                    if http.get("/api/v1/pricing").status_code == 200:
                        break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline and api.poll() is None, api.stderr.read()[-2000:]
                    time.sleep(0.2)
            # a connection each: the kernel hands new connections to either worker
            sent = 1 + sum(httpx.get(f"http://127.0.0.1:{port}/api/v1/pricing").status_code == 200 for _ in range(60))
            found = samples(http.get("/metrics").text)
        serving = [path for path in folder.glob("counter_*.db")
                   if any("/api/v1/pricing" in key for key, *_ in _read_all_values(path.read_bytes()))]
        assert len(serving) == 2, serving  # each worker counted what it served in its own file ...
        assert count(found, "marketintel_http_requests_total", route="/api/v1/pricing", method="GET",
                     status="200") == sent  # ... and /metrics added them up
    finally:
        os.killpg(api.pid, signal.SIGTERM)
        api.wait(30)
