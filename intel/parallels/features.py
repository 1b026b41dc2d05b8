"""The state vector: the figures an episode's start and today are compared on, each computed from the first
of its candidate series that has the data at the date, and each saying which series and observation it used.
Absent figures stay absent (value None) with the reason; nothing is filled in."""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from intel.parallels.readings import DAILY, Line, add_months

Figure = dict  # {"value", "series", "observed", "method"} or {"value": None, "reason"}


def _round(value: float) -> float:
    return round(value, 2)


def level(line: Line, day: date) -> tuple[float, date, str] | None:
    obs = line.at(day)
    return (obs[1], obs[0], "level") if obs else None


def change_12m(line: Line, day: date, percent: bool) -> tuple[float, date, str] | None:
    obs = line.at(day)
    prev = line.shifted(obs[0], -12) if obs else None
    if not obs or not prev:
        return None
    if percent:
        if prev[1] <= 0:  # a percentage change from zero or a negative price (WTI, April 2020) means nothing
            return None
        return (obs[1] / prev[1] - 1) * 100, obs[0], f"percent change from {prev[0].isoformat()}"
    return obs[1] - prev[1], obs[0], f"change in percentage points from {prev[0].isoformat()}"


def drawdown_12m(line: Line, day: date) -> tuple[float, date, str] | None:
    """The last value against the highest of the past twelve months (daily closes or monthly averages)."""
    obs = line.at(day)
    if not obs:
        return None
    if line.kind == DAILY:
        if line.first is None or line.first > obs[0] - timedelta(days=365):
            return None
        window = line.between(obs[0] - timedelta(days=365), obs[0])
    else:
        window = line.between(add_months(obs[0], -11), obs[0])
        if len(window) < 12:
            return None
    peak = max(v for _, v in window)
    return (obs[1] / peak - 1) * 100, obs[0], f"percent below the highest {line.kind} value of the past 12 months"


def trend_6m(line: Line, day: date) -> tuple[float, date, str] | None:
    obs = line.at(day)
    prev = line.shifted(obs[0], -6) if obs else None
    if not obs or not prev or prev[1] <= 0:
        return None
    return (obs[1] / prev[1] - 1) * 100, obs[0], f"percent change over 6 months from {prev[0].isoformat()}"


def realized_volatility(line: Line, day: date) -> tuple[float, date, str] | None:
    """Annualized standard deviation of log returns: the last 63 daily closes, or the last 12 monthly
    averages (which smooth the daily moves away, so they read lower than the VIX would have)."""
    obs = line.at(day)
    if not obs:
        return None
    if line.kind == DAILY:
        closes = [v for _, v in line.between(obs[0] - timedelta(days=100), obs[0])][-64:]
        per_year, what = 252, "realized volatility of the last 63 daily closes, annualized"
        if len(closes) < 64:
            return None
    else:
        closes = [v for _, v in line.between(add_months(obs[0], -12), obs[0])]
        per_year, what = 12, "realized volatility of the last 12 monthly averages, annualized (VIX absent)"
        if len(closes) < 13:
            return None
    returns = [math.log(b / a) for a, b in zip(closes, closes[1:], strict=False) if a > 0 and b > 0]
    return statistics.stdev(returns) * math.sqrt(per_year) * 100, obs[0], what


def _pct(line: Line, day: date):
    return change_12m(line, day, percent=True)


def _pp(line: Line, day: date):
    return change_12m(line, day, percent=False)


Reader = Callable[[Line, date], "tuple[float, date, str] | None"]


@dataclass(frozen=True)
class Feature:
    name: str
    label: str
    unit: str
    # (series id, how it is read), tried in order; the first that yields a value is used
    sources: tuple[tuple[str, Reader], ...]
    # what the files and the warehouse hold for this figure, said when it is absent
    coverage: str


