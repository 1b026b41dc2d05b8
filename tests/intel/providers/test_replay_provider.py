"""ReplayProvider: a folder of date,value CSVs served point-in-time."""
from __future__ import annotations

import logging
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest

from intel.catalog import CATALOG
from intel.frames import BARS_SCHEMA, LONG_SCHEMA
from intel.providers.replay import ReplayProvider
from tests.history import history_dir


def write(folder: Path, name: str, rows: list[tuple[str, str]], header: str = "date,value") -> None:
    (folder / f"{name}.csv").write_text("\n".join([header, *(f"{d},{v}" for d, v in rows)]) + "\n")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    write(tmp_path, "CPIAUCSL", [(f"2019-{m:02d}-01", str(250 + m)) for m in range(1, 13)]
          + [("2020-01-01", "259.0"), ("2020-02-01", "259.2"), ("2020-03-01", "258.1")])
    write(tmp_path, "DGS10", [("2020-03-05", "0.92"), ("2020-03-06", "."), ("2020-03-09", "0.54"),
                              ("2020-03-10", "0.76")])
    write(tmp_path, "XLK", [("2020-03-09", "80.1"), ("2020-03-10", "85.3")])
    write(tmp_path, "MYSERIES", [("2020-03-09", "1.5"), ("2020-03-10", "1.6")])
    (tmp_path / "BROKEN.csv").write_bytes(b"\x00\x01garbage\xff\n\x02")
    (tmp_path / "WRONGCOLS.csv").write_text("when,howmuch\n2020-01-01,3\n")
    (tmp_path / "notes.txt").write_text("not a series")
    return tmp_path


def test_loads_good_files_and_warns_about_bad_ones(folder, caplog):
    with caplog.at_level(logging.WARNING, logger="intel.providers.replay"):
        provider = ReplayProvider(folder)
    assert provider.name == "replay" and provider.simulated is False
    assert provider.series_ids() == ["CPIAUCSL", "DGS10", "MYSERIES", "XLK"]
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert "BROKEN.csv" in warned and "WRONGCOLS.csv" in warned


def test_point_in_time_with_release_lags(folder):
    provider = ReplayProvider(folder)
    end = date(2020, 3, 10)
    frame = provider.observations(["CPIAUCSL", "DGS10", "MYSERIES", "XLK"], date(2019, 6, 1), end)
    assert frame.schema == pl.Schema(LONG_SCHEMA)
    last = {sid: d for sid, d in frame.group_by("series_id").agg(pl.col("date").max()).iter_rows()}
    assert last["CPIAUCSL"] == date(2020, 1, 1)  # February's CPI is out mid-March
    assert last["DGS10"] == date(2020, 3, 9)  # next-day publication
    assert last["MYSERIES"] == end and last["XLK"] == end  # unknown id: lag 0; ETF: known at the close
    assert frame["date"].min() == date(2019, 6, 1)
    cpi_lag = CATALOG["CPIAUCSL"].release_lag_days
    later = provider.observations(["CPIAUCSL"], date(2020, 1, 1), date(2020, 3, 1) + timedelta(days=cpi_lag))
    assert later["date"].to_list() == [date(2020, 1, 1), date(2020, 2, 1), date(2020, 3, 1)]


