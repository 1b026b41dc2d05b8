"""The parallels asset materialized for real: a replay ingest of the real history frozen at 2020-03-20, then
`parallels` computing and storing its view, its three checks passing."""
from __future__ import annotations

from datetime import date

from dagster import materialize

from assets.ingest import observations
from assets.parallels import CHECKS, parallels
from assets.resources import MarketResource, WarehouseResource
from marketintel.settings import Settings
from tests.history import history_dir
from warehouse.duckdb_store import Warehouse

CLOCK = date(2020, 3, 20)


def test_parallels_materializes_point_in_time(mi_home, redis_url, monkeypatch):
    for key, value in {"MI_REDIS_URL": redis_url, "MI_SOURCE": "replay", "MI_REPLAY_DIR": str(history_dir()),
                       "MI_REPLAY_START": CLOCK.isoformat(), "MI_CLOCK_SPEED": "0"}.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path),
                                                analyst_path=str(settings.analyst_path)),
                 "market": MarketResource.from_settings(settings)}

    result = materialize([observations, parallels], resources=resources)

    assert result.success
    checks = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert set(checks) == set(CHECKS) and all(c.passed for c in checks.values()), checks
    meta = result.asset_materializations_for_node("parallels")[0].metadata
    assert meta["status"].value == "ok" and meta["episodes_offered"].value == 24
    with Warehouse(settings.warehouse_path) as store:
        stored = store.latest_products("replay")["parallels"]
    view = stored.payload
    assert stored.as_of == CLOCK and view["as_of"] == CLOCK.isoformat()
    assert "bear_market" in view["detected_tags"] and "high_volatility" in view["detected_tags"]
    assert all(date.fromisoformat(r["window_end"]) <= CLOCK for r in view["results"])
    for source in view["data_sources"]["series"]:
        assert date.fromisoformat(source["last_observation"]) <= CLOCK, source
