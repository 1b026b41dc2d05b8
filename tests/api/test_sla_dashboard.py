"""/api/v1/sla and /health/dashboard on the real app, Redis and ledger: the SLA figures move with the requests
made (counts, error shares, latency), uptime follows the live workers, and the dashboard shows what the
pipeline wrote to the status keys. Neither route needs credentials."""
from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import falcon.testing
import orjson
import psutil
import redis

from api.app import create_app
from api.metrics import WORKERS, bucket_of, bucket_upper_ms, percentile_ms
from intel.registry import modules
from warehouse import status


class Boom:
    async def on_get(self, req, resp):
        raise RuntimeError("a bug")


class Slow:
    async def on_get(self, req, resp):
        await asyncio.sleep(0.3)
        resp.media = {"ok": True}


def sla(client) -> dict:
    result = client.simulate_get("/api/v1/sla")
    assert result.status_code == 200, result.text
    return result.json


def test_sla_counts_every_request_by_status_and_measures_latency(client, app):
    app.add_route("/test/boom", Boom())
    app.add_route("/test/slow", Slow())
    before = sla(client)["error_rates"]["last_hour"]

    assert client.simulate_get("/health").status_code == 200
    assert client.simulate_get("/api/v1/agents/me").status_code == 401  # no key
    assert client.simulate_get("/api/v1/intelligence/no_such_module_x").status_code in (401, 404)
    assert client.simulate_get("/no/such/route").status_code == 404
    assert client.simulate_get("/test/boom").status_code == 500
    assert client.simulate_get("/test/slow").status_code == 200
    body = sla(client)

    hour, day = body["error_rates"]["last_hour"], body["error_rates"]["last_day"]
    # the six requests above and the first /sla call (recorded once its response was built)
    assert hour["requests"] - before["requests"] == 7
    assert hour["4xx"] - before["4xx"] == 3 and hour["5xx"] - before["5xx"] == 1
    assert hour["rate_5xx"] == round(hour["5xx"] / hour["requests"], 6)
    assert hour["rate_4xx"] == round(hour["4xx"] / hour["requests"], 6)
    assert day["requests"] >= hour["requests"] and day["5xx"] >= hour["5xx"]
    latency = body["latency_ms"]
    assert latency["requests"] == hour["requests"]
    assert latency["p99"] >= 300 > latency["p50"]  # the one slow request is the top 1%
    assert body["data_source"] == "sim" and body["simulated"] is True


def test_request_counts_from_two_app_instances_add_up(client, settings, services):
    other = falcon.testing.TestClient(create_app(settings, services))
    start = sla(client)["error_rates"]["last_hour"]["requests"]
    for _ in range(3):
        other.simulate_get("/health")
        client.simulate_get("/health")
    assert sla(other)["error_rates"]["last_hour"]["requests"] - start == 7


