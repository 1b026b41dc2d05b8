"""The live provider: routes every catalog series to one keyless public source and reports what failed.

Routing (no silent fallback between sources, so one series never mixes two publishers' numbers):
Treasury curve -> the Treasury CSV, FX -> the ECB reference rates, crypto -> Coinbase candles, sector
ETFs -> Stooq, everything else -> FRED's CSV. A failed source leaves its series out of the frame; the
per-call report (`last_failures`, or `fetch()`'s result) says which and why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Sequence

import polars as pl

from intel.catalog import CATALOG, SECTORS, TREASURY_TENORS, release_lag
from intel.frames import BARS_SCHEMA, LONG_SCHEMA
from intel.providers.live import coinbase, ecb, fred, stooq, treasury
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from intel.providers.sim_bars import valid_ticker

FETCHERS = {"fred": fred.fetch, "treasury": treasury.fetch, "ecb": ecb.fetch, "coinbase": coinbase.fetch,
            "stooq": stooq.fetch}


def route(series_id: str) -> str:
    if series_id in TREASURY_TENORS:
        return "treasury"
    if series_id in ecb.SERIES:
        return "ecb"
    if series_id in coinbase.PRODUCTS:
        return "coinbase"
    if series_id in SECTORS:
        return "stooq"
    return "fred"


@dataclass
class FetchResult:
    frame: pl.DataFrame
    failures: dict[str, str] = field(default_factory=dict)


class LiveProvider:
    name = "live"
    simulated = False

    def __init__(self, config: LiveConfig, transport=None) -> None:
        self.config = config
        self.clients = {name: SourceClient(name, config, transport) for name in FETCHERS}
        self.last_failures: dict[str, str] = {}

    def series_ids(self) -> list[str]:
        return sorted(CATALOG)

    def fetch(self, series_ids: Sequence[str], start: date, end: date) -> FetchResult:
        """Observations of the series that fetched cleanly, published by `end` (date + release lag), and
        {series_id: error} for the others."""
        groups: dict[str, list[str]] = {}
        for sid in series_ids:
            groups.setdefault(route(sid), []).append(sid)
        parts, failures = [], {}
        for source, ids in groups.items():
            got, failed = FETCHERS[source](self.clients[source], ids, start, end)
            failures.update(failed)
            for sid, points in got.items():
                lag = timedelta(days=release_lag(sid))
                kept = [(d, v) for d, v in points if start <= d <= end and d + lag <= end]
                if kept:
                    parts.append(pl.DataFrame({"series_id": [sid] * len(kept), "date": [d for d, _ in kept],
                                               "value": [v for _, v in kept]}, schema=LONG_SCHEMA))
        frame = pl.concat(parts) if parts else pl.DataFrame(schema=LONG_SCHEMA)
        frame = frame.unique(["series_id", "date"], keep="last").sort(["series_id", "date"])
        self.last_failures = failures
        return FetchResult(frame, failures)

    def observations(self, series_ids: Sequence[str], start: date, end: date) -> pl.DataFrame:
        return self.fetch(series_ids, start, end).frame

    def bars(self, ticker: str, start: date, end: date) -> pl.DataFrame:
        """Daily OHLCV from Stooq (Coinbase for the two crypto series). A source failure gives an empty
        frame and is recorded in `last_failures`: no bars rather than wrong bars."""
        if not valid_ticker(ticker):
            return pl.DataFrame(schema=BARS_SCHEMA)
        try:
            if ticker.upper() in coinbase.PRODUCTS:
                rows = coinbase.daily(self.clients["coinbase"], coinbase.PRODUCTS[ticker.upper()], start, end)
            else:
                rows = stooq.daily(self.clients["stooq"], ticker, start, end)
        except SourceError as exc:
            self.last_failures = {ticker: str(exc)}
            return pl.DataFrame(schema=BARS_SCHEMA)
        rows = [r for r in rows if start <= r[0] <= end]
        return pl.DataFrame(rows, schema=list(BARS_SCHEMA), orient="row").cast(BARS_SCHEMA)

    def status(self) -> dict[str, dict]:
        return {name: client.status() for name, client in self.clients.items()}

    def restore_status(self, statuses: dict[str, dict]) -> None:
        for name, status in statuses.items():
            if name in self.clients:
                self.clients[name].breaker.restore(status)


def probe(config: LiveConfig) -> tuple[bool, str]:
    """One small FRED request with a short timeout and no retry: does the live data answer at all?"""
    client = SourceClient("probe", LiveConfig(**{**config.__dict__, "retries": 0, "timeout_s": config.probe_timeout_s}))
    try:
        points = fred.fetch_one(client, "DGS10", date.today() - timedelta(days=14), date.today(),
                                retries=0, timeout_s=config.probe_timeout_s)
    except SourceError as exc:
        return False, str(exc)
    finally:
        client.close()
    return (True, "FRED answered") if points else (False, "FRED answered without data")
