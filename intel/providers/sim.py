"""The simulated provider: a seeded, regime-switching market for every catalog series.

Deterministic for a seed and prefix-stable: a date's value never depends on the requested `end`
(see sim_noise). The path is generated in whole calendar years, vectorised where the maths allows,
and cached in the instance.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import date, datetime

import numpy as np
import polars as pl

from intel.catalog import CATALOG, bar_closed_through, day_of, known_through
from intel.frames import BARS_SCHEMA, LONG_SCHEMA
from intel.providers import sim_macro, sim_markets, sim_rates
from intel.providers.sim_bars import ohlcv, synthetic_closes, valid_ticker
from intel.providers.sim_noise import (
    Draws,
    all_days,
    ar1,
    business_days,
    last_before,
    month_starts,
    period_means,
    quarter_starts,
    to_day,
    weekdays,
)

# Decimal places as FRED publishes them (default 2); ICSA is rounded to the thousand.
DECIMALS = {"DEXUSEU": 4, "DEXUSUK": 4, "DEXUSAL": 4, "DEXSZUS": 4, "DEXCAUS": 4, "DEXCHUS": 4, "DEXMXUS": 4,
            "DTWEXBGS": 4, "CPIAUCSL": 3, "CPILFESL": 3, "PCEPILFE": 3, "PPIFIS": 3, "CSUSHPINSA": 3, "GDP": 3,
            "GDPC1": 3, "INDPRO": 4, "BUSLOANS": 4, "ANFCI": 5, "STLFSI4": 4, "RRPONTSYD": 3, "GASREGW": 3,
            "PALLFNFINDEXM": 4, "CFNAI": 2, "UNRATE": 1, "U6RATE": 1, "CIVPART": 1, "UMCSENT": 1, "MICH": 1,
            "M2SL": 1, "WM2NS": 1, "PAYEMS": 0, "RSXFS": 0, "DGORDER": 0, "HOUST": 0, "HSN1F": 0, "JTSJOL": 0,
            "WALCL": 0, "USREC": 0, "ICSA": -3}
LAST_YEAR = 2100  # the simulation stops here, whatever `end` a caller passes
# Price when the instrument was listed after the simulation's origin (the real first closes).
LISTING_LEVEL = {"XLC": 48.42, "XLRE": 23.76}


class SimProvider:
    name = "sim"
    simulated = True

    def __init__(self, seed: int = 7, origin: date = date(2005, 1, 3)) -> None:
        self.seed = seed
        self.origin = origin
        self._draws = Draws(seed)
        self._lock = threading.Lock()
        self._horizon: date | None = None
        self._paths: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._latent: dict[str, np.ndarray] = {}

    def series_ids(self) -> list[str]:
        return sorted(CATALOG)

    def observations(self, series_ids: Sequence[str], start: date, end: date | datetime) -> pl.DataFrame:
        """What was published by `end`: a moment, or (a date) the whole of that day."""
        paths = self._paths_through(day_of(end))
        parts = []
        for series_id in dict.fromkeys(series_ids):
            if series_id not in paths:
                continue
            dates, values = paths[series_id]
            lo = np.searchsorted(dates, to_day(start), side="left")
            hi = np.searchsorted(dates, to_day(known_through(series_id, end)), side="right")
            if hi > lo:
                parts.append(pl.DataFrame({"series_id": [series_id] * (hi - lo), "date": dates[lo:hi],
                                           "value": values[lo:hi]}, schema=LONG_SCHEMA))
        return pl.concat(parts) if parts else pl.DataFrame(schema=LONG_SCHEMA)

    def price_adjustment(self, ticker: str) -> str | None:
        """Simulated bars are the simulation's traded prices (every payload says it is simulated)."""
        return None

    def bars(self, ticker: str, start: date, end: date | datetime) -> pl.DataFrame:
        """Daily bars closed by `end` (a moment, or the whole of a date): a bar is known once its market closes."""
        last = bar_closed_through(ticker, end)
        if not valid_ticker(ticker) or last < start:
            return pl.DataFrame(schema=BARS_SCHEMA)
        paths = self._paths_through(last)
        entry = CATALOG.get(ticker.upper())
        if entry is not None and entry.asset_class in ("equities", "crypto"):
            days, closes = paths[entry.id]
        else:
            days = paths["SP500"][0]
            closes = synthetic_closes(self._draws, ticker, days, self._latent["returns"])
        if not len(days):
            return pl.DataFrame(schema=BARS_SCHEMA)
        columns = ohlcv(self._draws, ticker, days, closes)
        keep = (days >= to_day(start)) & (days <= to_day(last))
        return pl.DataFrame({"date": days[keep], **{k: v[keep] for k, v in columns.items()}}, schema=BARS_SCHEMA)

    def _paths_through(self, end: date) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        with self._lock:
            if self._horizon is None or (end > self._horizon and self._horizon.year < LAST_YEAR):
                # whole calendar years, so every date's shocks are drawn the same way whatever `end` is
                horizon = date(min(max(end.year, self.origin.year), LAST_YEAR), 12, 31)
                self._paths, self._latent = _simulate(self._draws, self.origin, horizon)
                self._horizon = horizon
            return self._paths


