"""The ingest asset with MI_SOURCE=live against the local protocol server, as real Dagster
materializations: a full ingest fills every catalog series; each injected failure keeps the previous good
rows, is recorded (asset metadata and mi:status:ingest) and shows in the breakers (mi:status:sources)."""
from __future__ import annotations

import pytest
import redis

from intel.catalog import CATALOG
from intel.providers import factory
from marketintel.settings import Settings
from tests.intel.providers.live.protocol_server import fixture_dates, series_of
from tests.pipelines.live_ingest import ingest, redis_status, stored
from warehouse import status
from warehouse.duckdb_store import Warehouse


def test_full_live_ingest_fills_every_catalog_series(live, redis_url):
    meta = ingest()
    assert meta["data_source"] == "live" and meta["series_failed"] == {} and meta["series_without_data"] == []
    assert {sid for sid, _ in stored()} == set(CATALOG)
    sources, report = redis_status(redis_url)
    assert set(sources) == {"fred", "treasury", "ecb", "coinbase", "stooq"}
    assert all(s["state"] == "closed" and s["last_success_at"] for s in sources.values())
    assert report["data_source"] == "live" and report["series_failed"] == {}
    assert sorted(report["series_ok"]) == sorted(CATALOG) and report["rows_written"] == meta["rows_written"] > 0


@pytest.mark.parametrize("source,mode", [("fred", "429"), ("fred", "503"), ("fred", "timeout"),
                                         ("fred", "empty"), ("fred", "dots"), ("fred", "html"),
                                         ("fred", "truncated"), ("treasury", "truncated"), ("ecb", "truncated"),
                                         ("coinbase", "html"), ("stooq", "503")])
def test_a_failing_source_leaves_its_series_as_they_were(live, redis_url, source, mode):
    ingest()
    before = stored()
    live.bump = 1.0  # the sources "revise" every value: what changes shows what was written
    live.faults[source] = mode
    meta = ingest()
    after = stored()
    hit = set(series_of(source))
    if mode == "dots":  # "." is FRED's documented gap: not an error, and never a value over a good one
        dotted = {(sid, d.isoformat()) for sid in hit for d in fixture_dates(sid, live.today)[-5:]}
        kept = {k for k in dotted if k in before}
        assert kept and all(after[k] == before[k] for k in kept)
        assert meta["series_failed"] == {} and redis_status(redis_url)[1]["series_failed"] == {}
        return
    unchanged = {k: v for k, v in after.items() if k[0] in hit}
    assert unchanged == {k: v for k, v in before.items() if k[0] in hit}  # not one row added or revised
    others = {k for k in after if k[0] not in hit and after[k] != before.get(k)}
    assert {sid for sid, _ in others} == set(CATALOG) - hit  # the healthy sources did write their revisions
    _, report = redis_status(redis_url)
    assert set(meta["series_failed"]) == hit and set(report["series_failed"]) == hit
    assert not hit & set(report["series_ok"])


def test_repeated_failures_open_the_breaker_across_runs(live, redis_url, monkeypatch):
    ingest()
    live.faults["fred"] = "503"
    meta = ingest()
    assert meta["source_status"]["fred"]["state"] == "open"
    sources, _ = redis_status(redis_url)
    assert sources["fred"]["state"] == "open" and sources["fred"]["consecutive_failures"] == 3
    assert "503" in sources["fred"]["last_error"] and sources["treasury"]["state"] == "closed"
    # a later run in a fresh process (new provider) starts from the published state: no calls to FRED
    factory._CACHE.clear()
    hits = live.hits["fred"]
    meta = ingest()
    assert live.hits["fred"] == hits and meta["source_status"]["fred"]["state"] == "open"
    assert set(meta["series_failed"]) == set(series_of("fred"))
    assert all("circuit open" in e for e in meta["series_failed"].values())


def test_the_dashboard_shows_an_open_breaker_and_the_staleness_it_causes(live, redis_url):
    """A live source that keeps failing: its breaker opens, its series age past their cadence, and the
    operator sees both on /health/dashboard (the same Redis keys the pipeline writes)."""
    from datetime import timedelta

    import falcon.testing

    from api.app import create_app
    from assets.checks import series_freshness
    from warehouse.ledger import migrate

    ingest()
    live.faults["fred"] = "503"
    ingest()
    settings = Settings()
    with Warehouse(settings.warehouse_path) as store:
        marks = store.watermarks("live")
    # ten market days on, FRED still down: the freshness the publish step computes from the same watermarks
    later = max(marks.values()) + timedelta(days=10)
    status.publish_freshness(redis.Redis.from_url(redis_url), series_freshness(sorted(CATALOG), marks, later))

    migrate(settings.sqlalchemy_url)
    dashboard = falcon.testing.TestClient(create_app(settings)).simulate_get("/health/dashboard").json
    breakers = {b["source"]: b for b in dashboard["circuit_breakers"]}
    assert breakers["fred"]["state"] == "open" and "503" in breakers["fred"]["last_error"]
    assert breakers["treasury"]["state"] == "closed"
    stale = set(dashboard["data_freshness"]["stale"])
    assert "VIXCLS" in stale and "BAMLH0A0HYM2" in stale  # daily FRED series, no longer fed
    assert "CPIAUCSL" not in stale  # monthly: ten days is within its cadence, failing source or not
