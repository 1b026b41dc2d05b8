"""Simulated policy rate, Treasury curve and breakevens.

The policy rate moves in 25-50bp steps on FOMC-like dates, following a Taylor rule on last month's core
inflation and unemployment, cutting hard in a crisis and stopping at the zero bound. The curve is
Nelson-Siegel: its short end is tied to the policy rate, its level drifts slowly and falls when equities
crash (Treasuries rally), its curvature prices the expected policy path.
"""
from __future__ import annotations

import numpy as np

from intel.catalog import FOREIGN_SHORT_RATES, TREASURY_TENORS
from intel.providers.sim_noise import Draws, ar1, last_before, smooth_toward

FLOOR = 0.1  # the effective funds rate at the zero bound
FOMC_EVERY = 32  # business days between meetings (eight a year)
LEVEL_VOL = np.array([0.052, 0.072, 0.090, 0.130])  # daily vol of the curve's level by regime (percent)
EQUITY_LOADING = 0.25  # the level's loading on the equity shock (the stock-bond correlation)
# Foreign 3-month rates: (anchor %, loading on the US funds rate's distance from 2.5%, floor %). Rate cycles
# move together across countries, less in Japan and China; the euro area, Switzerland and Japan went
# below zero in the 2010s; Mexico's rate sits well above the dollar's.
FOREIGN = {"EUR": (1.6, 0.6, -0.6), "GBP": (2.2, 0.8, 0.05), "JPY": (0.15, 0.1, -0.1), "CHF": (0.6, 0.5, -0.8),
           "CAD": (2.0, 0.85, 0.2), "AUD": (3.2, 0.6, 0.1), "MXN": (7.0, 0.6, 3.0), "CNY": (3.0, 0.2, 1.0)}


def taylor_rate(core_yoy: np.ndarray, unrate: np.ndarray) -> np.ndarray:
    """Taylor (1993) with an Okun's-law output gap, a post-2008 1% real neutral rate and u* = 4.6%."""
    return np.clip(1.0 + core_yoy + 0.5 * (core_yoy - 2.0) - 1.0 * (unrate - 4.6), FLOOR, 7.0)


def policy_path(days: np.ndarray, regime: np.ndarray, months: np.ndarray,
                core_yoy: np.ndarray, unrate: np.ndarray, start: float = 2.25) -> dict[str, np.ndarray]:
    """Daily policy target and the Taylor rate the market sees (from the last complete month)."""
    month_of_day = days.astype("datetime64[M]").astype("datetime64[D]")
    taylor = last_before(months, taylor_rate(core_yoy, unrate), month_of_day)
    jobless = last_before(months, unrate, month_of_day)
    meeting = (np.arange(len(days)) % FOMC_EVERY) == 15
    rate, previous, out = start, 1, []
    for is_meeting, reg, target, u in zip(meeting.tolist(), regime.tolist(), taylor.tolist(), jobless.tolist()):
        if reg == 3 and previous != 3:  # an emergency cut when a crisis breaks out
            rate = max(FLOOR, rate - 0.5)
        previous = reg
        if is_meeting:
            gap = target - rate
            if reg == 3:
                rate -= 1.0
            elif reg == 2:
                rate -= 0.25 if gap < 0.5 else 0.0
            elif gap < -0.4:
                rate -= 0.5 if gap < -2.0 else 0.25
            elif gap > 0.4 and u < 5.5:  # no hikes until the labour market has healed
                rate += 0.5 if gap > 2.0 else 0.25
            rate = max(FLOOR, rate)
        out.append(rate)
    return {"policy": np.asarray(out), "taylor": taylor}


def _loadings(tenor_years: float, decay: float = 2.0) -> tuple[float, float]:
    x = tenor_years / decay
    slope = (1 - np.exp(-x)) / x
    return slope, slope - np.exp(-x)


def curve(draws: Draws, days: np.ndarray, regime: np.ndarray, shock: np.ndarray, policy: np.ndarray,
          taylor: np.ndarray, severity: np.ndarray, core_trend: np.ndarray) -> dict[str, np.ndarray]:
    """Every Treasury tenor, T10Y2Y (exactly DGS10 - DGS2 as published) and the breakevens."""
    anchor = 3.5 + ar1(0.999, 0.012 * draws.normal("rates.anchor", days))
    smoothed_policy = smooth_toward(policy, 0.004, policy[0])
    level_mean = 0.5 * anchor + 0.5 * (smoothed_policy + 1.3)
    vol = LEVEL_VOL[regime]
    flight = np.array([0.0, 0.0, -0.002, -0.006])[regime]  # havens bid while stress lasts
    own = np.sqrt(1 - EQUITY_LOADING**2)
    kicks = (vol * (EQUITY_LOADING * shock + own * draws.normal("rates.level", days)) + flight).tolist()
    x, level = 4.9, []
    for mean, kick in zip(level_mean.tolist(), kicks):
        x += 0.008 * (mean - x) + kick
        level.append(x)
    level = np.asarray(level)
    slope = policy + 0.08 - level
    expected_moves = smooth_toward(np.clip(0.8 * (taylor - policy), -2.5, 2.5), 0.05, 0.0)
    curvature = expected_moves + ar1(0.98, 0.04 * draws.normal("rates.curvature", days))
    out = {}
    for series_id, years in TREASURY_TENORS.items():
        load_slope, load_curve = _loadings(years)
        idio = ar1(0.95, 0.008 * draws.normal(f"rates.{series_id}", days))
        out[series_id] = np.maximum(np.round(level + load_slope * slope + load_curve * curvature + idio, 2), 0.0)
    out["T10Y2Y"] = np.round(out["DGS10"] - out["DGS2"], 2)
    stress = smooth_toward(severity, 0.1, severity[0])
    be_mean = 2.3 + 0.3 * (core_trend - 2.4) - 0.6 * stress
    be_kicks = (0.03 * (0.35 * shock + 0.94 * draws.normal("rates.breakeven", days))).tolist()
    x, be10 = 2.3, []
    for mean, kick in zip(be_mean.tolist(), be_kicks):
        x += 0.02 * (mean - x) + kick
        be10.append(x)
    be10 = np.asarray(be10)
    out["T10YIE"] = np.round(be10, 2)
    out["T5YIE"] = np.round(2.2 + 1.5 * (be10 - 2.2) + ar1(0.95, 0.02 * draws.normal("rates.be5", days)), 2)
    return out


def foreign_short_rates(draws: Draws, months: np.ndarray, fed_funds: np.ndarray) -> dict[str, np.ndarray]:
    """Each FOREIGN_SHORT_RATES series as a monthly average: its anchor, a share of the US rate cycle (the
    month's mean funds rate) and a slow wander of its own, held above its floor."""
    out = {}
    for ccy, series_id in FOREIGN_SHORT_RATES.items():
        anchor, loading, floor = FOREIGN[ccy]
        wander = ar1(0.97, 0.12 * draws.normal(f"rates.foreign.{ccy}", months))
        out[series_id] = np.maximum(anchor + loading * (fed_funds - 2.5) + wander, floor)
    return out
