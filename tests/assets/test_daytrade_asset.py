"""The `daytrade_journal` asset materialized for real on replayed history (the real CBBTCUSD CSV, the migrated SQLite
ledger): bitcoin's new highs of early November 2020 open and close paper ideas at the CSV's closes, nothing dated
after the clock is read, a rerun the same day adds nothing, and the earlier day's head is signed. The replay folder
has no SPY, QQQ or IWM bars, so on replay the journal holds bitcoin alone (the sim provider has all four)."""
from __future__ import annotations

import csv
from datetime import date, timedelta

from dagster import materialize

from assets.daytrade import daytrade_journal
from assets.resources import MarketResource, RecordsResource
from intel.hash_chain import verify
from marketintel.signing import load_or_create
from tests.history import history_dir, required
from tests.replays import replay_settings
from warehouse.ledger import make_engine
from warehouse.ledger.daytrade import DAYTRADE_CHAIN, Journal

FIRST = date(2020, 11, 3)
DAYS = 4


def run_on(day: date, redis_url, monkeypatch):
    settings = replay_settings(day, redis_url, monkeypatch)
    result = materialize([daytrade_journal], resources={"market": MarketResource.from_settings(settings),
                                                        "ledger": RecordsResource.from_settings(settings)})
    assert result.success and all(c.passed for c in result.get_asset_check_evaluations())
    return settings, result.asset_materializations_for_node("daytrade_journal")[0].metadata["appended"].value


def test_the_journal_on_replayed_bitcoin(mi_home, redis_url, monkeypatch):
    path = required(history_dir() / "CBBTCUSD.csv", "the replayed bitcoin closes")
    with path.open() as f:
        closes = {row["date"]: float(row["value"]) for row in csv.DictReader(f)}
    appended = 0
    for n in range(DAYS):
        settings, count = run_on(FIRST + timedelta(days=n), redis_url, monkeypatch)
        appended += count
    _, again = run_on(FIRST + timedelta(days=DAYS - 1), redis_url, monkeypatch)
    assert again == 0  # the same day again: nothing new

    journal = Journal(make_engine(settings.sqlalchemy_url))
    records = journal.all_records()
    assert len(records) == appended > 0
    last_clock = FIRST + timedelta(days=DAYS - 1)
    for record in records:
        event = record["event"]
        assert event["instrument"] == "BTC-USD" and event["data_source"] == "replay"
        assert event["reference_price"] == closes[event["bar_date"]]  # the CSV's close for that bar
        assert date.fromisoformat(event["bar_date"]) < date.fromisoformat(record["recorded_on"]) <= last_clock
    assert {e["event"]["event"] for e in records} == {"ENTERED", "EXITED"}
    heads = journal.heads()
    assert heads and verify(DAYTRADE_CHAIN, records, heads, load_or_create(mi_home).public_bytes).ok
