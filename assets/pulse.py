"""The pulse: the free one-glance market state, with the premium modules it points to."""

from dataclasses import replace

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.ingest import observations
from assets.resources import MarketResource, WarehouseResource
from charging.prices import premium_modules
from intel.envelope import InsufficientData
from intel.registry import modules


@asset(group_name="pulse", deps=[observations], kinds={"polars", "duckdb"},
       description="The pulse: regime, key moves and the premium modules worth a look.")
def pulse(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource) -> MaterializeResult:
    from intel.pulse import PULSE_INPUTS, PULSE_LOOKBACK_DAYS, compute_pulse

    premium = premium_modules(modules())
    source = market.provider.name
    with warehouse.open() as store:
        # the clock's time for `generated_at`; the pulse reads no intraday candles, so none are attached
        frames = replace(store.frames(PULSE_INPUTS, market.today, PULSE_LOOKBACK_DAYS, source), clock=market.now)
        try:
            payload = compute_pulse(frames, premium)
        except InsufficientData as exc:
            context.log.warning(f"pulse: insufficient data: {exc}")
            return MaterializeResult(metadata={"status": "insufficient_data", "reason": str(exc)})
        store.write_pulse(market.today, payload, source, market.now)
    return MaterializeResult(metadata={"status": "ok", "as_of": str(payload.get("as_of", market.today)),
                                       "premium_modules": len(premium)})
