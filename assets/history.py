"""`module_history`: every non-ticker module's answer as of the start of each market day, one partition a day,
written to the history file (warehouse/history_store.py) for back-tests and `as_of` points.

A partition is computed from the analyst copy of the warehouse, as `as_of=<day>` is: the same file, the same code
(`payloads_on`), so a stored day equals a cold `as_of` answer. Reading the copy, not the warehouse, keeps a
backfill of years out of the refresh runs' way (the copy is replaced by rename; a run keeps the file it opened).

Backfills run as one run (`BackfillPolicy.single_run`), its days split over `MI_HISTORY_WORKERS` processes, and
publish the copy once at the end; the daily schedule materializes the market clock's day."""

import warnings
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import date, datetime, timedelta
from multiprocessing import get_context
from pathlib import Path

from dagster import (
    AssetExecutionContext,
    BackfillPolicy,
    BetaWarning,
    Failure,
    MaterializeResult,
    MetadataValue,
    TimeWindowPartitionsDefinition,
    asset,
)

from assets.modules import scheduled_modules
from assets.resources import HistoryResource, MarketResource, WarehouseResource
from intel.sessions import weekdays
from marketintel.settings import get_settings
from warehouse.duckdb_store import Warehouse
from warehouse.history_store import HistoryStore, rows_of
from warehouse.time_travel import payloads_on

# the single-run backfill policy is what lets a backfill of years be one run that publishes its copy once
warnings.filterwarnings("ignore", message=".*backfill_policy.*", category=BetaWarning)

CHUNK_DAYS = 20  # days a worker computes per task: enough to amortize the hand-over, small enough to balance
POOLED_FROM = 2 * CHUNK_DAYS  # fewer days are computed in the run's own process (a pool costs seconds to start)


def market_days(start: date) -> TimeWindowPartitionsDefinition:
    """One partition a weekday from `start`, through the current one (a day's answer is due at its 00:00 UTC).
    Holidays are kept: the answer as of a holiday is still the answer an agent would have had."""
    return TimeWindowPartitionsDefinition(cron_schedule="0 0 * * 1-5", start=datetime(start.year, start.month,
                                          start.day), fmt="%Y-%m-%d", timezone="UTC", end_offset=1)


HISTORY_PARTITIONS = market_days(get_settings().history_start)


def compute_days(analyst_path: str, days: Sequence[date], data_source: str) -> tuple[list, list]:
    """`module_history` and `module_figures` rows of every scheduled module on `days` (a worker's task)."""
    chosen = scheduled_modules()
    history, figures = [], []
    with Warehouse(Path(analyst_path), read_only=True) as store:
        for day in days:
            rows, cells = rows_of(day, payloads_on(store, day, chosen, data_source))
            history += rows
            figures += cells
    return history, figures


@asset(partitions_def=HISTORY_PARTITIONS, backfill_policy=BackfillPolicy.single_run(), group_name="history",
       deps=["publish"], kinds={"duckdb"},
       description="Every non-ticker module as of the start of each market day (as `as_of=<day>` answers), written "
                   "to history.duckdb and published to history-analyst.duckdb; backfill it over the days to serve.")
def module_history(context: AssetExecutionContext, market: MarketResource, warehouse: WarehouseResource,
                   history: HistoryResource) -> MaterializeResult:
    window = context.partition_time_window
    days = weekdays(window.start.date(), window.end.date() - timedelta(days=1))  # the window's end is exclusive
    late = [day for day in days if day > market.today]
    if late:  # a day after the market clock has no answer yet (a replay's clock runs behind the wall clock)
        raise Failure(f"{len(late)} day(s) from {late[0]} are after the market clock ({market.today}); "
                      "materialize only days up to it")
    copy = Path(warehouse.analyst_path)
    if not copy.exists():
        raise Failure("the warehouse has not been published yet (no analyst copy): run the refresh first")
    source = market.provider.name
    chunks = [days[i:i + CHUNK_DAYS] for i in range(0, len(days), CHUNK_DAYS)]
    answered = missing = 0
    with HistoryStore(Path(history.path)) as store:
        for done, (chunk, (rows, cells)) in enumerate(_computed(chunks, str(copy), source, history.workers), 1):
            store.replace_days(source, market.now, chunk, rows, cells)
            answered += sum(1 for row in rows if row[3] is not None)
            missing += sum(1 for row in rows if row[3] is None)
            context.log.info(f"{chunk[-1]}: {done}/{len(chunks)} chunks stored")
        store.publish(Path(history.copy_path))
    return MaterializeResult(metadata={
        "days": len(days), "answers": answered, "without_answer": missing,
        "history_copy": MetadataValue.path(history.copy_path),
        "size_mb": round(Path(history.path).stat().st_size / 1e6, 1)})


def _computed(chunks: list[list[date]], copy: str, source: str, workers: int):
    """(chunk, rows) for each chunk in order, over a pool of spawned processes when there are enough days."""
    if workers < 2 or sum(map(len, chunks)) < POOLED_FROM:
        for chunk in chunks:
            yield chunk, compute_days(copy, chunk, source)
        return
    # spawn, not fork: the run's process holds threads and DuckDB connections a forked child must not inherit
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        yield from zip(chunks, pool.map(compute_days, [copy] * len(chunks), chunks, [source] * len(chunks)))


SETTLE = timedelta(hours=6)  # releases dated before a day's 00:00 UTC that arrive late (a source's own lag)


def settled_day(market: MarketResource) -> date:
    """The latest weekday whose 00:00 UTC is at least SETTLE before the market clock: the partition the hourly
    schedule asks for."""
    from intel.providers.factory import make_clock, make_provider

    settings = market.settings()
    now = make_clock(settings, make_provider(settings)).now()
    day = (now - SETTLE).date()
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day
