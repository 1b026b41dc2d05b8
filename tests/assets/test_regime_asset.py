"""The `regime` asset materialized for real on replayed history (real CSVs, real DuckDB, the embedded Redis the
ingest reports to): with the clock frozen inside the 2008 and 2020 crises it labels that day risk-off or crisis
from data dated on or before it, stores nothing after the clock, passes its checks, and a second run labels
only the newest days again."""
from __future__ import annotations

from datetime import date, timedelta

import polars as pl
import pytest
from dagster import materialize

from assets.ingest import observations
from assets.regime import CHECKS, NAME, RELABEL_DAYS, regime
from assets.resources import MarketResource, WarehouseResource
from intel.regime_score import PRODUCT as SCORECARD
from marketintel.settings import Settings
from tests.replays import replay_settings
from warehouse.duckdb_store import Warehouse

CRISES = {"lehman_2008": date(2008, 10, 10), "covid_2020": date(2020, 3, 16)}




def run(settings: Settings, selection: list):
    """Materialize `selection` with the resources pipelines/definitions.py builds from the same settings."""
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                                analyst_path=str(settings.analyst_path.resolve())),
                 "market": MarketResource.from_settings(settings)}
    result = materialize(selection, resources=resources)
    assert result.success
    return result


@pytest.mark.parametrize("name", list(CRISES))
def test_replayed_crisis_is_labelled_risk_off_or_crisis(name, mi_home, redis_url, monkeypatch):
    clock = CRISES[name]
    settings = replay_settings(clock, redis_url, monkeypatch)
    result = run(settings, [observations, regime])
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert set(checks) == set(CHECKS) and all(c.passed for c in checks.values()), checks
    with Warehouse(settings.warehouse_path) as store:
        labels = store.regimes("replay")
        products = store.latest_products("replay")
    product, scorecard = products[NAME], products[SCORECARD].payload
    # the clock day's own closes are published the next day (release lags): the newest label is the last
    # trading day the replay had published by the clock, and the product judges the clock day on the same data
    assert clock - timedelta(days=4) <= labels["date"].max() <= clock
    assert (labels["data_as_of"] <= labels["date"]).all()
    latest = labels.row(-1, named=True)
    assert latest["state"] in ("risk_off", "crisis"), latest
    view = product.payload
    assert view["as_of"] == clock.isoformat() and view["current"]["state"] in ("risk_off", "crisis"), view["current"]
    assert all(date.fromisoformat(s["last_observation"]) <= clock for s in view["data_sources"]["series"])
    assert view["history"]["n_days"] == labels.height and view["history"]["first_day"] < "1997-01-01"
    assert view["tilts"]["gold"]["tilt"] is None  # the catalog holds no gold series: absent, never invented
    # the classifier's scorecard over the same labels: every day counted once, no episode after the clock
    assert sum(row["n_days"] for row in scorecard["by_label"].values()) == labels.height
    shocks = [e["shock_day"] for e in scorecard["reaction"]["episodes"]]
    assert shocks and max(shocks) <= str(labels["date"].max())
    if name == "covid_2020":
        assert scorecard["reaction"]["episodes"][-1]["label_on_shock_day"] == "risk_off"  # 2020-02-24
    metadata = result.asset_materializations_for_node(NAME)[0].metadata
    print(f"{name}: labelled {metadata['days_labelled'].value} days in {metadata['label_seconds'].value} s")


def test_a_second_run_relabels_only_the_newest_days(mi_home, redis_url, monkeypatch):
    clock = CRISES["covid_2020"]
    settings = replay_settings(clock, redis_url, monkeypatch)
    run(settings, [observations, regime])
    with Warehouse(settings.warehouse_path) as store:
        first = store.regimes("replay")
        store.con.execute("delete from regime_daily where date > $d", {"d": clock - timedelta(days=7)})
    second = run(settings, [regime])
    relabelled = second.asset_materializations_for_node(NAME)[0].metadata["days_labelled"].value
    with Warehouse(settings.warehouse_path) as store:
        again = store.regimes("replay")
    assert again.equals(first)  # the same labels, whether computed in one run or two
    deleted = first.filter(pl.col("date") > clock - timedelta(days=7)).height
    assert relabelled == deleted + RELABEL_DAYS
