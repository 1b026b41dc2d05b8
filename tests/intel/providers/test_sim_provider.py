"""SimProvider: every catalog series on its own calendar, deterministic, prefix-stable, point-in-time."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import numpy as np
import polars as pl
import pytest

from intel.catalog import CATALOG, FOREIGN_SHORT_RATES, TREASURY_TENORS
from intel.frames import LONG_SCHEMA
from intel.providers.sim import SimProvider

END = date(2026, 3, 2)
ALL = sorted(CATALOG)


@pytest.fixture(scope="module")
def sim() -> SimProvider:
    return SimProvider()


@pytest.fixture(scope="module")
def history(sim) -> pl.DataFrame:
    return sim.observations(ALL, date(2000, 1, 1), END)


def series(history: pl.DataFrame, series_id: str) -> pl.DataFrame:
    return history.filter(pl.col("series_id") == series_id).drop("series_id")


def test_identity():
    provider = SimProvider()
    assert provider.name == "sim" and provider.simulated is True
    assert provider.series_ids() == ALL


def test_every_catalog_series_on_its_own_calendar(history):
    assert history.schema == pl.Schema(LONG_SCHEMA)
    for series_id, entry in CATALOG.items():
        frame = series(history, series_id)
        assert frame.height > 0, series_id
        dates = frame["date"]
        assert dates.is_sorted() and dates.n_unique() == frame.height
        weekdays = set(dates.dt.weekday().unique().to_list())  # Monday = 1
        days = set(dates.dt.day().unique().to_list())
        if entry.frequency == "daily" and not entry.trades_weekends:
            assert weekdays <= {1, 2, 3, 4, 5}, series_id
        elif entry.frequency == "daily":
            assert weekdays == set(range(1, 8)), series_id
        elif entry.frequency == "weekly":
            assert len(weekdays) == 1, series_id
            assert set(dates.diff().drop_nulls().dt.total_days().unique().to_list()) == {7}
        elif entry.frequency == "monthly":
            assert days == {1}, series_id
        else:
            assert days == {1} and set(dates.dt.month().unique().to_list()) <= {1, 4, 7, 10}, series_id
        if entry.first_date is not None:
            assert dates.min() >= entry.first_date


def test_at_least_fifteen_years_of_history(history):
    for series_id, entry in CATALOG.items():
        if entry.first_date is None:
            first = series(history, series_id)["date"].min()
            assert first <= date(2005, 2, 1), series_id


def test_deterministic_for_a_seed():
    a = SimProvider(seed=3).observations(["SP500", "CPIAUCSL", "DEXJPUS"], date(2005, 1, 1), date(2012, 1, 1))
    b = SimProvider(seed=3).observations(["SP500", "CPIAUCSL", "DEXJPUS"], date(2005, 1, 1), date(2012, 1, 1))
    c = SimProvider(seed=4).observations(["SP500", "CPIAUCSL", "DEXJPUS"], date(2005, 1, 1), date(2012, 1, 1))
    assert a.equals(b)
    assert not a.equals(c)


def test_prefix_stable_whatever_the_requested_end(history):
    """A short request on a fresh instance sees exactly the long history cut at its end."""
    for cut in (date(2009, 6, 17), date(2014, 12, 31), date(2021, 1, 4)):
        short = SimProvider().observations(ALL, date(2000, 1, 1), cut)
        lags = pl.DataFrame({"series_id": ALL, "lag": [CATALOG[s].release_lag_days for s in ALL]})
        expected = (history.join(lags, on="series_id")
                    .filter(pl.col("date") + pl.duration(days=pl.col("lag")) <= cut).drop("lag"))
        assert short.sort(["series_id", "date"]).equals(expected.sort(["series_id", "date"]))


def test_nothing_past_end_and_release_lags_respected():
    end = date(2020, 3, 10)
    frame = SimProvider().observations(ALL, date(2019, 1, 1), end)
    lags = pl.DataFrame({"series_id": ALL, "lag": [CATALOG[s].release_lag_days for s in ALL]})
    checked = frame.join(lags, on="series_id")
    assert checked.height == frame.height
    assert checked.filter(pl.col("date") + pl.duration(days=pl.col("lag")) > end).height == 0
    last = {sid: d for sid, d in frame.group_by("series_id").agg(pl.col("date").max()).iter_rows()}
    assert last["CPIAUCSL"] == date(2020, 1, 1)  # February's CPI comes out mid-March
    assert last["UNRATE"] == date(2020, 2, 1)  # out on the first Friday of March
    assert last["XLK"] == end  # ETF closes are known at the close
    assert last["DGS10"] == end - timedelta(days=1)
    assert last["GDPC1"] == date(2019, 10, 1)  # Q4 advance estimate in late January


def test_a_close_is_not_known_before_its_market_closes(sim):
    """At 00:00:05 UTC the day's ETF close and bar are not out yet; after 16:00 New York they are."""
    def last(moment) -> dict:
        frame = sim.observations(["XLK", "CBBTCUSD"], date(2020, 3, 1), moment)
        return dict(frame.group_by("series_id").agg(pl.col("date").max()).iter_rows())

    early, late = datetime(2020, 3, 10, 0, 0, 5, tzinfo=UTC), datetime(2020, 3, 10, 20, 1, tzinfo=UTC)
    assert last(early) == {"XLK": date(2020, 3, 9), "CBBTCUSD": date(2020, 3, 9)}  # bitcoin's 9th closed at 00:00 UTC
    assert last(late) == {"XLK": date(2020, 3, 10), "CBBTCUSD": date(2020, 3, 9)}
    assert sim.bars("XLK", date(2020, 3, 1), early)["date"].max() == date(2020, 3, 9)
    assert sim.bars("XLK", date(2020, 3, 1), late)["date"].max() == date(2020, 3, 10)