def test_uptime_is_since_the_oldest_live_worker(client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    me = psutil.Process()
    first = sla(client)["uptime"]
    assert first["since"] == me.create_time() and first["live_workers"] == 1
    assert abs(first["seconds"] - (time.time() - me.create_time())) < 5

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone_pid = int(dead.stdout)
    r.hset(WORKERS, mapping={
        f"{socket.gethostname()}:{gone_pid}": orjson.dumps(  # an exited worker on this host: not live
            {"host": socket.gethostname(), "pid": gone_pid, "started_at": 1000.0, "last_seen": time.time()}),
        "other-host:7": orjson.dumps(  # a worker elsewhere that served a request a minute ago: live
            {"host": "other-host", "pid": 7, "started_at": time.time() - 86400, "last_seen": time.time() - 60}),
        "old-host:8": orjson.dumps(  # silent for an hour: not live
            {"host": "old-host", "pid": 8, "started_at": 10.0, "last_seen": time.time() - 3600}),
    })
    uptime = sla(client)["uptime"]
    assert uptime["live_workers"] == 2 and 86390 < uptime["seconds"] < 86500
    assert not r.hexists(WORKERS, f"{socket.gethostname()}:{gone_pid}")  # pruned


def test_sla_summarizes_freshness_and_the_last_publish(client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    status.publish_freshness(r, {
        "DGS10": {"last_observation": "2026-11-19", "age_days": 1, "expected_cadence_days": 1, "max_age_days": 6,
                  "stale": False},
        "SP500": {"last_observation": "2026-11-18", "age_days": 2, "expected_cadence_days": 1, "max_age_days": 6,
                  "stale": False},
        "UNRATE": {"last_observation": "2026-06-01", "age_days": 172, "expected_cadence_days": 31, "max_age_days": 76,
                   "stale": True},
    })
    fresh = sla(client)["data_freshness"]
    assert fresh["series"] == 3 and fresh["fresh"] == 2 and fresh["fresh_share"] == 0.6667
    assert fresh["stale"] == ["UNRATE"] and fresh["stalest"]["series_id"] == "UNRATE"
    assert 0 <= fresh["last_publish_age_seconds"] < 60  # the client fixture published just now


def test_dashboard_shows_breakers_freshness_modules_services_and_system(client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    empty = client.simulate_get("/health/dashboard")
    assert empty.status_code == 200 and empty.json["circuit_breakers"] == []  # sim has no breakers

    status.publish_sources(r, {
        "fred": {"state": "open", "consecutive_failures": 5, "last_error": "HTTP 503", "last_error_at": 1.0,
                 "last_success_at": None, "requests_used": 12, "request_budget": 100},
        "ecb": {"state": "closed", "consecutive_failures": 0, "last_error": None, "last_error_at": None,
                "last_success_at": 2.0, "requests_used": 1, "request_budget": 50}})
    status.publish_freshness(r, {"DGS10": {"last_observation": "2026-11-01", "age_days": 19,
                                           "expected_cadence_days": 1, "max_age_days": 6, "stale": True}})
    body = client.simulate_get("/health/dashboard").json

    breakers = {b["source"]: b for b in body["circuit_breakers"]}
    assert breakers["fred"]["state"] == "open" and breakers["fred"]["last_error"] == "HTTP 503"
    assert breakers["ecb"]["state"] == "closed"
    assert body["data_freshness"]["series"]["DGS10"]["age_days"] == 19 and body["data_freshness"]["stale"] == ["DGS10"]
    scheduled = sorted(m.name for m in modules().values() if not m.takes_ticker)
    assert [m["module"] for m in body["modules"]] == scheduled
    assert all(m["published"] and m["last_outcome"] == "computed" and m["as_of"] for m in body["modules"])
    services = {s["name"]: s for s in body["services"]}
    assert services["api"]["pid"] == os.getpid() and services["api"]["uptime_seconds"] > 0
    assert services["redis"]["status"] == "up" and services["redis"]["version"]
    assert services["ledger"]["status"] == "up" and services["ledger"]["dialect"] == "sqlite"
    assert services["rq_workers"]["status"] == "none registered" and services["rq_workers"]["workers"] == []
    assert services["dagster_daemon"]["status"] == "not observed"
    system = body["system"]
    assert system["memory"]["total_bytes"] == psutil.virtual_memory().total
    assert system["disk"]["path"] == str(settings.home) and len(system["load_average"]) == 3
    assert 0 <= system["cpu_percent"] <= 100


def test_dashboard_marks_unpublished_and_lagging_modules(unpublished_client, settings):
    r = redis.Redis.from_url(settings.effective_redis_url)
    names = sorted(m.name for m in modules().values() if not m.takes_ticker)
    r.set(f"mi:module:{names[0]}:meta",
          orjson.dumps({"module": names[0], "as_of": "2026-11-20", "published_at": time.time()}))
    r.set(f"mi:module:{names[1]}:meta",
          orjson.dumps({"module": names[1], "as_of": "2026-11-18", "published_at": time.time()}))
    got = {m["module"]: m for m in unpublished_client.simulate_get("/health/dashboard").json["modules"]}
    assert got[names[0]]["last_outcome"] == "computed"
    assert got[names[1]]["last_outcome"].startswith("stale")
    assert got[names[2]] == {**got[names[2]], "published": False, "last_outcome": "never_computed"}


def test_both_routes_are_in_the_openapi_document(client):
    paths = client.simulate_get("/openapi.json").json["paths"]
    assert "get" in paths["/api/v1/sla"] and "get" in paths["/health/dashboard"]


def test_latency_buckets_bound_the_percentiles():
    assert bucket_upper_ms(bucket_of(12.0)) >= 12.0 > bucket_upper_ms(bucket_of(12.0) - 1)
    histogram = {bucket_of(1.0): 98, bucket_of(500.0): 2}
    assert percentile_ms(histogram, 0.5) < 1.3 and percentile_ms(histogram, 0.99) >= 500
    assert percentile_ms({}, 0.5) is None
