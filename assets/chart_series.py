"""The `chart_series` product: the daily series the content charts draw (intel/content/chart_series.py), read
from the warehouse's observations dated at or before the market clock and stored for the publish step, which
puts it in Redis where the API and the content workers read it (they never open the warehouse).

One asset check, evaluated in the same step: no point and no curve snapshot is dated after the clock."""

import time
from dataclasses import replace

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
from intel.content.chart_series import INPUTS, LOOKBACK_DAYS, PRODUCT, chart_series_view

CHECKS = {"nothing_after_the_clock": "no series point or curve snapshot is dated after the market clock"}


def dates_after(view: dict, today: str) -> list[str]:
    """`series_id:date` of every point dated after `today` (ISO dates compare as strings)."""
    late = [f"{sid}:{d}" for sid, s in view["series"].items() for d in s["dates"] if d > today]
    for name, snapshot in view["curve"].items():
        if snapshot:
            late += [f"curve.{name}:{p['date']}" for p in snapshot["points"] if p["date"] > today]
    return late


@asset(name=PRODUCT, group_name="content", deps=[observations], kinds={"polars", "duckdb"},
       check_specs=[AssetCheckSpec(n, asset=PRODUCT, description=d) for n, d in CHECKS.items()],
       description="The daily series the content charts draw (indices, VIX, bitcoin, high-yield spread: about two "
                   "years plus the 200-day warm-up; the Treasury curve now and a year earlier).")
def chart_series(context: AssetExecutionContext, market: MarketResource,
                 warehouse: WarehouseResource) -> MaterializeResult:
    started = time.perf_counter()
    source, today = market.provider.name, market.today
    with warehouse.open() as store:
        frames = replace(store.frames(INPUTS, today, LOOKBACK_DAYS, source), clock=market.now)
        view = chart_series_view(frames, today, source, market.provider.simulated)
        store.write_product(PRODUCT, today, view, source, market.now)
    late = dates_after(view, today.isoformat())
    points = sum(len(s["dates"]) for s in view["series"].values())
    context.log.info(f"chart_series: {points} points of {len(view['series'])} series through {view['data_as_of']}")
    return MaterializeResult(
        metadata={"as_of": view["as_of"], "data_as_of": view["data_as_of"] or "none", "points": points,
                  "series": MetadataValue.json(sorted(view["series"])),
                  "missing": MetadataValue.json(view["missing"]),
                  "seconds": round(time.perf_counter() - started, 3)},
        check_results=[AssetCheckResult(check_name="nothing_after_the_clock", passed=not late,
                                        severity=AssetCheckSeverity.ERROR,
                                        metadata={"clock": view["as_of"], "late": MetadataValue.json(late[:20])})])
