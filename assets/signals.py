"""The `trading_signals` product: today's signal per strategy and instrument with the edge its rule showed in a
walk-forward back-test over the warehouse's whole stored history (intel/signals), on the refresh schedule."""

import time
from dataclasses import replace
from datetime import date

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from intel.signals.product import NAME, input_series, trading_signals


@asset(name=NAME, group_name="trading", deps=[observations], kinds={"numpy", "duckdb"},
       description="Trading signals (fed_macro, crypto, convergence, composite) with edge estimates from a "
                   "walk-forward back-test over the stored history, risk parameters and rationale.")
def trading_signals_asset(context: AssetExecutionContext, market: MarketResource,
                          warehouse: WarehouseResource) -> MaterializeResult:
    source, today = market.provider.name, market.today
    with warehouse.open() as store:
        # every stored date: the back-test runs over the whole history the warehouse holds
        frames = replace(store.frames(input_series(), today, (today - date(1, 1, 1)).days, source), clock=market.now)
        started = time.perf_counter()
        payload = trading_signals(frames, market.provider.simulated)
        seconds = time.perf_counter() - started
        store.write_product(NAME, today, payload, source, market.now)
    sides = {s["id"]: s["direction"] for s in payload["signals"]}
    context.log.info(f"{NAME}: {len(sides)} signals over {payload['history']['decision_days']} decision days "
                     f"in {seconds:.2f} s")
    return MaterializeResult(metadata={
        "as_of": today.isoformat(), "signals": len(sides), "compute_seconds": round(seconds, 3),
        "decision_days": payload["history"]["decision_days"], "simulated": payload["simulated"],
        "not_flat": MetadataValue.json({k: v for k, v in sides.items() if v != "flat"}),
        "missing_series": MetadataValue.json(payload["data_sources"]["missing"])})
