"""The live provider: routes every catalog series to one keyless public source and reports what failed.

Routing (no silent fallback between sources, so one series never mixes two publishers' numbers):
Treasury curve -> the Treasury CSV, FX -> the ECB reference rates, crypto -> Coinbase candles, sector
ETFs -> Stooq, everything else -> FRED's CSV. A failed source leaves its series out of the frame;
`fetch()`'s result says which and why.

Daily bars of a ticker (`bars()`) are the exception: every provider there serves the whole bar history of
the ticker, so they are tried in order and the first with bars wins: Tiingo (when `MI_TIINGO_API_KEY` is
set; adjusted prices), then Alpha Vantage (when `MI_ALPHAVANTAGE_API_KEY` is set; unadjusted), then Stooq
(keyless). A failure (breaker open, transport, status, a refusal or malformed body) or an empty answer falls
through to the next; `bars_with_source()`'s result names the one that answered and why the others did not.
The keyed providers take plain US tickers only (letters, digits, `-`, optional `.US`); index, FX and
exchange-suffixed symbols go to Stooq directly. The two crypto series come from Coinbase as before.

Hourly candles (`fetch_intraday()`) exist for the two crypto series only, from Coinbase.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

import polars as pl

from intel.catalog import ADJUSTED, CATALOG, SECTORS, TREASURY_TENORS, release_lag
from intel.frames import BARS_SCHEMA, INTRADAY_SCHEMA, LONG_SCHEMA
from intel.providers.base import FetchResult
from intel.providers.live import alphavantage, coinbase, coinbase_hourly, ecb, fred, stooq, tiingo, treasury
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from intel.providers.sim_bars import valid_ticker

FETCHERS = {"fred": fred.fetch, "treasury": treasury.fetch, "ecb": ecb.fetch, "coinbase": coinbase.fetch,
            "stooq": stooq.fetch}
# keyed daily-bar providers, in the order `bars()` tries them: (name, config key field, module)
KEYED_BARS = (("tiingo", "tiingo_api_key", tiingo), ("alphavantage", "alphavantage_api_key", alphavantage))
BARS_ADJUSTMENT = {"tiingo": ADJUSTED, "stooq": ADJUSTED}
PLAIN_US_TICKER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")


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
class BarsResult:
    frame: pl.DataFrame  # BARS_SCHEMA
    source: str | None  # the provider whose bars these are; None when none had any
    attempts: dict[str, str] = field(default_factory=dict)  # provider -> why it was passed over


def keyed_symbol(ticker: str) -> str | None:
    """The ticker as the keyed providers spell it, or None when they do not serve it."""
    plain = ticker[:-3] if ticker.upper().endswith(".US") else ticker
    return plain.upper() if PLAIN_US_TICKER.match(plain) else None


class LiveProvider:
    name = "live"
    simulated = False

    def __init__(self, config: LiveConfig, transport=None) -> None:
        self.config = config
        self.clients = {name: SourceClient(name, config, transport) for name in FETCHERS}
        # a keyed provider exists (client, status, breaker) only when its key is set
        self.bar_providers: list[tuple[str, object]] = []
        for name, key_field, module in KEYED_BARS:
            key = getattr(config, key_field)
            if key:
                self.clients[name] = SourceClient(name, config, transport, **module.client_options(key))
                self.bar_providers.append((name, module))
        self.bar_providers.append(("stooq", stooq))
        self._bars_source: dict[str, str] = {}  # ticker -> the provider whose bars were returned last

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
        return FetchResult(frame, failures)

    def observations(self, series_ids: Sequence[str], start: date, end: date) -> pl.DataFrame:
        return self.fetch(series_ids, start, end).frame

    def fetch_intraday(self, series_ids: Sequence[str], start: datetime, end: datetime) -> FetchResult:
        """Hourly candles (INTRADAY_SCHEMA, `ts` the close time) of the series Coinbase serves (others are
        ignored: only crypto trades around the clock here), only those closed by `end`, and
        {series_id: error} for the series whose fetch failed: those contribute no rows at all."""
        parts, failures = [], {}
        for sid in sorted(set(series_ids) & set(coinbase.PRODUCTS)):
            try:
                rows = coinbase_hourly.hourly(self.clients["coinbase"], coinbase.PRODUCTS[sid], start, end)
            except SourceError as exc:
                failures[sid] = str(exc)
                continue
            if rows:
                frame = pl.DataFrame(rows, schema=[c for c in INTRADAY_SCHEMA if c != "series_id"], orient="row")
                parts.append(frame.with_columns(pl.lit(sid).alias("series_id")).select(list(INTRADAY_SCHEMA))
                             .cast(INTRADAY_SCHEMA))
        frame = pl.concat(parts) if parts else pl.DataFrame(schema=INTRADAY_SCHEMA)
        return FetchResult(frame.sort(["series_id", "ts"]), failures)

    def bars(self, ticker: str, start: date, end: date) -> pl.DataFrame:
        """Daily OHLCV: the first provider with bars (see the module doc), Coinbase for the two crypto
        series. When none has any, an empty frame: no bars rather than wrong bars."""
        return self.bars_with_source(ticker, start, end).frame

    def bars_with_source(self, ticker: str, start: date, end: date) -> BarsResult:
        """`bars()`'s frame, the provider it came from (None when empty) and why each one before it was
        passed over."""
        if not valid_ticker(ticker):
            return BarsResult(pl.DataFrame(schema=BARS_SCHEMA), None)
        if ticker.upper() in coinbase.PRODUCTS:
            chain = [("coinbase", lambda: coinbase.daily(self.clients["coinbase"], coinbase.PRODUCTS[ticker.upper()],
                                                         start, end))]
        else:
            symbol = keyed_symbol(ticker)
            chain = [(name, lambda m=module, n=name: m.daily(self.clients[n], symbol, start, end))
                     for name, module in self.bar_providers if name != "stooq" and symbol]
            chain.append(("stooq", lambda: stooq.daily(self.clients["stooq"], ticker, start, end)))
        attempts: dict[str, str] = {}
        for name, get in chain:
            try:
                rows = [r for r in get() if start <= r[0] <= end]
            except SourceError as exc:
                attempts[name] = str(exc)
                continue
            if rows:
                frame = pl.DataFrame(rows, schema=list(BARS_SCHEMA), orient="row").cast(BARS_SCHEMA)
                self._bars_source[ticker.upper()] = name
                return BarsResult(frame.unique("date", keep="last").sort("date"), name, attempts)
            attempts[name] = "no bars"
        return BarsResult(pl.DataFrame(schema=BARS_SCHEMA), None, attempts)

    def price_adjustment(self, ticker: str) -> str | None:
        """By the provider whose bars `bars()` last returned for the ticker: Tiingo's adjClose and Stooq's
        closes are adjusted, Alpha Vantage's daily series and Coinbase's candles are what traded."""
        return BARS_ADJUSTMENT.get(self._bars_source.get(ticker.upper(), ""))

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
