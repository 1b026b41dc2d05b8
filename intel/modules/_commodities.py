"""Helpers shared by the commodities modules (oil, commodities_overview, copper_gold_ratio): volatility
from simple returns (WTI printed below zero in 2020, so no logs) and month-matched changes for monthly
series (dated the 1st of the month: a calendar lookback of 30 days would land two months back)."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators
from intel.frames import Frames
from intel.modules._common import month_grid, month_keys, monthly_mean, months_ago


def simple_returns(values) -> np.ndarray:
    """Period returns, keeping only those with a positive base (a non-positive price has no return)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return np.empty(0)
    base, nxt = values[:-1], values[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        rets = nxt / base - 1.0
    return rets[(base > 0) & np.isfinite(rets)]


def realized_vol_pct(values, n: int, periods_per_year: int) -> float | None:
    """Annualized sample standard deviation (ddof 1) of the last n simple returns, in percent."""
    rets = simple_returns(values)
    if len(rets) < max(n, 2):
        return None
    return float(indicators.annualize(np.std(rets[-n:], ddof=1), periods_per_year))


def rolling_vol_pct(values, n: int, periods_per_year: int) -> np.ndarray:
    """Annualized rolling volatility of simple returns over each full window of n returns (ends aligned)."""
    rets = simple_returns(values)
    if len(rets) < max(n, 2):
        return np.empty(0)
    return indicators.annualize(indicators.rolling_std(rets, n)[n - 1:], periods_per_year)


def monthly_change_pct(frame: pl.DataFrame, months: int) -> float | None:
    """Percent change of the last observation against the one dated `months` calendar months earlier
    (None when that month is missing or the base is not positive)."""
    _, grid = month_grid(frame)
    base = months_ago(grid, months)
    if base is None or base <= 0:
        return None
    return float((grid[-1] / base - 1) * 100)


def observed_monthly_change(frames: Frames, series_id: str, months: int, digits: int = 2):
    """monthly_change_pct as a pct_change of two named observations: the last one and the last one dated in
    the calendar month `months` earlier (None when that month is missing or the base is not positive)."""
    frame = frames.get(series_id)
    keys = month_keys(frame)
    found = np.flatnonzero(keys == keys[-1] - months)
    if not len(found) or months <= 0:
        return None
    i = int(found[-1])
    base = (series_id, frame["date"][i], float(frame["value"][i]))
    if base[2] <= 0:
        return None
    return envelope.pct_change(envelope.last_obs(frames, series_id), base, digits,
                               f"percent change of {series_id} from {base[1]} to {frame['date'][-1]} ({months} months)")


def monthly_means(frame: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(month key, mean of the observations in that month) for a daily series, ascending."""
    means = monthly_mean(frame)
    return month_keys(means), means["value"].to_numpy()


def percentile_of_last(values, window: int) -> float | None:
    """Percentile rank of the last value within the last `window` values."""
    values = np.asarray(values, dtype=float)[-window:]
    return indicators.percentile_rank(values, values[-1]) if len(values) else None
