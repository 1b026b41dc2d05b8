"""What every provider offers. Providers may read files or generate data, but never look past `end`."""
from __future__ import annotations

from datetime import date
from typing import Protocol, Sequence

import polars as pl


class Provider(Protocol):
    name: str  # "sim" | "replay" (| "live" later)
    simulated: bool

    def series_ids(self) -> list[str]:
        """Series this provider can supply."""

    def observations(self, series_ids: Sequence[str], start: date, end: date) -> pl.DataFrame:
        """Long frame `series_id, date, value` (LONG_SCHEMA) for start <= date <= end, as published by `end`."""

    def bars(self, ticker: str, start: date, end: date) -> pl.DataFrame:
        """Daily OHLCV (BARS_SCHEMA) for start <= date <= end; empty frame when the ticker is unknown."""

    # Optional, only where a source has hourly candles (live's Coinbase; not sim or replay, which must not
    # invent them), so callers test `getattr(provider, "intraday", None)`:
    # intraday(series_ids, start: datetime, end: datetime) -> INTRADAY_SCHEMA frame of candles closed by `end`.
