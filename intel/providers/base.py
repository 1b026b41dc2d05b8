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
