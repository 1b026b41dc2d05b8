"""SimProvider.bars: OHLCV for any ticker, consistent ranges, stable per ticker, tied to the market."""
from __future__ import annotations

from datetime import date

import numpy as np
import polars as pl
import pytest

from intel.frames import BARS_SCHEMA
from intel.providers.sim import SimProvider
from intel.providers.sim_bars import ticker_profile

START, END = date(2015, 1, 1), date(2024, 12, 31)


@pytest.fixture(scope="module")
def sim() -> SimProvider:
    return SimProvider()


@pytest.mark.parametrize("ticker", ["AAPL", "BRK.B", "^GSPC", "EURUSD=X", "BTC-USD", "SP500", "XLK", "CBBTCUSD"])
def test_ohlc_ranges_are_consistent(sim, ticker):
    bars = sim.bars(ticker, START, END)
    assert bars.schema == pl.Schema(BARS_SCHEMA)
    assert bars.height > 2000
    assert bars.null_count().sum_horizontal().item() == 0
    assert bars["date"].is_sorted() and bars["date"].min() >= START and bars["date"].max() <= END
    lo = pl.min_horizontal("open", "close")
    hi = pl.max_horizontal("open", "close")
    assert bars.filter((pl.col("low") > lo) | (lo > hi) | (hi > pl.col("high"))).height == 0
    assert bars["low"].min() > 0 and bars["volume"].min() > 0


def test_catalog_tickers_close_on_the_simulated_series(sim):
    bars = sim.bars("SP500", START, END)
    series = sim.observations(["SP500"], START, END)
    joined = bars.join(series, on="date")
    assert joined.height >= series.height
    assert np.allclose(joined["close"], joined["value"])


def test_deterministic_stable_and_case_blind():
    a = SimProvider().bars("MSFT", START, END)
    b = SimProvider().bars("msft", START, END)
    assert a.equals(b)
    assert not a.equals(SimProvider().bars("MSFS", START, END))
    short = SimProvider().bars("MSFT", START, date(2018, 3, 1))
    assert short.equals(a.filter(pl.col("date") <= date(2018, 3, 1)))


def test_ticker_returns_carry_their_beta_to_the_market(sim):
    spx = sim.observations(["SP500"], START, END).select("date", pl.col("value").log().diff().alias("m"))
    for ticker in ("AAPL", "KO", "NVDA", "ZZZQ"):
        bars = sim.bars(ticker, START, END).select("date", pl.col("close").log().diff().alias("r"))
        joined = bars.join(spx, on="date").drop_nulls()
        m, r = joined["m"].to_numpy(), joined["r"].to_numpy()
        beta = np.cov(r, m)[0, 1] / m.var()
        assert abs(beta - ticker_profile(ticker)["beta"]) < 0.25, ticker
        assert np.corrcoef(r, m)[0, 1] > 0.2


@pytest.mark.parametrize("ticker", ["", "AB C", "AAPL;", "ÄPFEL", "a/b", "$SPY"])
def test_bad_tickers_give_an_empty_frame(sim, ticker):
    bars = sim.bars(ticker, START, END)
    assert bars.height == 0 and bars.schema == pl.Schema(BARS_SCHEMA)


def test_empty_range(sim):
    assert sim.bars("AAPL", END, START).height == 0
