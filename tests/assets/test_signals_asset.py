"""The `trading_signals` asset materialized for real on replayed history (real CSVs, real DuckDB, the embedded
Redis the ingest reports to), and the proof that its edge figures are reproducible: the published product's
back-test statistics equal an independent recomputation with the pure function on frames loaded straight from
the CSV files, cut the way a provider publishes them (an observation exists from its date plus its release lag)."""
from __future__ import annotations

from datetime import UTC, date, datetime, time

import polars as pl
from dagster import materialize

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from assets.signals import trading_signals_asset
from intel.catalog import known_through
from intel.frames import Frames
from intel.providers.replay import read_series_csv
from intel.signals.product import NAME, input_series, trading_signals
from tests.history import history_dir
from tests.replays import replay_settings
from warehouse.duckdb_store import Warehouse

CLOCK = date(2023, 12, 29)  # every input series, bitcoin included, still published then


def csv_frames(clock: date) -> Frames:
    """The inputs as they stood when the replayed day `clock` began (00:00 UTC, each observation out at its release's
    hour), read from the history files without the warehouse or the ingest."""
    moment = datetime.combine(clock, time(0), UTC)
    parts = []
    for sid in input_series():
        frame = read_series_csv(history_dir() / f"{sid}.csv")
        published = frame.filter(pl.col("date") <= known_through(sid, moment))
        parts.append(published.with_columns(pl.lit(sid).alias("series_id")))
    return Frames.from_long(pl.concat(parts), clock, "replay")


def test_published_edges_are_reproduced_from_the_history_files(mi_home, redis_url, monkeypatch):
    settings = replay_settings(CLOCK, redis_url, monkeypatch)
    resources = {"warehouse": WarehouseResource(path=str(settings.warehouse_path.resolve()),
                                                analyst_path=str(settings.analyst_path.resolve())),
                 "market": MarketResource.from_settings(settings)}
    result = materialize([observations, trading_signals_asset], resources=resources)
    assert result.success
    with Warehouse(settings.warehouse_path) as store:
        published = store.latest_products("replay")[NAME].payload
    assert published["as_of"] == CLOCK.isoformat() and published["simulated"] is False
    assert published["data_sources"]["missing"] == []
    assert all(date.fromisoformat(s["last_published"]) <= CLOCK for s in published["data_sources"]["series"])

    recomputed = trading_signals(csv_frames(CLOCK), simulated=False)
    mine = {s["id"]: s for s in recomputed["signals"]}
    assert set(mine) == {s["id"] for s in published["signals"]}
    fed = [s for s in published["signals"] if s["strategy"] == "fed_macro"]
    assert len(fed) == 6
    for signal in fed:  # one strategy's edge, every side and every figure
        again = mine[signal["id"]]
        assert signal["backtest"] == again["backtest"], signal["id"]
        assert (signal["direction"], signal["score"]) == (again["direction"], again["score"])
        long = signal["backtest"]["long"]
        assert long["n"] > 0 and long["last_decision"] < CLOCK.isoformat()  # windows closed by the clock
    assert published["signals"] == recomputed["signals"]  # and so is every other strategy's, whole
    assert published["history"]["first_decision_day"] < "1991-01-01"
    seconds = result.asset_materializations_for_node(NAME)[0].metadata["compute_seconds"].value
    print(f"trading_signals over {published['history']['decision_days']} decision days: {seconds} s; "
          + "; ".join(f"{s['instrument']} {s['direction']} edge {s['edge_estimate']['edge']} "
                      f"N {s['edge_estimate']['n']} t {s['edge_estimate']['t_stat']}" for s in fed))