FEATURES: tuple[Feature, ...] = (
    Feature("sp500_drawdown_pct", "S&P 500 below its 12-month high", "percent",
            (("SP500", drawdown_12m), ("SHILLER_SP500", drawdown_12m)),
            "daily S&P 500 (SP500) from 2016, Shiller's monthly averages from 1871"),
    Feature("sp500_trend_6m_pct", "S&P 500 change over 6 months", "percent",
            (("SP500", trend_6m), ("SHILLER_SP500", trend_6m)),
            "daily S&P 500 (SP500) from 2016, Shiller's monthly averages from 1871"),
    Feature("cape", "Shiller cyclically adjusted P/E", "ratio", (("SHILLER_CAPE", level),),
            "Shiller's monthly CAPE, 1881 to 2023-09; not in the warehouse catalog"),
    Feature("long_rate_pct", "10-year Treasury yield", "percent", (("DGS10", level), ("SHILLER_GS10", level)),
            "DGS10 daily from 1980, Shiller's monthly long rate from 1871"),
    Feature("long_rate_change_12m_pp", "10-year yield change over 12 months", "percentage points",
            (("DGS10", _pp), ("SHILLER_GS10", _pp)), "DGS10 daily from 1980, Shiller's monthly long rate from 1871"),
    Feature("short_rate_pct", "2-year Treasury yield", "percent", (("DGS2", level), ("DGS3MO", level)),
            "DGS2 daily from 1980 (DGS3MO from 1990 when DGS2 is absent); no short rate before 1980"),
    Feature("curve_slope_pp", "10-year minus 2-year Treasury spread", "percentage points", (("T10Y2Y", level),),
            "T10Y2Y daily from 1980; no curve before 1980"),
    Feature("inflation_yoy_pct", "CPI inflation over 12 months", "percent",
            (("CPIAUCSL", _pct), ("SHILLER_CPI", _pct)), "CPIAUCSL monthly from 1980, Shiller's CPI from 1871"),
    Feature("unemployment_change_12m_pp", "Unemployment rate change over 12 months", "percentage points",
            (("UNRATE", _pp),), "UNRATE monthly from 1980; no unemployment series before 1980"),
    Feature("hy_spread_pct", "High-yield credit spread", "percent", (("BAMLH0A0HYM2", level),),
            "ICE BofA high-yield spread (BAMLH0A0HYM2) daily from 1996-12-31; no credit spread before"),
    Feature("volatility", "Equity volatility (VIX, else realized)", "percent annualized",
            (("VIXCLS", level), ("SP500", realized_volatility), ("SHILLER_SP500", realized_volatility)),
            "VIX (VIXCLS) daily from 1990; before, realized volatility of Shiller's monthly S&P"),
    Feature("dollar_change_12m_pct", "Broad dollar index change over 12 months", "percent",
            (("DTWEXBGS", _pct),), "broad dollar index (DTWEXBGS) daily from 2006; none before"),
    Feature("gold_change_12m_pct", "Gold change over 12 months", "percent", (("GOLD_MONTHLY", _pct),),
            "monthly gold in USD from 1833; not in the warehouse catalog"),
    Feature("oil_change_12m_pct", "WTI crude oil change over 12 months", "percent", (("DCOILWTICO", _pct),),
            "WTI spot (DCOILWTICO) daily from 1986; none before"),
)
FEATURE_NAMES = tuple(f.name for f in FEATURES)


def figure(feature: Feature, lines: dict[str, Line], day: date) -> Figure:
    """One feature at `day` from the first candidate series that yields it."""
    for series_id, read in feature.sources:
        line = lines.get(series_id)
        got = read(line, day) if line is not None else None
        if got is not None and math.isfinite(got[0]):
            value, observed, method = got
            return {"value": _round(value), "series": series_id, "observed": observed.isoformat(),
                    "method": method}
    tried = ", ".join(s for s, _ in feature.sources)
    return {"value": None, "reason": f"no observation of {tried} known on {day.isoformat()} ({feature.coverage})"}


def state_vector(lines: dict[str, Line], day: date) -> dict[str, Figure]:
    return {f.name: figure(f, lines, day) for f in FEATURES}


def values(state: dict[str, Figure]) -> dict[str, float | None]:
    return {name: state[name]["value"] for name in FEATURE_NAMES if name in state}