def _simulate(draws: Draws, origin: date, horizon: date) -> tuple[dict, dict]:
    days = business_days(origin, horizon)
    everyday = all_days(origin, horizon)
    months = month_starts(origin, horizon)
    quarters = quarter_starts(origin, horizon)
    weeks = {name: weekdays(origin, horizon, wd) for name, wd in
             (("mon", 0), ("wed", 2), ("thu", 3), ("fri", 4), ("sat", 5))}
    regime = sim_markets.regime_path(draws, days)
    severity = sim_markets.SEVERITY[regime]

    equity = sim_markets.equity_factor(draws, days, regime)
    returns, shock = equity["returns"], equity["shock"]
    commodities = sim_markets.commodities(draws, days, regime, equity["surprise"])
    gold = sim_markets.gold(draws, days, regime, equity["surprise"])
    oil_returns = np.diff(np.log(commodities["oil"]), prepend=np.log(commodities["oil"][0]))
    macro = sim_macro.monthly_core(draws, months, days, severity, commodities["oil"])
    month_of_day = days.astype("datetime64[M]").astype("datetime64[D]")
    policy = sim_rates.policy_path(days, regime, months, macro["core_yoy"], macro["unrate"])
    trend = last_before(months, macro["trend"], month_of_day)
    rates = sim_rates.curve(draws, days, regime, shock, policy["policy"], policy["taylor"], severity, trend)
    dgs10_changes = np.diff(rates["DGS10"], prepend=rates["DGS10"][0])

    daily = {"VIXCLS": equity["vix"], "VXVCLS": equity["vix3m"], "DCOILWTICO": commodities["oil"],
             "DCOILBRENTEU": commodities["brent"], "severity": severity, "regime": regime,
             **sim_markets.index_levels(draws, days, returns), **rates,
             **sim_markets.sectors(draws, days, returns, oil_returns, dgs10_changes),
             **sim_markets.credit(draws, days, regime, shock),
             **sim_markets.fx(draws, days, regime, equity["surprise"], oil_returns)}
    weekly = sim_macro.weekly_from_daily(draws, days, daily, weeks, months, macro)
    housing = sim_macro.housing(draws, months, weekly["mortgage_monthly"], macro["severity"])
    quarterly = sim_macro.quarterly(draws, quarters, months, macro)

    effective = policy["policy"] + 0.02 * draws.normal("rates.effective", days)
    fed_funds = period_means(days, np.maximum(effective, 0.04), months)
    copper = period_means(days, commodities["copper"], months)
    oil_month = period_means(days, commodities["oil"], months)
    broad = 90.0 * (oil_month / oil_month[0]) ** 0.5 * (copper / copper[0]) ** 0.25
    monthly = {**{k: macro[k] for k in ("CPIAUCSL", "CPILFESL", "PCEPILFE", "PPIFIS", "UNRATE", "U6RATE",
                                         "PAYEMS", "CIVPART", "AHETPI", "INDPRO", "RSXFS", "CFNAI", "DGORDER",
                                         "USREC", "BUSLOANS", "M2SL", "UMCSENT", "MICH")},
               **housing, "FEDFUNDS": fed_funds, **sim_rates.foreign_short_rates(draws, months, fed_funds),
               "PCOPPUSDM": copper, "GOLD_MONTHLY": period_means(days, gold, months),
               "PALLFNFINDEXM": broad * np.exp(ar1(0.8, 0.01 * draws.normal("commodities.broad", months))),
               "JTSJOL": np.maximum(7000 - 700 * (macro["unrate"] - 4.0), 1500)
               * np.exp(0.03 * draws.normal("macro.openings", months))}

    paths: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for series_id in CATALOG:
        if series_id in daily:
            dates, values = days, daily[series_id]
        elif series_id in monthly:
            dates, values = months, monthly[series_id]
        elif series_id in quarterly:
            dates, values = quarters, quarterly[series_id]
        elif series_id == "RRPONTSYD":
            dates, values = days, weekly[series_id]
        elif series_id in weekly:
            day = {"ICSA": "sat", "ANFCI": "fri", "STLFSI4": "fri", "MORTGAGE30US": "thu", "WALCL": "wed",
                   "WM2NS": "mon", "GASREGW": "mon"}[series_id]
            dates, values = weeks[day], weekly[series_id]
        else:
            continue
        paths[series_id] = _finish(series_id, dates, np.asarray(values, dtype=float))
    btc_first, eth_first = (to_day(CATALOG[s].first_date) for s in ("CBBTCUSD", "CBETHUSD"))
    coins = sim_markets.crypto(draws, everyday, days, regime, equity["surprise"], btc_first, eth_first)
    for series_id, name in (("CBBTCUSD", "btc"), ("CBETHUSD", "eth")):
        paths[series_id] = _finish(series_id, *coins[name])
    # PAX Gold every calendar day: the metal's latest business-day price and a small token premium or discount
    on_day = np.clip(np.searchsorted(days, everyday, side="right") - 1, 0, None)
    premium = 1 + 0.002 * draws.normal("gold.paxg", everyday)
    paths["CBPAXGUSD"] = _finish("CBPAXGUSD", everyday, gold[on_day] * premium)
    missing = set(CATALOG) - set(paths)
    if missing:  # a catalog entry without a generator is a bug, not something to hand out half-done
        raise RuntimeError(f"sim has no generator for {sorted(missing)}")
    latent = {"returns": returns}  # the market factor, which synthetic tickers load on
    return paths, latent


def _finish(series_id: str, dates: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop what precedes the real listing, rescale late listings to their real first price, round."""
    first = CATALOG[series_id].first_date
    keep = np.isfinite(values)
    if first is not None:
        keep &= dates >= to_day(first)
    dates, values = dates[keep], values[keep]
    if series_id in LISTING_LEVEL and len(values):
        values = values * (LISTING_LEVEL[series_id] / values[0])
    return dates, np.round(values, DECIMALS.get(series_id, 2)) + 0.0
