"""Hourly candles in the live ingest, as real Dagster materializations against the local protocol server:
written once, not duplicated by a repeat run, kept as they were when Coinbase fails (the failure recorded),
and read back point in time by the bitcoin module."""
from __future__ import annotations

from datetime import UTC, timedelta

from intel.modules import bitcoin
from marketintel.settings import Settings
from tests.intel.providers.live.protocol_server import fixture_hourly
from tests.pipelines.live_ingest import ingest, redis_status
from warehouse.duckdb_store import Warehouse


def stored_candles() -> list[tuple]:
    with Warehouse(Settings().warehouse_path) as store:
        return store.con.execute("select series_id, ts, close from intraday where source = 'live'"
                                 " order by all").fetchall()


def test_live_ingest_writes_hourly_candles_once(live, redis_url):
    meta = ingest()
    rows = stored_candles()
    assert meta["intraday_failed"] == {} and meta["intraday_rows_written"] == len(rows)
    assert {sid for sid, *_ in rows} == {"CBBTCUSD", "CBETHUSD"} and len(rows) >= 2 * 47
    assert all(close == fixture_hourly(sid, ts - timedelta(hours=1)) for sid, ts, close in rows)
    again = ingest()
    after = stored_candles()
    keys = [(sid, ts) for sid, ts, _ in after]
    assert len(keys) == len(set(keys))  # a repeat run duplicates nothing
    # only an hour that closed between the two runs (the wall clock crossing the hour) may be new
    assert again["intraday_rows_written"] == len(after) - len(rows) <= 2


def test_a_coinbase_failure_keeps_the_candles_and_is_recorded(live, redis_url):
    ingest()
    before = stored_candles()
    live.bump = 1.0
    live.faults["coinbase"] = "html"
    meta = ingest()
    assert set(meta["intraday_failed"]) == {"CBBTCUSD", "CBETHUSD"} and meta["intraday_rows_written"] == 0
    assert stored_candles() == before
    sources, report = redis_status(redis_url)
    assert set(report["intraday_failed"]) == {"CBBTCUSD", "CBETHUSD"}
    assert "HTML" in sources["coinbase"]["last_error"]


def test_the_bitcoin_module_reads_the_ingested_candles(live, redis_url):
    from datetime import datetime

    ingest()
    now = datetime.now(UTC)
    with Warehouse(Settings().warehouse_path) as store:
        frames = store.frames([bitcoin.SERIES], now.date(), 3700, "live", now_ts=now)
    block = bitcoin.compute(frames)["data"]["intraday"]
    last = frames.intraday["CBBTCUSD"]["ts"][-1]
    assert last <= now and block["last_close_ts"] == last.isoformat()
    assert block["last_close_usd"] == fixture_hourly("CBBTCUSD", last - timedelta(hours=1))
