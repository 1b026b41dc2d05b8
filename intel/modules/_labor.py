"""The labour-market gauges labor_market, sahm_rule and recession_probability read: the Sahm rule on the
unemployment rate, weekly initial claims against their 52-week low, and the thresholds both are judged by.
Registers nothing (underscore file)."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, provenance
from intel.indicators import rolling_mean
from intel.modules._common import month_grid, monthly_last

SAHM_TRIGGER_PP = 0.5  # Sahm (2019): the 3-month average 0.50 pp above its low of the prior 12 months
CLAIMS_RISE_ALERT_PCT = 20.0  # 4-week claims 20% above their 52-week low: a classic late-cycle warning


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
    with provenance.about(frames, sid):
        return {"week_ending": frame["date"][-1].isoformat(), "latest": envelope.level(frames, sid, 0),
                "avg_4w": envelope.rnd(avg4[-1], 0, "4-week average"),
                "low_52w_of_avg_4w": envelope.rnd(low, 0, "lowest 4-week average of the last 52 weeks"),
                "rise_from_52w_low_pct": envelope.rnd((avg4[-1] / low - 1) * 100 if low else None, 2,
                                                      "percent rise of the 4-week average from its 52-week low"),
                "change_13w_pct": envelope.rnd((avg4[-1] / avg4[-14] - 1) * 100 if len(avg4) >= 14 else None, 2,
                                               "percent change of the 4-week average over 13 weeks"),
                "change_52w_pct": envelope.rnd((avg4[-1] / avg4[-53] - 1) * 100 if len(avg4) >= 53 else None, 2,
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
