"""The live provider: fetches every catalog series from the source its route names (`sources.py`: the publisher's own
keyless feed first, then the FRED API when `MI_FRED_API_KEY` is set) and reports what failed and what no source
can serve. A series fetched from a fallback source is fetched whole from it: one fetch never mixes two
publishers' numbers in a series.

Daily bars of a ticker (`bars()`) are the exception: every provider there serves the whole bar history of
the ticker, so they are tried in order and the first with bars wins: Tiingo (when `MI_TIINGO_API_KEY` is
set; adjusted prices), then Alpha Vantage (when `MI_ALPHAVANTAGE_API_KEY` is set; unadjusted), then Stooq
(keyless, but refusing scripts since 2026: its refusal is a named failure). A failure (breaker open, transport,
status, a refusal or malformed body) or an empty answer falls through to the next; `bars_with_source()`'s result
names the one that answered and why the others did not. The keyed providers take plain US tickers only (letters,
digits, `-`, optional `.US`); index, FX and exchange-suffixed symbols go to Stooq directly. The two crypto
series come from Coinbase.

Hourly candles (`fetch_intraday()`) exist for the two crypto series only, from Coinbase.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

import polars as pl

from intel.catalog import ADJUSTED, CATALOG, day_of, known_through, release_lag
from intel.frames import BARS_SCHEMA, INTRADAY_SCHEMA, LONG_SCHEMA
from intel.providers.base import FetchResult
from intel.providers.live import alphavantage, coinbase, coinbase_hourly, sources, stooq, tiingo
from intel.providers.live.client import LiveConfig, SourceClient, SourceError
from intel.providers.sim_bars import valid_ticker

# keyed daily-bar providers, in the order `bars()` tries them: (name, config key field, module)
KEYED_BARS = (("tiingo", "tiingo_api_key", tiingo), ("alphavantage", "alphavantage_api_key", alphavantage))
BARS_ADJUSTMENT = {"tiingo": ADJUSTED, "stooq": ADJUSTED}
PLAIN_US_TICKER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
# the frame `fetch()` returns: LONG_SCHEMA plus when each value was first published and what it was then
# (null where the source does not say: the catalog's publication rule applies)
FETCH_SCHEMA = {**LONG_SCHEMA, "published": pl.Date, "first_value": pl.Float64}


def _frame(series_id: str, points: list, start: date, end: date | datetime) -> pl.DataFrame:
    """One series' points, (date, value) or (date, value, first published, first value), kept when dated from
    `start` and published by `end` (a moment, or the whole of a date): on the day the source says, else on the
    catalog's release day, either at the release's hour."""
    through = known_through(series_id, end)
    released_by = through + timedelta(days=release_lag(series_id))  # the last release day whose hour has come
    rows = []
    for point in points:
        day, value = point[0], point[1]
        published, first = (point[2], point[3]) if len(point) > 2 else (None, None)
        if start <= day and (published <= released_by if published else day <= through):
            rows.append((series_id, day, value, published, first))
    return pl.DataFrame(rows, schema=FETCH_SCHEMA, orient="row")


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
        self.clients: dict[str, SourceClient] = {}
        for module in sources.MODULES.values():  # a keyed source exists (client, status, breaker) only when keyed
            key_field = next((f for m, f, _ in sources.KEYED if m is module), None)
            if key_field is None or getattr(config, key_field):
                options = module.client_options(config) if hasattr(module, "client_options") else {}
                self.clients[module.NAME] = SourceClient(module.NAME, config, transport, **options)
        # daily bars of any ticker: the keyed providers when keyed, then Stooq
        self.bar_providers: list[tuple[str, object]] = []
        for name, key_field, module in KEYED_BARS:
            key = getattr(config, key_field)
            if key:
                if name not in self.clients:
                    self.clients[name] = SourceClient(name, config, transport, **module.client_options(key))
                self.bar_providers.append((name, module))
        self.bar_providers.append(("stooq", stooq))
        self._bars_source: dict[str, str] = {}  # ticker -> the provider whose bars were returned last

    def series_ids(self) -> list[str]:
        """The catalog series some source can serve with this configuration."""
        return sorted(sid for sid in CATALOG if sources.chain(sid, self.config))

    def unavailable(self) -> dict[str, list[str]]:
        """{series: the unset settings that would bring a source} for the series no working source serves."""
        return {sid: sources.keys_needed(sid, self.config) for sid in sorted(CATALOG)
                if not sources.counts(sid, self.config)}

    def fetch(self, series_ids: Sequence[str], start: date, end: date | datetime) -> FetchResult:
        """Observations of the series that fetched cleanly, published by `end` (their first publication where the
        source says, else date + the catalog's release lag), with `published` and `first_value` (FETCH_SCHEMA);
        {series_id: error} for the others. Each series goes down its chain of sources until one delivers it."""
        pending = {sid: sources.chain(sid, self.config) for sid in series_ids}
        errors: dict[str, list[str]] = {sid: [] for sid in series_ids}
        got: dict[str, tuple[str, list]] = {}
        for sid, route in pending.items():
            if not route:
                keys = sources.keys_needed(sid, self.config)
                errors[sid].append("no source serves it" + (f" (set {' or '.join(keys)})" if keys else ""))
        while pending := {sid: route for sid, route in pending.items() if route}:
            groups: dict[str, list[str]] = {}
            for sid, route in pending.items():
                groups.setdefault(route[0], []).append(sid)
            for source, ids in groups.items():
                points, failed = sources.MODULES[source].fetch(self.clients[source], ids, start, day_of(end))
                for sid in ids:
                    if sid in failed:
                        errors[sid].append(failed[sid])
                        pending[sid] = pending[sid][1:]
                    else:
                        got[sid] = (source, points.get(sid, []))
                        pending[sid] = []
        parts = []
        for sid, (_, points) in got.items():
            frame = _frame(sid, points, start, end)
            if frame.height:
                parts.append(frame)
        frame = pl.concat(parts) if parts else pl.DataFrame(schema=FETCH_SCHEMA)
        frame = frame.unique(["series_id", "date"], keep="last").sort(["series_id", "date"])
        failures = {sid: "; ".join(why) for sid, why in errors.items() if sid not in got}
        return FetchResult(frame, failures, {sid: source for sid, (source, _) in got.items()})

    def observations(self, series_ids: Sequence[str], start: date, end: date | datetime) -> pl.DataFrame:
        return self.fetch(series_ids, start, end).frame.select(list(LONG_SCHEMA))

    def fetch_intraday(self, series_ids: Sequence[str], start: datetime, end: datetime) -> FetchResult:
        """Hourly candles (INTRADAY_SCHEMA, `ts` the close time) of the series Coinbase serves (others are
        ignored: only crypto trades around the clock here), only those closed by `end`, and
        {series_id: error} for the series whose fetch failed: those contribute no rows at all."""
        parts, failures = [], {}
        for sid in sorted(set(series_ids) & set(coinbase.HOURLY)):
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


# cheap requests that tell whether a source answers (never the BLS: its keyless day has 25 queries)
PROBES = (("coinbase", "CBBTCUSD"), ("treasury", "DGS10"), ("cboe", "VIXCLS"), ("fred", "DGS10"))


def probe(config: LiveConfig) -> tuple[bool, str]:
    """Does any live source answer? One small request to each cheap source at once, short timeout, no retry."""
    quick = LiveConfig(**{**config.__dict__, "retries": 0, "timeout_s": config.probe_timeout_s})
    today = date.today()
    checks = [(name, sid) for name, sid in PROBES if name in sources.MODULES and name in sources.chain(sid, quick)]

    def ask(name: str, sid: str) -> str | None:
        module = sources.MODULES[name]
        options = module.client_options(quick) if hasattr(module, "client_options") else {}
        client = SourceClient(f"probe {name}", quick, **options)
        try:
            got, failed = module.fetch(client, [sid], today - timedelta(days=14), today)
        finally:
            client.close()
        return failed.get(sid) or (None if got.get(sid) else f"{name}: answered without data")

    with ThreadPoolExecutor(max_workers=max(1, len(checks))) as pool:
        errors = dict(zip([n for n, _ in checks], pool.map(lambda c: ask(*c), checks)))
    answered = sorted(name for name, error in errors.items() if error is None)
    if answered:
        return True, f"{', '.join(answered)} answered"
    return False, "; ".join(errors.values()) or "no live source configured"
