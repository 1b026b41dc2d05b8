"""The regime history: every trading day the warehouse holds labelled by the pulse's classifier, point in time,
into `regime_daily`, and the `regime` product (transitions, durations, asset-class tilts) built from it.

A run labels only the days not yet stored, plus the last RELABEL_DAYS stored ones again, since late or revised
observations can still change them; the first run labels the whole history."""

import time
from dataclasses import replace
from datetime import date

import polars as pl
from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    MaterializeResult,
    MetadataValue,
    asset,
)

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from intel.frames import Frames
from intel.regime import REGIME_INPUTS, STATES, classify
from intel.regime_history import LOOKBACK_DAYS, TILT_SERIES, daily_regimes, regime_view, trading_days
from intel.regime_score import PRODUCT as SCORECARD
from intel.regime_score import report as scorecard
from warehouse.duckdb_store import Warehouse

NAME = "regime"
RELABEL_DAYS = 10  # the newest stored labels recomputed each run (late and revised observations)
PROBABILITY_TOLERANCE = 0.002  # four probabilities each rounded to 3 decimals
CHECKS = {
    "probabilities_sum_to_one": "every stored day's four probabilities sum to 1 within rounding",
    "nothing_after_the_clock": "no stored day, and no input a label read, is dated after the market clock",
    "latest_label_is_classify": "the newest stored label equals a fresh classify on the warehouse's frames cut "
                                "at that day (the same rows the market_regime module reads)",
}


def days_to_label(frames: Frames, stored: pl.DataFrame) -> list[date]:
    """Trading days not yet stored, and the newest RELABEL_DAYS stored ones again."""
    days = trading_days(frames)
    held = set(stored["date"].to_list())
    redo = set(stored["date"].tail(RELABEL_DAYS).to_list())
    return [d for d in days if d not in held or d in redo]


@asset(name=NAME, group_name="foresight", deps=[observations], kinds={"polars", "duckdb"},
       description="Daily regime labels for the whole stored history (table regime_daily) and the regime product: "
                   "current state, transitions, expected duration, asset-class tilts; and the classifier's "
                   "scorecard (what followed each label, its reaction lag on documented shocks).",
       check_specs=[AssetCheckSpec(name, asset=NAME, description=text) for name, text in CHECKS.items()])
def regime(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource) -> MaterializeResult:
    source, today = market.provider.name, market.today
    with warehouse.open() as store:
        # every stored date (the label history starts where the data does) of the inputs and tilt series
        frames = replace(store.frames((*REGIME_INPUTS, *TILT_SERIES), today, (today - date(1, 1, 1)).days, source),
                         clock=market.now)
        todo = days_to_label(frames, store.regimes(source).filter(pl.col("date") <= today))
        started = time.perf_counter()
        fresh = daily_regimes(frames, todo)
        seconds = time.perf_counter() - started
        store.write_regimes(fresh, source, market.now)
        labels = store.regimes(source).filter(pl.col("date") <= today)
        if labels.is_empty():
            context.log.warning("regime: no regime inputs stored yet")
            return MaterializeResult(metadata={"status": "insufficient_data"},
                                     check_results=_checks(store, labels, source, today))
        view = regime_view(frames, labels, today)
        store.write_product(NAME, today, view, source, market.now)
        # how the labels held up (served inside /predictions/accuracy and /intelligence/track_record)
        store.write_product(SCORECARD, today, {"as_of": today.isoformat(), **scorecard(frames, labels)}, source,
                            market.now)
        checks = _checks(store, store.regimes(source), source, today)
    context.log.info(f"regime: labelled {fresh.height} days in {seconds:.2f} s; today {view['current']['state']}")
    return MaterializeResult(
        metadata={"status": "ok", "as_of": today.isoformat(), "state": view["current"]["state"],
                  "days_labelled": fresh.height, "label_seconds": round(seconds, 3), "days_stored": labels.height,
                  "first_day": str(labels["date"][0]), "transitions_21d": MetadataValue.json(view["transitions"]["n"])},
        check_results=checks)


def _checks(store: Warehouse, stored: pl.DataFrame, source: str, today: date) -> list[AssetCheckResult]:
    total = stored.select(pl.sum_horizontal(*(f"p_{s}" for s in STATES)).alias("total"))["total"]
    off = stored.filter((total - 1).abs() > PROBABILITY_TOLERANCE)
    late = stored.filter((pl.col("date") > today) | (pl.col("data_as_of") > pl.col("date")))
    return [
        _result("probabilities_sum_to_one", off.is_empty(), {"days": stored.height, "days_off": off.height,
                                                             "first_off": str(off["date"][0]) if off.height else None}),
        _result("nothing_after_the_clock", late.is_empty(), {"clock": today.isoformat(), "days_after": late.height,
                                                            "last_day": str(stored["date"].max())}),
        _latest_matches_classify(store, stored.filter(pl.col("date") <= today), source),
    ]


def _latest_matches_classify(store: Warehouse, stored: pl.DataFrame, source: str) -> AssetCheckResult:
    if stored.is_empty():
        return _result("latest_label_is_classify", True, {"note": "no label stored yet"})
    row = stored.row(-1, named=True)
    fresh = classify(store.frames(REGIME_INPUTS, row["date"], LOOKBACK_DAYS, source))
    same = fresh["state"] == row["state"] and all(fresh["probabilities"][s] == row[f"p_{s}"] for s in STATES)
    return _result("latest_label_is_classify", same, {"day": str(row["date"]), "stored": row["state"],
                                                     "classify": fresh["state"]})


def _result(name: str, passed: bool, metadata: dict) -> AssetCheckResult:
    return AssetCheckResult(check_name=name, passed=passed, severity=AssetCheckSeverity.ERROR,
                            metadata={k: MetadataValue.json(v) if isinstance(v, dict) else v
                                      for k, v in metadata.items() if v is not None})
