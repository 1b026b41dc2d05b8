"""A module whose inputs have no history yet at the market date says so, rather than "not computed yet": the real
history replayed at 2012-06-01, before the S&P 500 file begins (2016), through the real ingest and module assets
(real DuckDB, the embedded Redis), then asked through the real app."""
from __future__ import annotations

import time
from datetime import date

import redis
from dagster import materialize

from assets.ingest import observations
from assets.modules import build_module_asset
from assets.resources import MarketResource, WarehouseResource
from intel.providers.replay import read_series_csv
from intel.registry import modules
from tests.history import history_dir
from tests.replays import replay_settings
from warehouse.cache import ServingCache

CLOCK = date(2012, 6, 1)


def test_a_module_before_its_inputs_history_names_them_and_what_stands_in(mi_home, redis_url, monkeypatch,
                                                                          unpublished_client, computed_payloads):
    settings = replay_settings(CLOCK, redis_url, monkeypatch)
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                                analyst_path=str(settings.analyst_path.resolve())),
                 "market": MarketResource.from_settings(settings)}
    drawdown = build_module_asset(modules()["equity_drawdown"])
    assert materialize([observations, drawdown], resources=resources).success
    # another equities module, one that reads neither index, is being served
    payloads, _ = computed_payloads
    ServingCache(redis.Redis.from_url(redis_url)).publish_modules(
        [("market_breadth", payloads["market_breadth"], "replay")], False, time.time())

    resp = unpublished_client.simulate_get("/api/v1/intelligence/equity_drawdown")
    assert resp.status_code == 503, resp.text
    error = resp.json["error"]
    assert error["code"] == "no_history" and error["as_of"] == CLOCK.isoformat()
    first = {sid: read_series_csv(history_dir() / f"{sid}.csv")["date"][0].isoformat()
             for sid in ("SP500", "NASDAQCOM")}
    assert error["series"] == first and min(first.values()) > CLOCK.isoformat()  # the files begin in 2016 and 2019
    assert error["stand_ins"] == ["market_breadth"]
    assert f"SP500 has no history before {first['SP500']}" in error["message"]
    assert "not been computed" not in error["message"] and "Nothing was charged" in error["message"]
