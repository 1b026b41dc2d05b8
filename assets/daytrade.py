"""The day-trade paper journal: each run closes the open paper ideas whose next bar has closed and opens new ones on
each instrument's newest closed bar (intel/daytrade), appending the events to the journal's hash chain in SQL. The
head of every earlier market day with records is signed at the first run of a later day (the day is then closed)."""
from datetime import date, datetime, timedelta

from dagster import (
    AssetCheckResult,
    AssetCheckSeverity,
    AssetCheckSpec,
    AssetExecutionContext,
    MaterializeResult,
    asset,
)

from assets.ingest import observations
from assets.resources import MarketResource, RecordsResource
from intel.daytrade import terms
from intel.daytrade.journal import INSTRUMENTS, closed_bars, next_events
from intel.hash_chain import verify
from warehouse.ledger.daytrade import DAYTRADE_CHAIN, Journal

BARS_LOOKBACK = timedelta(days=60)  # about 40 sessions: the rules read 22 closes


def journal_events(provider, journal: list[dict], now: datetime) -> tuple[list[dict], dict[str, int]]:
    """Every instrument's new events for a run at `now` (in instrument order), and how many closed bars each had."""
    provenance = {"data_source": provider.name, "simulated": provider.simulated}
    events, bars_seen = [], {}
    for instrument in INSTRUMENTS.values():
        frame = provider.bars(instrument.ticker, (now - BARS_LOOKBACK).date(), now.date())
        bars = closed_bars(instrument, frame["date"].to_list(), frame["close"].to_list(), now)
        bars_seen[instrument.symbol] = len(bars)
        events += next_events(instrument, bars, journal + events, now, terms.current(), provenance)
    return events, bars_seen


@asset(group_name="trading", deps=[observations], kinds={"sqlite"},
       check_specs=[AssetCheckSpec("journal_chain_verifies", asset="daytrade_journal",
                                   description="the journal's chain recomputes and its signed heads verify")],
       description="The day-trade paper journal: rule-based ENTERED and EXITED events on SPY, QQQ, IWM and bitcoin "
                   "(daily bars), appended to a signed hash chain.")
def daytrade_journal(context: AssetExecutionContext, market: MarketResource,
                     ledger: RecordsResource) -> MaterializeResult:
    journal, key, now = Journal(ledger.records().engine), ledger.key(), market.now
    head = journal.head()
    if head is not None and head["recorded_on"] < now.date().isoformat():
        journal.sign_head(date.fromisoformat(head["recorded_on"]), key)
    events, bars_seen = journal_events(market.provider, journal.bodies(), now)
    if events:
        journal.append(events, now.date())
    result = verify(DAYTRADE_CHAIN, journal.all_records(), journal.heads(), key.public_bytes)
    context.log.info(f"daytrade: {len(events)} events appended; closed bars per instrument {bars_seen}")
    return MaterializeResult(
        metadata={"appended": len(events), "bars": str(bars_seen), "chain_records": result.records},
        check_results=[AssetCheckResult(check_name="journal_chain_verifies", passed=result.ok,
                                        severity=AssetCheckSeverity.ERROR,
                                        metadata={"result": str(result.failure or "ok")})])

