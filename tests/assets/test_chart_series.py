"""The `chart_series` asset materialized for real on replayed history (real CSVs, real DuckDB) with the clock
frozen on 2020-03-16: it stores only points dated on or before the clock, about two years plus the 200-day
warm-up, the curve now and a year earlier; published like the publish asset does it, the product comes back
from Redis and a chart draws from it. The definitions publish it."""
from __future__ import annotations

from datetime import date, timedelta

import orjson
import redis
from dagster import AssetKey, materialize

from assets.chart_series import CHECKS, chart_series
from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from intel.charts import render
from intel.content.chart_series import LINE_SERIES, LOOKBACK_DAYS, PRODUCT
from marketintel.settings import Settings
from pipelines.definitions import build_defs
from tests.replays import replay_settings
from warehouse import keys
from warehouse.cache import ServingCache
from warehouse.duckdb_store import Warehouse

CLOCK = date(2020, 3, 16)
LONG_HISTORIES = ("SP500", "VIXCLS", "BAMLH0A0HYM2")  # the shared NASDAQCOM and CBBTCUSD files start in 2019-02


def test_replayed_chart_series_is_point_in_time_and_published(mi_home, redis_url, monkeypatch):
    settings = replay_settings(CLOCK, redis_url, monkeypatch)
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                                analyst_path=str(settings.analyst_path.resolve())),
                 "market": MarketResource.from_settings(settings)}
    result = materialize([observations, chart_series], resources=resources)
    assert result.success
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert set(checks) == set(CHECKS) and all(c.passed for c in checks.values()), checks
    with Warehouse(settings.warehouse_path) as store:
        stored = store.latest_products("replay")[PRODUCT]
    view = stored.payload
    assert view["as_of"] == CLOCK.isoformat() and view["simulated"] is False and view["data_source"] == "replay"
    assert set(view["series"]) == set(LINE_SERIES), view["missing"]
    for sid, series in view["series"].items():
        first, last = date.fromisoformat(series["dates"][0]), date.fromisoformat(series["dates"][-1])
        assert last <= CLOCK and CLOCK - last <= timedelta(days=5), (sid, last)  # the clock day's close comes later
        assert first >= CLOCK - timedelta(days=LOOKBACK_DAYS), (sid, first)
        if sid in LONG_HISTORIES:
            assert (last - first).days > 900, (sid, first)
        assert series["dates"] == sorted(series["dates"]) and len(series["dates"]) == len(series["values"])
    vix = view["series"]["VIXCLS"]
    assert max(vix["values"][-10:]) > 50  # March 2020: the real VIX, not a simulation
    now, before = view["curve"]["now"], view["curve"]["year_ago"]
    assert date.fromisoformat(now["date"]) <= CLOCK and len(now["points"]) >= 8
    assert 360 <= (date.fromisoformat(now["date"]) - date.fromisoformat(before["date"])).days <= 372
    cache = ServingCache(redis.Redis.from_url(redis_url))
    cache.publish_products([(PRODUCT, view, "replay")], False, published_at=1.0)
    served = cache.r.get(keys.product(PRODUCT, "full"))
    assert orjson.loads(served) == view
    chart = render("vix_bands", orjson.loads(served))
    assert "simulated" not in chart.title and chart.observed_through == vix["last_observation"]
    print(f"chart_series: {sum(len(s['dates']) for s in view['series'].values())} points, {len(served)} bytes")


def test_the_definitions_publish_chart_series(mi_home):
    graph = build_defs(Settings()).resolve_asset_graph()
    assert AssetKey(PRODUCT) in graph.get(AssetKey("publish")).parent_keys
    assert graph.get(AssetKey(PRODUCT)).parent_keys == {AssetKey("observations")}
