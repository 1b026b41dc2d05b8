"""Shared pieces of the cross-asset modules: levels and daily changes on common dates, every pair of a set of
assets, return indices built from yields (a constant-maturity 10-year Treasury) and spreads (high-yield excess
return), returns by calendar day and the Fisher transform. Days are integer day numbers
(indicators.day_numbers). Registers nothing (underscore file)."""
from __future__ import annotations

from datetime import date
from itertools import combinations

import numpy as np
import polars as pl

from intel import envelope, indicators
from intel.frames import Frames

BOND_TENOR_YEARS = 10  # the bond leg is a constant-maturity 10-year par bond priced from DGS10
HY_SPREAD_DURATION = 4.0  # years: typical spread duration of the ICE BofA US High Yield index
BOND_METHOD = ("The 10-year bond return is rebuilt from DGS10 as a constant-maturity par bond: each day "
               "earns the previous yield as carry (actual/365) minus its modified duration times the yield "
               "change (convexity ignored); the duration is that of a 10-year par bond with semiannual "
               "coupons at the previous day's yield (about 8 years at a 4% yield).")
HY_METHOD = (f"Credit is the high-yield excess return over Treasuries rebuilt from the HY OAS: the previous "
             f"spread as carry minus a spread duration of {HY_SPREAD_DURATION} years times the spread change.")


def align(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]):
    """(common days, a's values, b's values) on the days both series have."""
    common, ia, ib = np.intersect1d(a[0], b[0], return_indices=True)
    return common, a[1][ia], b[1][ib]


def aligned_changes(frames: Frames, a: str, kind_a: str, b: str, kind_b: str, keep: int):
    """(day numbers, changes of a, changes of b) between consecutive COMMON dates over the last keep+1 of
    them (indicators.common_changes); None when either series is missing or they share under 3 dates."""
    fa, fb = frames.get(a), frames.get(b)
    if fa is None or fb is None:
        return None
    return indicators.common_changes(fa, kind_a, fb, kind_b, last=keep, min_dates=3)


def each_pair(frames: Frames, assets, stats_of) -> tuple[dict, dict]:
    """Every pair of `assets` keyed "A/B": ({pair: stats} where stats_of(frames, a, b) gave figures,
    {pair: why} where it gave a reason instead)."""
    pairs, unavailable = {}, {}
    for a, b in combinations(assets, 2):
        stats, why = stats_of(frames, a, b)
        if stats is None:
            unavailable[f"{a}/{b}"] = why
        else:
            pairs[f"{a}/{b}"] = stats
    return pairs, unavailable


def series_in(pair_keys) -> tuple[str, ...]:
    """The series named by pair keys "A/B", each once, in order of first appearance."""
    return tuple(dict.fromkeys(sid for key in pair_keys for sid in key.split("/")))


CHANGE_WORDS = {"log": "log changes", "diff": "changes", "pct": "percent changes"}


def changes_of(sid: str, kind: str) -> str:
    """'daily log changes of SP500': how a pair's daily moves are measured, for an operation's wording."""
    return f"daily {CHANGE_WORDS[kind]} of {sid}"


def par_duration(yield_pct: np.ndarray) -> np.ndarray:
    """Modified duration (years) of a 10-year par bond with semiannual coupons: (1 - (1+y/2)^-20) / y."""
    y = np.maximum(np.abs(np.asarray(yield_pct, dtype=np.float64)) / 100.0, 1e-6)
    return (1.0 - (1.0 + y / 2.0) ** (-2 * BOND_TENOR_YEARS)) / y


def bond_index(frame: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(days, total-return index starting at 100, duration used for each day's return) from DGS10."""
    days, y = indicators.day_numbers(frame), frame["value"].to_numpy().astype(np.float64)
    dt = np.diff(days) / 365.0
    dur = par_duration(y[:-1])
    ret = y[:-1] / 100.0 * dt - dur * np.diff(y) / 100.0
    return days, 100.0 * np.cumprod(np.concatenate([[1.0], 1.0 + ret])), np.concatenate([dur, par_duration(y[-1:])])


def credit_index(frame: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(days, high-yield excess-return index starting at 100) from the HY OAS in percent."""
    days, s = indicators.day_numbers(frame), frame["value"].to_numpy().astype(np.float64)
    dt = np.diff(days) / 365.0
    ret = s[:-1] / 100.0 * dt - HY_SPREAD_DURATION * np.diff(s) / 100.0
    return days, 100.0 * np.cumprod(np.concatenate([[1.0], 1.0 + ret]))


def ret_bounds(days: np.ndarray, values: np.ndarray, cal_days: int, end_days_ago: int = 0) -> tuple[int, int] | None:
    """(start, end) indices of a return from cal_days before the last date to end_days_ago before it (calendar
    lookups); None when there is no such window or the start value is not positive."""
    end = len(values) - 1 if end_days_ago == 0 else indicators.index_days_ago(days, end_days_ago)
    start = indicators.index_days_ago(days, cal_days)
    if start is None or end is None or start >= end or values[start] <= 0:
        return None
    return start, end


def ret_pct(days: np.ndarray, values: np.ndarray, cal_days: int, end_days_ago: int = 0) -> float | None:
    """Percent return from cal_days before the last date to end_days_ago before it (calendar lookups)."""
    bounds = ret_bounds(days, values, cal_days, end_days_ago)
    if bounds is None:
        return None
    start, end = bounds
    return float((values[end] / values[start] - 1.0) * 100.0)


def price_return(sid: str, days: np.ndarray, values: np.ndarray, cal_days: int, end_days_ago: int = 0,
                 digits: int = 2):
    """`ret_pct` of a price series' own observations (days, values of `sid`, or a subset of its dates) as a
    figure of the two named observations: an agent can recompute it."""
    bounds = ret_bounds(days, values, cal_days, end_days_ago)
    if bounds is None:
        return None
    start, end = bounds
    a = (sid, _date(days[end]), float(values[end]))
    b = (sid, _date(days[start]), float(values[start]))
    return envelope.pct_change(a, b, digits)


def _date(day_number) -> date:
    return np.datetime64(int(day_number), "D").astype(date)


def fisher(r) -> np.ndarray:
    return np.arctanh(np.clip(r, -0.999999, 0.999999))

