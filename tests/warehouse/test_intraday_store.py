"""The warehouse's hourly candles: unchanged candles are not rewritten, and `frames()` attaches only the
candles closed by the clock's now (ts is the close time), in the 48 hours before it, as known then."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import polars as pl

from intel.frames import INTRADAY_SCHEMA
from warehouse.duckdb_store import Warehouse

NOW = datetime(2024, 6, 28, 14, 30, tzinfo=UTC)
H = timedelta(hours=1)


def candles(sid: str, closes: list[datetime], bump: float = 0.0) -> pl.DataFrame:
    values = [100.0 + i + bump for i in range(len(closes))]
    return pl.DataFrame({"series_id": [sid] * len(closes), "ts": closes, "open": values,
                         "high": [v + 1 for v in values], "low": [v - 1 for v in values], "close": values,
                         "volume": [5.0] * len(closes)}).cast(INTRADAY_SCHEMA)


def test_writer_skips_unchanged_candles_and_appends_revisions(tmp_path):
    closes = [NOW.replace(minute=0) - k * H for k in range(10, 0, -1)]
    with Warehouse(tmp_path / "w.duckdb") as wh:
        assert wh.write_intraday(candles("CBBTCUSD", closes), "live", NOW) == 10
        assert wh.write_intraday(candles("CBBTCUSD", closes), "live", NOW + H) == 0
        revised = candles("CBBTCUSD", closes).with_columns(
            pl.when(pl.col("ts") == closes[-1]).then(pl.col("close") + 0.5).otherwise(pl.col("close")).alias("close"))
        assert wh.write_intraday(revised, "live", NOW + 2 * H) == 1
        assert wh.con.execute("select count(*) from intraday").fetchone()[0] == 11


def test_frames_never_returns_a_candle_not_closed_by_now(tmp_path):
    closes = [NOW.replace(minute=0) + k * H for k in range(-60, 6)]  # 60 hours back to 5 hours ahead
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.write_intraday(candles("CBBTCUSD", closes), "live", NOW + 6 * H)
        wh.write_intraday(candles("CBETHUSD", closes), "live", NOW + 6 * H)
        wh.write_intraday(candles("CBBTCUSD", closes), "sim-other", NOW + 6 * H)
        frames = wh.frames(["CBBTCUSD"], NOW.date(), 30, "live", now_ts=NOW)
        assert set(frames.intraday) == {"CBBTCUSD"}  # only requested series
        btc = frames.intraday["CBBTCUSD"]
        assert btc["ts"].max() == NOW.replace(minute=0) and btc["ts"].min() >= NOW - 48 * H
        assert btc.height == 48 and btc.columns == ["ts", "open", "high", "low", "close", "volume"]
        assert btc["ts"].dtype == pl.Datetime("us", "UTC") and btc["ts"].is_sorted()
        # the existing signature keeps its meaning: no clock time, no intraday
        assert wh.frames(["CBBTCUSD"], NOW.date(), 30, "live").intraday == {}
        assert wh.frames(["CBBTCUSD"], date(2024, 6, 28), 30, "sim", now_ts=NOW).intraday == {}


def test_frames_reads_the_revision_known_at_now(tmp_path):
    closes = [NOW.replace(minute=0) - k * H for k in range(3, -1, -1)]
    with Warehouse(tmp_path / "w.duckdb") as wh:
        wh.write_intraday(candles("CBBTCUSD", closes), "live", NOW - 5 * timedelta(minutes=1))
        wh.write_intraday(candles("CBBTCUSD", closes, bump=7.0), "live", NOW + H)
        then = wh.frames(["CBBTCUSD"], NOW.date(), 30, "live", now_ts=NOW).intraday["CBBTCUSD"]
        later = wh.frames(["CBBTCUSD"], NOW.date(), 30, "live", now_ts=NOW + 2 * H).intraday["CBBTCUSD"]
    assert then["close"].to_list() == [100.0, 101.0, 102.0, 103.0]
    assert later["close"].to_list()[:4] == [107.0, 108.0, 109.0, 110.0]
