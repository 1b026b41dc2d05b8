"""The DuckDB warehouse on real files: bulk writes, revisions, point-in-time reads, results, analyst copy."""
from __future__ import annotations

import subprocess
import sys
import time
from datetime import date, datetime, timedelta

import duckdb
import polars as pl
import pytest

from warehouse.duckdb_store import Warehouse

T1 = datetime(2024, 3, 1, 21, 0)
T2 = datetime(2024, 3, 5, 21, 0)


def long(rows: list[tuple[str, date, float]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema={"series_id": pl.Utf8, "date": pl.Date, "value": pl.Float64}, orient="row")


@pytest.fixture
def wh(tmp_path):
    with Warehouse(tmp_path / "wh" / "warehouse.duckdb") as store:
        yield store


def test_write_then_read_frames_and_watermarks(wh):
    rows = [("DGS10", date(2024, 2, d), 4.0 + d / 100) for d in range(1, 29)]
    rows += [("VIXCLS", date(2024, 2, d), 13.0 + d) for d in range(1, 20)]
    rows += [("VIXCLS", date(2024, 2, 20), float("nan")), ("VIXCLS", date(2024, 2, 21), None)]
    assert wh.write_observations(long(rows), "sim", T1) == 28 + 19  # NaN and null are not observations

    assert wh.watermarks() == {"DGS10": date(2024, 2, 28), "VIXCLS": date(2024, 2, 19)}
    frames = wh.frames(["DGS10", "VIXCLS", "NOPE"], date(2024, 2, 15), 10, "sim")
    assert frames.now == date(2024, 2, 15) and frames.data_source == "sim"
    dgs = frames.get("DGS10")
    assert dgs["date"].to_list() == [date(2024, 2, d) for d in range(5, 16)]  # lookback window, nothing after now
    assert dgs["value"][-1] == pytest.approx(4.15)
    assert frames.get("NOPE") is None
    assert frames.last_date("VIXCLS") == date(2024, 2, 15)


def test_identical_rows_are_skipped_and_revisions_kept(wh):
    first = long([("CPIAUCSL", date(2024, 1, 1), 300.0), ("CPIAUCSL", date(2024, 2, 1), 301.0)])
    assert wh.write_observations(first, "replay", T1) == 2
    assert wh.write_observations(first, "replay", T1 + timedelta(hours=1)) == 0  # nothing new

    revised = long([("CPIAUCSL", date(2024, 1, 1), 300.0), ("CPIAUCSL", date(2024, 2, 1), 301.5),
                    ("CPIAUCSL", date(2024, 3, 1), 302.0)])
    assert wh.write_observations(revised, "replay", T2) == 2  # the revision and the new month
    assert wh.observations_count() == 4
    history = wh.con.execute(
        "select value from observations where date = '2024-02-01' order by ingested_at").fetchall()
    assert [v for (v,) in history] == [301.0, 301.5]
    # writing the old value back is a change against the latest revision, so it is stored again
    assert wh.write_observations(first.head(2).tail(1), "replay", T2 + timedelta(days=1)) == 1


def test_frames_are_point_in_time(wh):
    wh.write_observations(long([("UNRATE", date(2024, 1, 1), 3.7), ("UNRATE", date(2024, 2, 1), 3.9)]), "sim", T1)
    wh.write_observations(long([("UNRATE", date(2024, 2, 1), 3.8), ("UNRATE", date(2024, 3, 1), 3.9)]), "sim", T2)

    between = wh.frames(["UNRATE"], date(2024, 3, 4), 400, "sim").get("UNRATE")
    assert between["value"].to_list() == [3.7, 3.9, 3.9]  # the Feb revision came a day later; March known by date
    after = wh.frames(["UNRATE"], date(2024, 3, 5), 400, "sim").get("UNRATE")
    assert after["value"].to_list() == [3.7, 3.8, 3.9]
    # before the first ingestion only one vintage exists: the first stored one stands in
    early = wh.frames(["UNRATE"], date(2024, 2, 10), 400, "sim").get("UNRATE")
    assert early["value"].to_list() == [3.7, 3.9]


def test_watermarks_never_move_back(wh):
    wh.write_observations(long([("DGS2", date(2024, 3, 1), 4.5)]), "sim", T1)
    wh.write_observations(long([("DGS2", date(2024, 2, 1), 4.4)]), "sim", T2)  # an overlap re-fetch
    assert wh.watermarks() == {"DGS2": date(2024, 3, 1)}


def test_bulk_write_of_400k_rows_then_an_unchanged_rewrite(wh):
    # the speed of both writes is in bench/compute.py
    n_series, n_days = 80, 5000
    dates = pl.date_range(date(2005, 1, 1), date(2005, 1, 1) + timedelta(days=n_days - 1), eager=True)
    frame = pl.DataFrame({
        "series_id": pl.Series([f"S{i}" for i in range(n_series)]).repeat_by(n_days).explode(),
        "date": pl.concat([dates] * n_series),
        "value": pl.arange(0, n_series * n_days, eager=True).cast(pl.Float64),
    })
    assert wh.write_observations(frame, "sim", T1) == 400_000
    assert wh.write_observations(frame, "sim", T2) == 0  # every value equals its stored revision
    assert wh.observations_count() == 400_000
    s1 = wh.frames(["S1"], dates[-1], 10_000, "sim").get("S1")
    assert s1["date"].to_list() == dates.to_list()
    assert s1["value"].to_list() == [float(v) for v in range(n_days, 2 * n_days)]  # S1 holds the second block


def test_module_and_pulse_results(wh):
    assert "vix" not in wh.latest_module_results() and wh.latest_pulse() is None
    wh.write_module_result("vix", date(2024, 3, 1), {"module": "vix", "data": {"level": 14.2}}, "sim", T1)
    wh.write_module_result("vix", date(2024, 3, 4), {"module": "vix", "data": {"level": 15.0}}, "sim", T2)
    wh.write_module_result("vix", date(2024, 3, 4), {"module": "vix", "data": {"level": 16.0}}, "sim",
                           T2 + timedelta(minutes=2))  # same market day: replaces
    wh.write_module_result("oil", date(2024, 3, 4), {"module": "oil", "as_of": date(2024, 3, 4)}, "sim", T2)

    latest = wh.latest_module_results()["vix"]
    assert (latest.as_of, latest.payload["data"]["level"], latest.data_source) == (date(2024, 3, 4), 16.0, "sim")
    assert wh.con.execute("select count(*) from module_results where module = 'vix'").fetchone()[0] == 2
    everything = wh.latest_module_results()
    assert set(everything) == {"vix", "oil"} and everything["oil"].payload["as_of"] == "2024-03-04"

    wh.write_pulse(date(2024, 3, 4), {"regime": "calm"}, "sim", T2)
    assert wh.latest_pulse().payload == {"regime": "calm"}


def test_analyst_copy_is_a_complete_separate_file(wh, tmp_path):
    wh.write_observations(long([("DGS10", date(2024, 3, 1), 4.2)]), "sim", T1)
    wh.write_module_result("vix", date(2024, 3, 1), {"module": "vix"}, "sim", T1)
    dest = tmp_path / "analyst" / "analyst.duckdb"
    wh.refresh_analyst_copy(dest)
    wh.write_observations(long([("DGS10", date(2024, 3, 4), 4.3)]), "sim", T2)

    # an analyst holds the copy open while the next refresh replaces it
    analyst = duckdb.connect(str(dest), read_only=True)
    assert analyst.execute("select count(*) from observations").fetchone()[0] == 1
    wh.refresh_analyst_copy(dest)
    assert analyst.execute("select count(*) from observations").fetchone()[0] == 1  # keeps its snapshot
    analyst.close()
    with duckdb.connect(str(dest), read_only=True) as fresh:
        assert fresh.execute("select count(*) from observations").fetchone()[0] == 2
        assert fresh.execute("select module from module_results").fetchall() == [("vix",)]
    assert sorted(p.name for p in dest.parent.iterdir()) == ["analyst.duckdb"]  # no temp files left


def test_reopening_keeps_everything(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    with Warehouse(path) as store:
        store.write_observations(long([("DGS10", date(2024, 3, 1), 4.2)]), "sim", T1)
    with Warehouse(path) as store:
        assert store.watermarks() == {"DGS10": date(2024, 3, 1)}


def test_bars_round_trip(wh):
    bars = pl.DataFrame({"date": [date(2024, 3, 1), date(2024, 3, 4)], "open": [1.0, 2.0], "high": [1.5, 2.5],
                         "low": [0.5, 1.5], "close": [1.2, 2.2], "volume": [100.0, 200.0]})
    assert wh.write_bars("SPY", bars, "sim", T1) == 2
    assert wh.write_bars("SPY", bars.with_columns(close=pl.col("close") + 1), "sim", T2) == 2
    out = wh.bars("SPY", date(2024, 1, 1), date(2024, 12, 31))
    assert out["close"].to_list() == [2.2, 3.2] and out.schema["date"] == pl.Date
    assert wh.bars("QQQ", date(2024, 1, 1), date(2024, 12, 31)).is_empty()


def test_open_waits_for_another_process_to_release_the_file(tmp_path):
    path = tmp_path / "warehouse.duckdb"
    Warehouse(path).close()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "1.5"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(duckdb.IOException, match="(?i)lock"):
            Warehouse(path, lock_timeout_s=0.3)
        start = time.monotonic()
        with Warehouse(path, lock_timeout_s=30) as store:  # waits for the holder to let go
            assert time.monotonic() - start > 0.5 and store.watermarks() == {}
    finally:
        holder.wait(timeout=30)


HOLD = ("import duckdb, sys, time\n"
        "con = duckdb.connect(sys.argv[1])\n"
        "print('locked', flush=True)\n"
        "time.sleep(float(sys.argv[2]))\n")


def test_sources_never_mix(wh):
    wh.write_observations(long([("DGS10", date(2024, 3, 1), 4.2), ("DGS10", date(2024, 3, 4), 4.3)]), "sim", T1)
    wh.write_observations(long([("DGS10", date(2024, 3, 1), 4.1)]), "replay", T2)
    assert wh.watermarks("sim") == {"DGS10": date(2024, 3, 4)}
    assert wh.watermarks("replay") == {"DGS10": date(2024, 3, 1)}
    assert wh.watermarks() == {"DGS10": date(2024, 3, 4)}
    assert wh.frames(["DGS10"], date(2024, 3, 8), 30, "replay").get("DGS10")["value"].to_list() == [4.1]
    assert wh.frames(["DGS10"], date(2024, 3, 8), 30, "sim").get("DGS10")["value"].to_list() == [4.2, 4.3]

    wh.write_module_result("vix", date(2024, 3, 8), {"v": "sim"}, "sim", T2)
    wh.write_module_result("vix", date(2024, 3, 1), {"v": "replay"}, "replay", T2)
    wh.write_pulse(date(2024, 3, 8), {"v": "sim"}, "sim", T2)
    assert wh.latest_module_results()["vix"].payload == {"v": "sim"}
    assert wh.latest_module_results("replay")["vix"].payload == {"v": "replay"}
    assert wh.latest_module_results("replay")["vix"].as_of == date(2024, 3, 1)
    assert wh.latest_pulse("replay") is None and wh.latest_pulse("sim").payload == {"v": "sim"}


def test_first_publication_is_kept_where_the_source_gives_it(tmp_path):
    """A FRED row carries the day it was first published and its value then; a row without says nothing (null).
    A warehouse file from before these columns takes them on open, its rows null."""
    path = tmp_path / "old" / "warehouse.duckdb"
    path.parent.mkdir()
    with duckdb.connect(str(path)) as con:  # the table as it was before
        con.execute("create table observations (series_id varchar not null, date date not null, value double not "
                    "null, source varchar not null, ingested_at timestamp not null)")
        con.execute("insert into observations values ('GDP', '2023-10-01', 27610.1, 'live', '2024-01-01')")
    frame = pl.DataFrame([("GDP", date(2024, 1, 1), 28296.9, date(2024, 4, 25), 28269.2),
                          ("UNRATE", date(2024, 3, 1), 3.9, None, None)],
                         schema={"series_id": pl.Utf8, "date": pl.Date, "value": pl.Float64, "published": pl.Date,
                                 "first_value": pl.Float64}, orient="row")
    with Warehouse(path) as store:
        assert store.write_observations(frame, "live", T2) == 2
        assert store.write_observations(long([("DGS10", date(2024, 3, 1), 4.2)]), "live", T2) == 1
        rows = store.con.execute("select series_id, published, first_value from observations order by series_id"
                                 ).fetchall()
    assert rows == [("DGS10", None, None), ("GDP", None, None), ("GDP", date(2024, 4, 25), 28269.2),
                    ("UNRATE", None, None)]