def test_a_close_is_not_known_before_its_market_closes(folder):
    """A replayed day starts at 00:00 UTC: the day's ETF close (lag 0) is out at 16:00 New York, not before; the
    10-year yield of the day before at 16:15 New York (H.15); a date still means the whole day."""
    provider = ReplayProvider(folder)

    def last(moment) -> dict:
        frame = provider.observations(["DGS10", "XLK"], date(2020, 3, 1), moment)
        return dict(frame.group_by("series_id").agg(pl.col("date").max()).iter_rows())

    assert last(datetime(2020, 3, 10, 0, 0, 5, tzinfo=UTC)) == {"XLK": date(2020, 3, 9), "DGS10": date(2020, 3, 5)}
    assert last(datetime(2020, 3, 10, 19, 59, tzinfo=UTC)) == {"XLK": date(2020, 3, 9), "DGS10": date(2020, 3, 5)}
    assert last(datetime(2020, 3, 10, 20, 0, tzinfo=UTC)) == {"XLK": date(2020, 3, 10), "DGS10": date(2020, 3, 5)}
    assert last(datetime(2020, 3, 10, 20, 15, tzinfo=UTC)) == {"XLK": date(2020, 3, 10), "DGS10": date(2020, 3, 9)}
    assert last(date(2020, 3, 10)) == {"XLK": date(2020, 3, 10), "DGS10": date(2020, 3, 9)}
    assert provider.bars("XLK", date(2020, 3, 1), datetime(2020, 3, 10, 0, 0, 5, tzinfo=UTC))["date"].to_list() == [
        date(2020, 3, 9)]


def test_gaps_marked_with_a_dot_are_dropped(folder):
    frame = ReplayProvider(folder).observations(["DGS10"], date(2020, 1, 1), date(2020, 12, 31))
    assert frame["date"].to_list() == [date(2020, 3, 5), date(2020, 3, 9), date(2020, 3, 10)]
    assert frame["value"].to_list() == [0.92, 0.54, 0.76]


def test_bars_are_close_only_where_the_folder_has_the_ticker(folder):
    provider = ReplayProvider(folder)
    bars = provider.bars("XLK", date(2020, 1, 1), date(2020, 3, 9))
    assert bars.schema == pl.Schema(BARS_SCHEMA)
    assert bars["close"].to_list() == [80.1]
    assert bars.select("open", "high", "low", "volume").null_count().row(0) == (1, 1, 1, 1)
    assert provider.bars("xlk", date(2020, 1, 1), date(2020, 12, 31)).height == 2
    assert provider.bars("AAPL", date(2020, 1, 1), date(2020, 12, 31)).height == 0
    assert provider.bars("X LK", date(2020, 1, 1), date(2020, 12, 31)).height == 0


def test_default_start_is_the_day_after_the_last_observation(folder):
    provider = ReplayProvider(folder)
    everything = provider.observations(provider.series_ids(), date(1900, 1, 1), date(2100, 1, 1))
    last = dict(everything.group_by("series_id").agg(pl.col("date").max()).iter_rows())
    assert last["CPIAUCSL"] == date(2020, 3, 1) and max(last.values()) == date(2020, 3, 10)
    assert provider.default_start() == date(2020, 3, 11)
    assert "SP500" not in provider.series_ids()  # a catalog series the folder lacks is not offered


def test_empty_folder(tmp_path):
    provider = ReplayProvider(tmp_path)
    assert provider.series_ids() == []
    assert provider.observations(["SP500"], date(2000, 1, 1), date(2030, 1, 1)).height == 0
    with pytest.raises(ValueError):
        provider.default_start()


def test_the_real_history_folder():
    folder = history_dir()
    provider = ReplayProvider(folder)  # its load time is in bench/compute.py
    files = sorted(folder.glob("*.csv"))
    assert len(provider.series_ids()) == len(files) == 78
    everything = provider.observations(provider.series_ids(), date(1900, 1, 1), date(2100, 1, 1))
    counts = dict(everything.group_by("series_id").len().iter_rows())
    for path in files:
        rows = sum(1 for line in path.read_text().splitlines()[1:] if line.strip())
        assert counts[path.stem] == rows, path.stem
    last = dict(everything.group_by("series_id").agg(pl.col("date").max()).iter_rows())
    assert provider.default_start() == max(last.values()) + timedelta(days=1)
    assert last["SP500"] == date(2026, 2, 11)
    bars = provider.bars("SP500", date(2025, 1, 1), date(2025, 12, 31))
    assert bars.height > 200 and bars["close"].min() > 3000
