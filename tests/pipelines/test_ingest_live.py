"""The ingest asset with MI_SOURCE=live against the local protocol server, as real Dagster
materializations: a full ingest fills every catalog series; each injected failure keeps the previous good
rows, is recorded (asset metadata and mi:status:ingest) and shows in the breakers (mi:status:sources)."""
from __future__ import annotations

import pytest
import redis

from intel.catalog import CATALOG
from intel.providers import factory
from marketintel.settings import Settings
from tests.intel.providers.live.protocol_server import fixture_dates
from tests.pipelines.live_ingest import ingest, redis_status, stored
from warehouse import status
from warehouse.duckdb_store import Warehouse


def test_full_live_ingest_fills_every_catalog_series(live, redis_url):
    meta = ingest()
    assert meta["data_source"] == "live" and meta["series_failed"] == {} and meta["series_without_data"] == []
    assert {sid for sid, _ in stored()} == set(CATALOG)
    sources, report = redis_status(redis_url)
    # this fixture server speaks the formats of these sources; the other publishers' series came from FRED
    spoken = {"fred", "treasury", "ecb", "coinbase", "stooq", "gold_prices"}
    assert spoken <= set(sources) and set(meta["series_sources"].values()) == spoken
    assert all(sources[name]["state"] == "closed" and sources[name]["last_success_at"] for name in spoken)
    assert report["data_source"] == "live" and report["series_failed"] == {}
    assert sorted(report["series_ok"]) == sorted(CATALOG) and report["rows_written"] == meta["rows_written"] > 0


@pytest.mark.parametrize("source,mode", [("fred", "429"), ("fred", "503"), ("fred", "timeout"),
                                         ("fred", "empty"), ("fred", "dots"), ("fred", "html"),
                                         ("fred", "truncated"), ("treasury", "truncated"), ("ecb", "truncated"),
                                         ("coinbase", "html"), ("stooq", "503")])
def test_a_failing_source_leaves_its_series_as_they_were(live, redis_url, source, mode):
    answered = ingest()["series_sources"]  # whose numbers each series came from
    before = stored()
    live.bump = 1.0  # the sources "revise" every value: what changes shows what was written
    # a publisher's series fall back to the FRED API (tests/intel/providers/live/test_live_clients.py): it fails too
    failing = {source} | ({"fred"} if source not in ("fred", "stooq") else set())
    live.faults.update({name: mode for name in failing})
    meta = ingest()
    after = stored()
    hit = {sid for sid, name in answered.items() if name in failing}
    if mode == "dots":  # "." is FRED's documented gap: not an error, and never a value over a good one
        dotted = {(sid, d.isoformat()) for sid in hit for d in fixture_dates(sid, live.today)[-5:]}
        kept = {k for k in dotted if k in before}
        assert kept and all(after[k] == before[k] for k in kept)
        assert meta["series_failed"] == {} and redis_status(redis_url)[1]["series_failed"] == {}
        return
    unchanged = {k: v for k, v in after.items() if k[0] in hit}
    assert unchanged == {k: v for k, v in before.items() if k[0] in hit}  # not one row added or revised
    others = {k for k in after if k[0] not in hit and after[k] != before.get(k)}
    # the healthy sources did write their revisions (but a spread of two bumped rates does not move: T10Y2Y)
    assert {sid for sid, _ in others} == set(CATALOG) - hit - {"T10Y2Y"}
    _, report = redis_status(redis_url)
    assert set(meta["series_failed"]) == hit and set(report["series_failed"]) == hit
    assert not hit & set(report["series_ok"])


def test_repeated_failures_open_the_breaker_across_runs(live, redis_url, monkeypatch):
    answered = ingest()["series_sources"]
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
    assert set(meta["series_failed"]) == {sid for sid, name in answered.items() if name == "fred"}
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


def test_without_a_fred_key_its_series_are_left_out_and_named_with_the_setting(live, redis_url, monkeypatch):
    """No FRED key: the FRED-only series are not fetched (nor faked), `marketintel sources` and the dashboard say
    which setting brings them, and a module reading them answers 503 `source_unavailable`, charging nothing."""
    import falcon.testing

    from api.app import create_app
    from intel.providers.live import LiveConfig
    from intel.providers.live.coverage import coverage
    from marketintel.sources_report import report as sources_report
    from tests.api.agent_helpers import auth, register
    from warehouse.ledger import migrate

    monkeypatch.delenv("MI_FRED_API_KEY")
    meta = ingest()
    unavailable = meta["series_unavailable"]
    assert "GDP" in unavailable and unavailable["GDP"] == ["MI_FRED_API_KEY"]
    assert not set(unavailable) & set(stored_series := {sid for sid, _ in stored()})
    assert "DGS10" in stored_series and live.hits["fred"] == 0
    settings = Settings()
    shown = sources_report(settings)
    assert shown["series"]["GDP"]["status"] == "unavailable" and "MI_FRED_API_KEY" in shown["keys"]
    assert shown["summary"].startswith("live: ") and "set MI_FRED_API_KEY" in shown["summary"]
    modules = coverage(LiveConfig.from_settings(settings), None)["modules"]
    module = next(n for n, m in modules.items()
                  if m["status"] == "unavailable" and m["settings"] == ["MI_FRED_API_KEY"])

    migrate(settings.sqlalchemy_url)
    client = falcon.testing.TestClient(create_app(settings))
    dashboard = client.simulate_get("/health/dashboard").json
    assert dashboard["sources"]["series"]["GDP"]["settings"] == ["MI_FRED_API_KEY"]
    key, _ = register(client)
    answer = client.simulate_get(f"/api/v1/intelligence/{module}", headers=auth(key))
    assert answer.status_code == 503, answer.text
    error = answer.json["error"]
    assert error["code"] == "source_unavailable" and error["settings"] == ["MI_FRED_API_KEY"]
    assert set(error["series"]) == set(modules[module]["missing_series"]) and "MI_FRED_API_KEY" in error["message"]