def test_start_and_unknown_ids(sim):
    frame = sim.observations(["SP500", "NOT_A_SERIES"], date(2015, 6, 1), date(2015, 6, 30))
    assert set(frame["series_id"]) == {"SP500"}
    assert frame["date"].min() >= date(2015, 6, 1) and frame["date"].max() <= date(2015, 6, 30)
    assert sim.observations(["SP500"], date(2015, 6, 30), date(2015, 6, 1)).height == 0
    assert sim.observations(["SP500"], date(1990, 1, 1), date(2004, 12, 31)).height == 0


def test_the_whole_catalog_in_one_call():
    # its speed is in bench/compute.py
    frame = SimProvider(seed=99).observations(ALL, date(2005, 1, 1), date(2026, 12, 31))
    assert set(frame["series_id"]) == set(ALL) and frame.height > 200_000
    assert frame["date"].min() >= date(2005, 1, 1) and frame["date"].max() <= date(2026, 12, 31)
    assert frame["value"].is_finite().all() and frame.select("series_id", "date").is_unique().all()


def test_curve_and_levels_are_realistic(history):
    wide = history.filter(pl.col("series_id").is_in(["DGS10", "DGS2", "T10Y2Y"])).pivot(
        on="series_id", index="date", values="value")
    assert np.allclose(wide["T10Y2Y"], wide["DGS10"] - wide["DGS2"], atol=1e-9)
    tenors = history.filter(pl.col("series_id").is_in(list(TREASURY_TENORS)))
    assert tenors["value"].min() >= 0 and tenors["value"].max() < 12
    checks = {"VIXCLS": (9, 80), "BAMLH0A0HYM2": (1.5, 25), "BAMLC0A0CM": (0.3, 8), "UNRATE": (3, 15),
              "DEXUSEU": (0.8, 1.9), "DEXJPUS": (70, 200), "DEXUSUK": (1.0, 2.3), "DCOILWTICO": (8, 250),
              "T10YIE": (-1, 4), "FEDFUNDS": (0, 9), "UMCSENT": (40, 110), "CBBTCUSD": (50, 2_000_000)}
    for series_id, (lo, hi) in checks.items():
        values = series(history, series_id)["value"]
        assert lo <= values.min() and values.max() <= hi, (series_id, values.min(), values.max())
    assert set(series(history, "USREC")["value"].unique().to_list()) <= {0.0, 1.0}


def test_foreign_short_rates_are_plausible(history):
    """The carry legs: within real-world ranges, moving with the US cycle, Japan low and Mexico high."""
    funds = series(history, "FEDFUNDS")
    for ccy, series_id in FOREIGN_SHORT_RATES.items():
        frame = series(history, series_id)
        assert -1.0 <= frame["value"].min() and frame["value"].max() <= 12.0, (ccy, frame["value"].min())
        both = frame.join(funds, on="date", suffix="_us")
        assert np.corrcoef(both["value"], both["value_us"])[0, 1] > 0.2, ccy
    mean = {ccy: series(history, sid)["value"].mean() for ccy, sid in FOREIGN_SHORT_RATES.items()}
    assert mean["JPY"] < 1.0 < funds["value"].mean() < mean["MXN"]


def test_prices_grow_at_realistic_rates(history):
    for series_id, (lo, hi) in {"CPIAUCSL": (1.0, 4.5), "CPILFESL": (1.0, 4.5), "PCEPILFE": (0.8, 4.5),
                                "SP500": (-2.0, 14.0), "GDPC1": (0.5, 4.0), "M2SL": (3.0, 10.0)}.items():
        frame = series(history, series_id)
        years = (frame["date"][-1] - frame["date"][0]).days / 365.25
        growth = ((frame["value"][-1] / frame["value"][0]) ** (1 / years) - 1) * 100
        assert lo <= growth <= hi, (series_id, growth)
