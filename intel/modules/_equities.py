"""Helpers the equity modules share: returns over calendar horizons from named closes (worded as returns of a
price), and counts for sentences. Levels, single returns and counts come from intel/envelope.py. Registers
nothing (underscore file)."""
from __future__ import annotations

import polars as pl

from intel.modules._common import HORIZONS, observed_horizon_returns

WORDS = {"1w": "1-week", "1m": "1-month", "3m": "3-month", "6m": "6-month", "1y": "1-year"}


def calendar_returns(frame: pl.DataFrame, series_id: str, horizons=("1d", "1w", "1m", "3m", "6m", "1y"),
                     ytd: bool = True, price: str = "close") -> dict:
    """_common.observed_horizon_returns (the keys and values of horizon_returns, from named closes) with each
    operation worded as a return of the `price` ("adjusted close" for the sector ETFs)."""
    def words(h: str) -> str:
        if h == "1d":
            return f"1-day return: percent change from the previous {price}"
        if h == "ytd":
            return f"year-to-date return: percent change from the last {price} of the previous year"
        return f"{WORDS[h]} return: percent change from the {price} on or before {HORIZONS[h]} calendar days earlier"

    return observed_horizon_returns(frame, series_id, horizons, ytd, words)


