"""Helpers shared by labor_market, sahm_rule, growth, recession_probability and financial_conditions.
Registers nothing (underscore file).

Monthly series are put on a calendar-month grid (_common.month_grid), so every "n months ago" is matched by
calendar month: a missing month gives None, never a shifted month.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from intel import envelope as env
from intel import indicators as ind
from intel import provenance as prov
from intel.modules._common import growth, month_grid, month_label, monthly_last

SAHM_TRIGGER_PP = 0.5  # Sahm (2019): the 3-month average 0.50 pp above its low of the prior 12 months
CLAIMS_RISE_ALERT_PCT = 20.0  # 4-week claims 20% above their 52-week low: a classic late-cycle warning


def month_obs(frames, sid: str, n: int) -> tuple | None:
    """(series, date, value) of the last observation in the calendar month n months before the series' last
    month, as month_grid has it (the last observation of a month wins); None when that month is absent."""
    frame = frames.get(sid)
    if frame is None:
        return None
    last = frame["date"][-1]
    key = last.year * 12 + last.month - 1 - n
    month = frame.filter((pl.col("date").dt.year() == key // 12) & (pl.col("date").dt.month() == key % 12 + 1))
    if month.height == 0 or not math.isfinite(month["value"][-1]):
        return None
    return sid, month["date"][-1], float(month["value"][-1])


def month_change(frames, sid: str, n: int, digits: int, op: str):
    """Last value minus the value n calendar months earlier, from the two named observations."""
    base = month_obs(frames, sid, n)
    return env.difference(env.last_obs(frames, sid), base, digits, scale=1.0, op=op) if base else None


def month_pct_change(frames, sid: str, n: int, digits: int, op: str):
    """Percent change of the last value from the value n calendar months earlier (a level series); None where
    the ratio is not positive, as `growth` has it."""
    base = month_obs(frames, sid, n)
    if base is None or not base[2] or env.last_obs(frames, sid)[2] / base[2] <= 0:
        return None
    return env.pct_change(env.last_obs(frames, sid), base, digits, op=op)


def growth_stats(frames, sid: str, digits: int = 2) -> dict:
    """Latest month, month-on-month, 3-month annualised and year-on-year growth of a monthly level series: the
    level and the 1- and 12-month changes name their observations, the annualised rate rests on the series."""
    start, grid = month_grid(frames.get(sid))
    last = start + len(grid) - 1
    with prov.about(frames, sid):
        return {"period": month_label(last), "level": env.level(frames, sid, digits),
                "mom_pct": month_pct_change(frames, sid, 1, 2, "percent change from the month before"),
                "annualized_3m_pct": env.rnd(growth(grid, 3, annualize=True)[-1], 2,
                                             "3-month change annualized, percent"),
                "yoy_pct": month_pct_change(frames, sid, 12, 2, "percent change from 12 months earlier")}


def rolling_mean(values: np.ndarray, n: int, min_count: int) -> np.ndarray:
    """Trailing n-window mean ignoring NaN, NaN where fewer than min_count values are present."""
    out = np.full(len(values), np.nan)
    if len(values) < n:
        return out
    win = np.lib.stride_tricks.sliding_window_view(values, n)
    count = np.isfinite(win).sum(axis=1)
    total = np.where(np.isfinite(win), win, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[n - 1:] = np.where(count >= min_count, total / np.maximum(count, 1), np.nan)
    return out


def sahm_series(unrate: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(3-month average, low of the 3-month averages over the previous 12 months, Sahm indicator) per month.

    The 3-month average needs 2 of its 3 months; the prior low needs 6 of its 12 averages (months t-12..t-1)."""
    ma3 = rolling_mean(unrate, 3, 2)
    low = np.full(len(unrate), np.nan)
    if len(unrate) > 12:
        win = np.lib.stride_tricks.sliding_window_view(ma3, 12)[: len(unrate) - 12]  # row k: months k..k+11
        count = np.isfinite(win).sum(axis=1)
        low[12:] = np.where(count >= 6, np.where(np.isfinite(win), win, np.inf).min(axis=1), np.nan)
    return ma3, low, ma3 - low


def claims_profile(frames, sid: str = "ICSA") -> dict:
    """Weekly initial claims: latest, 4-week average, its 52-week low, rise from that low and 13-week change."""
    frame = frames.get(sid)
    values = frame["value"].to_numpy().astype(float)
    avg4 = rolling_mean(values, 4, 4)
    recent = avg4[-52:]
    recent = recent[np.isfinite(recent)]
    low = float(recent.min()) if len(recent) >= 26 else None  # half a year at least for a "52-week low"
    with prov.about(frames, sid):
        return {"week_ending": frame["date"][-1].isoformat(), "latest": env.level(frames, sid, 0),
                "avg_4w": env.rnd(avg4[-1], 0, "4-week average"),
                "low_52w_of_avg_4w": env.rnd(low, 0, "lowest 4-week average of the last 52 weeks"),
                "rise_from_52w_low_pct": env.rnd((avg4[-1] / low - 1) * 100 if low else None, 2,
                                                 "percent rise of the 4-week average from its 52-week low"),
                "change_13w_pct": env.rnd((avg4[-1] / avg4[-14] - 1) * 100 if len(avg4) >= 14 else None, 2,
                                          "percent change of the 4-week average over 13 weeks"),
                "change_52w_pct": env.rnd((avg4[-1] / avg4[-53] - 1) * 100 if len(avg4) >= 53 else None, 2,
                                          "percent change of the 4-week average over 52 weeks")}


def claims_rise_by_month(frame: pl.DataFrame) -> tuple[int, np.ndarray]:
    """Per calendar month (last week in it): rise of the 4-week average above its 52-week low, in percent."""
    values = frame["value"].to_numpy().astype(float)
    avg4 = rolling_mean(values, 4, 4)
    low = np.full(len(values), np.nan)
    if len(values) >= 52:
        win = np.lib.stride_tricks.sliding_window_view(avg4, 52)
        low[51:] = np.where(np.isfinite(win), win, np.inf).min(axis=1)
    low = np.where(np.isfinite(low), low, np.nan)
    rise = (avg4 / low - 1) * 100
    weekly = pl.DataFrame({"date": frame["date"], "value": rise}).filter(pl.col("value").is_not_nan())
    if weekly.height == 0:
        return 0, np.array([])
    return month_grid(monthly_last(weekly))


def zscore_last(values: np.ndarray) -> float | None:
    """Z-score of the last value (None when it is missing) against the finite values of the array, at least 12."""
    return ind.zscore_of(values, float(values[-1]) if len(values) else None, min_obs=12)
