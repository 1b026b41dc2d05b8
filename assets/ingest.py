"""Ingest: provider observations into the warehouse, incrementally from the watermarks."""

from datetime import date, datetime, timedelta

import orjson
import redis
from dagster import AssetExecutionContext, MaterializeResult, MetadataValue, asset

from assets.resources import MarketResource, WarehouseResource
from intel.providers.base import HourlyCandles, Provider, ReportsFailures, SourceBreakers
from warehouse import status as ops_status

# Re-fetch this many days below each watermark so late revisions of recent values are picked up
# (unchanged rows are skipped by the warehouse, so the overlap costs little).
OVERLAP_DAYS = 10
# The provider's whole history, for providers that are not simulations.
EPOCH = date(1900, 1, 1)


# Hourly candles re-fetched every run: the window the modules read (unchanged candles are not rewritten).
INTRADAY_HOURS = 48

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


def _fetch(provider: Provider, series_ids: list[str], start: date, now: datetime):
    """(frame, {series_id: error}, {series_id: source}) of what was published by `now`, each observation held back to
    its release's hour (not a close before its market closes). The live provider reports failed series and leaves
    them out of the frame, so a failure writes nothing for them and their stored rows stay as they were."""
    if isinstance(provider, ReportsFailures):
        result = provider.fetch(series_ids, start, now)
        return result.frame, result.failures, result.sources
    return provider.observations(series_ids, start, now), {}, {}


def _ingest_intraday(provider: Provider, store, ids: list[str], now: datetime) -> tuple[int, dict[str, str]]:
    """(rows written, {series_id: error}). Only providers with hourly candles write any (sim and replay have
    none, and none are invented); a failed series writes nothing, its stored candles stay."""
    if not isinstance(provider, HourlyCandles):
        return 0, {}
    result = provider.fetch_intraday(ids, now - timedelta(hours=INTRADAY_HOURS), now)
    return store.write_intraday(result.frame, provider.name, now), result.failures


def _restore_breakers(context, provider: Provider, client) -> None:
    """Each Dagster run may be a fresh process: carry the breakers over from the last run's status."""
    if not isinstance(provider, SourceBreakers):
        return
    try:
        raw = client.hgetall(ops_status.SOURCES)
        provider.restore_status({k.decode(): orjson.loads(v) for k, v in raw.items()})
    except (redis.RedisError, orjson.JSONDecodeError) as exc:
        context.log.warning(f"could not read the source statuses: {exc}")


def _publish_status(context, client, provider: Provider, report: dict) -> None:
    # Status is rebuildable: a Redis hiccup is logged, it does not undo an ingest already written.
    try:
        ops_status.publish_ingest(client, report)
        if isinstance(provider, SourceBreakers):
            ops_status.publish_sources(client, provider.status())
    except redis.RedisError as exc:
        context.log.warning(f"could not publish the ingest status: {exc}")


@asset(group_name="ingest",
       description="Every catalog series the provider offers, with revisions, as of the market clock.")
def observations(context: AssetExecutionContext, market: MarketResource,
                 warehouse: WarehouseResource) -> MaterializeResult:
    provider, today = market.provider, market.today
    client = market.status_client()
    _restore_breakers(context, provider, client)
    failures: dict[str, str] = {}
    series_sources: dict[str, str] = {}
    with warehouse.open() as store:
        marks = store.watermarks(provider.name)
        ids = sorted(provider.series_ids())
        new = [s for s in ids if s not in marks]
        written, fetched = 0, 0
        for series_ids, start in fetch_plans(ids, marks, backfill_start(market, today)):
            if start > today:
                continue
            frame, failed, answered = _fetch(provider, series_ids, start, market.now)
            failures.update(failed)
            series_sources.update(answered)
            fetched += frame.height
            written += store.write_observations(frame, provider.name, market.now)
            context.log.info(f"{len(series_ids)} series from {start}: {frame.height} fetched, {len(failed)} failed")
        intraday_written, intraday_failed = _ingest_intraday(provider, store, ids, market.now)
        after = store.watermarks(provider.name)
        total = store.observations_count()
    for series_id, error in sorted(failures.items()):
        context.log.warning(f"{series_id}: {error}")
    for series_id, error in sorted(intraday_failed.items()):
        context.log.warning(f"{series_id} (hourly candles): {error}")
    missing = sorted(set(ids) - set(after))
    # a refusing source (Stooq) that did answer this time makes its series live, not unavailable
    unavailable = ({sid: keys for sid, keys in provider.unavailable().items() if sid not in series_sources}
                   if isinstance(provider, ReportsFailures) else {})
    report = {"run_at": market.now.isoformat(), "data_source": provider.name, "rows_written": written,
              "series_ok": sorted(set(ids) - set(failures)), "series_failed": failures,
              "series_sources": series_sources, "series_unavailable": unavailable,
              "intraday_rows_written": intraday_written, "intraday_failed": intraday_failed}
    _publish_status(context, client, provider, report)
    sources = provider.status() if isinstance(provider, SourceBreakers) else {}
    return MaterializeResult(
        metadata={
            "market_date": MetadataValue.text(today.isoformat()),
            "data_source": provider.name,
            "rows_fetched": fetched,
            "rows_written": written,
            "series_new": len(new),
            "series_without_data": MetadataValue.json(missing),
            "series_failed": MetadataValue.json(failures),
            "series_sources": MetadataValue.json(series_sources),
            "series_unavailable": MetadataValue.json(unavailable),
            "intraday_rows_written": intraday_written,
            "intraday_failed": MetadataValue.json(intraday_failed),
            "source_status": MetadataValue.json(sources),
            "rows_total": total,
        }
    )
