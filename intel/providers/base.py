"""What a provider offers: the core every source has, and the few capabilities only some sources have.

Providers may read files or generate data, but never look past `end`. Callers test an optional capability
with `isinstance(provider, HourlyCandles)` and so on, never by probing for a method name: the protocols
below are the whole list of what the code asks of a provider.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol, runtime_checkable

import polars as pl


@dataclass(frozen=True)
class FetchResult:
    """What a fetch got, and which series it did not get. A failed series has no row in `frame` at all, so
    writing the frame leaves whatever was stored for it as it was."""

    frame: pl.DataFrame
    failures: dict[str, str] = field(default_factory=dict)  # series_id -> why it failed
    sources: dict[str, str] = field(default_factory=dict)  # series_id -> the source whose numbers these are


@runtime_checkable
class Provider(Protocol):
    """Every provider (sim, replay, live)."""

    name: str  # "sim" | "replay" | "live": the `data_source` of every figure made from its data
    simulated: bool

    def series_ids(self) -> list[str]:
        """Series this provider can supply."""

    def observations(self, series_ids: Sequence[str], start: date, end: date | datetime) -> pl.DataFrame:
        """Long frame `series_id, date, value` (LONG_SCHEMA) from `start`, as published by `end`: a moment (each
        observation held back to its release's hour, intel/catalog.py `known_through`), or a date, the whole of
        that day."""

    def bars(self, ticker: str, start: date, end: date | datetime) -> pl.DataFrame:
        """Daily OHLCV (BARS_SCHEMA) from `start` of the days closed by `end` (a moment, or a closed day); empty
        frame when the ticker is unknown."""

    def price_adjustment(self, ticker: str) -> str | None:
        """How the prices `bars(ticker, ...)` last returned are adjusted ("split- and dividend-adjusted");
        None when they are the prices that traded."""


@runtime_checkable
class ReportsFailures(Protocol):
    """A provider whose sources can fail one series at a time (live): `observations` would hide the
    failures in a short frame, `fetch` names them."""

    def fetch(self, series_ids: Sequence[str], start: date, end: date) -> FetchResult:
        """`observations`' frame, and {series_id: error} for the series that did not fetch."""

    def unavailable(self) -> dict[str, list[str]]:
        """{series_id: the unset settings that would bring a source} for the series no source serves."""


@runtime_checkable
class FirstDates(Protocol):
    """A provider that knows where each series' history begins (replay: its files; sim: its simulation), so a
    module asked about an earlier day can say so rather than seem unready."""

    def first_dates(self, series_ids: Sequence[str]) -> dict[str, date]:
        """{series_id: its first observation's date} for the series it holds."""


@runtime_checkable
class HourlyCandles(Protocol):
    """A provider with hourly candles (live's Coinbase). Sim and replay are not: they must not invent them."""

    def fetch_intraday(self, series_ids: Sequence[str], start: datetime, end: datetime) -> FetchResult:
        """INTRADAY_SCHEMA candles (`ts` the close time) closed by `end`, of the series that have them (others
        are ignored), and {series_id: error} for those whose fetch failed."""


@runtime_checkable
class SourceBreakers(Protocol):
    """A provider calling remote sources through circuit breakers (live). Each Dagster run may be a fresh
    process, so the breakers' state is published after a run and restored before the next."""

    def status(self) -> dict[str, dict]:
        """{source: breaker state, last error, request counts}, as `warehouse.status` publishes it."""

    def restore_status(self, statuses: dict[str, dict]) -> None:
        """Put the breakers back as `status()` described them; sources this provider lacks are ignored."""


@runtime_checkable
class RecordedHistory(Protocol):
    """A provider playing a fixed record that ends on a known day (replay), so a clock can start after it."""

    def default_start(self) -> date:
        """The day after the latest observation: a clock that starts there sees the whole record."""
