"""Ingest: provider observations into the warehouse, incrementally from the watermarks."""

from datetime import date, timedelta

from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.resources import MarketResource, WarehouseResource

# Re-fetch this many days below each watermark so late revisions of recent values are picked up
# (unchanged rows are skipped by the warehouse, so the overlap costs little).
OVERLAP_DAYS = 10
# The provider's whole history, for providers that are not simulations.
EPOCH = date(1900, 1, 1)


# Series whose restart dates lie within this many days share one provider call.
GROUP_SPAN_DAYS = 120


def fetch_plans(ids: list[str], marks: dict[str, date], backfill_from: date) -> list[tuple[list[str], date]]:
    """(series, start) provider calls: series never seen start at `backfill_from`; the others at their
    watermark minus the overlap, grouped so that one long-discontinued series does not drag every other
    series' fetch back years."""
    plans: list[tuple[list[str], date]] = []
    new = [s for s in ids if s not in marks]
    if new:
        plans.append((new, backfill_from))
    starts = sorted((marks[s] - timedelta(days=OVERLAP_DAYS), s) for s in ids if s in marks)
    for start, series_id in starts:
        if plans and plans[-1][0][0] not in new and (start - plans[-1][1]).days <= GROUP_SPAN_DAYS:
            plans[-1][0].append(series_id)
        else:
            plans.append(([series_id], start))
    return plans


def backfill_start(market: MarketResource, today: date) -> date:
    if market.provider.simulated:
        return today - timedelta(days=round(365.25 * market.sim_years))
    return EPOCH


@asset(group_name="ingest", description="Every catalog series the provider offers, with revisions, as of the market clock.")
def observations(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource) -> MaterializeResult:
    provider, today = market.provider, market.today
    with warehouse.open() as store:
        marks = store.watermarks(provider.name)
        ids = sorted(provider.series_ids())
        new = [s for s in ids if s not in marks]
        written, fetched = 0, 0
        for series_ids, start in fetch_plans(ids, marks, backfill_start(market, today)):
            if start > today:
                continue
            frame = provider.observations(series_ids, start, today)
            fetched += frame.height
            written += store.write_observations(frame, provider.name, market.now)
            context.log.info(f"{len(series_ids)} series from {start}: {frame.height} fetched")
        after = store.watermarks(provider.name)
        total = store.observations_count()
    missing = sorted(set(ids) - set(after))
    return MaterializeResult(
        metadata={
            "market_date": MetadataValue.text(today.isoformat()),
            "data_source": provider.name,
            "rows_fetched": fetched,
            "rows_written": written,
            "series_new": len(new),
            "series_without_data": MetadataValue.json(missing),
            "rows_total": total,
        }
    )
