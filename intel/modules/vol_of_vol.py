"""vol_of_vol: how volatile the VIX itself is: annualised volatility of daily VIX log changes over 21 and
63 sessions, their percentiles against the past 1 and 10 years, and a regime."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import (
    DECADE_DAYS,
    YEAR_DAYS,
    annualize,
    dated_changes,
    history_years,
    in_window,
    iso_day,
    rolling_std,
)
from intel.modules._common import fig
from intel.modules._volatility import vix_state
from intel.registry import Module, register

NAME = "vol_of_vol"
VIX = "VIXCLS"
SHORT, LONG = 21, 63
# regime by the 10-year percentile of the 21-session figure (lower bounds)
REGIMES = (("calm", 0.0), ("normal", 25.0), ("elevated", 75.0), ("extreme", 90.0))
RISING, FALLING = 1.2, 0.8  # 21d over 63d ratios that mark a turn


def regime_of(percentile: float) -> str:
    return [name for name, low in REGIMES if percentile >= low][-1]


def _vol_figures(changes: np.ndarray, year: np.ndarray, decade: np.ndarray) -> dict:
    """Vol of vol over 21 and 63 sessions, with its percentiles and 10-year median (inside a VIX scope)."""
    out = {}
    for n in (SHORT, LONG):
        path = annualize(rolling_std(changes, n), 252)
        now = float(path[-1])
        vol = f"annualized sd of {n} daily VIX log changes"
        out[f"vol_of_vol_{n}d_pct"] = envelope.rnd(now, 2, vol + ", percent")
        out[f"percentile_{n}d_1y"] = envelope.rnd(indicators.percentile_rank(path[year], now), 1,
                                                  f"percentile rank of the {n}-session figure within the past year")
        out[f"percentile_{n}d_10y"] = envelope.rnd(indicators.percentile_rank(path[decade], now), 1,
                                                   f"percentile rank of the {n}-session figure within 10 years")
        out[f"median_{n}d_10y_pct"] = envelope.rnd(np.nanmedian(path[decade]), 2,
                                                   f"median of the {n}-session figure over 10 years") \
            if np.isfinite(path[decade]).any() else None
    return out


def _largest_move(frames: Frames, vix, days: np.ndarray, changes: np.ndarray) -> tuple:
    """The largest daily VIX move of the last 21 changes, in percent, from the two closes it joins."""
    recent = changes[-SHORT:]
    biggest = int(np.argmax(np.abs(recent)))
    day = days[-SHORT:][biggest]
    # a change is dated by its later close (row i) and joins it to the close before (row i - 1)
    n = int(np.searchsorted(indicators.day_numbers(vix), day)) - vix.height
    move = envelope.pct_change(envelope.nth_obs(frames, VIX, n), envelope.nth_obs(frames, VIX, n - 1), 2,
                               "percent change of VIXCLS over its largest daily move of the last 21 sessions")
    return move, iso_day(day)


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [VIX], need="all")
    vix = frames.get(VIX)
    sources = envelope.data_sources(frames, [VIX])
    days, changes = dated_changes(vix)
    if len(changes) < SHORT:
        raise InsufficientData(f"{NAME}: needs {SHORT + 1} VIX closes, has {vix.height}")
    decade, year = in_window(days, DECADE_DAYS), in_window(days, YEAR_DAYS)
    data = {"vix_level": envelope.level(frames, VIX, 2), "vix_state": vix_state(float(vix["value"][-1])),
            "date": iso_day(days[-1])}
    with provenance.about(frames, VIX):
        data.update(_vol_figures(changes, year, decade))
        data["largest_move_21d_pct"], data["largest_move_21d_date"] = _largest_move(frames, vix, days, changes)
        data["history_years"] = envelope.rnd(history_years(days), 1, "years of VIX history behind the 10-year figures")
        unavailable = None
        short, long_ = data["vol_of_vol_21d_pct"], data["vol_of_vol_63d_pct"]
        if not long_:  # None: history too short; 0.0: a VIX that never moved
            if long_ is None:
                unavailable = {"vol_of_vol_63d_pct": f"fewer than {LONG + 1} VIX closes"}
            data["trend"], data["ratio_21d_63d"] = "unknown", None
        else:
            data["ratio_21d_63d"] = envelope.rnd(short / long_, 2,
                                                 "21-session over 63-session vol of vol (as published)")
            data["trend"] = "rising" if short / long_ >= RISING else "falling" if short / long_ <= FALLING \
                else "steady"
    pct = data["percentile_21d_10y"]
    data["regime"] = regime_of(pct)
    data["regime_bounds_percentile"] = {name: envelope.constant(low, "regime bound: a 10-year percentile "
                                                                     "fixed by the method")
                                        for name, low in REGIMES}

    regime, trend = data["regime"], data["trend"]
    if regime == "extreme":
        direction, urgency = "bearish", "critical" if trend == "rising" and data["vix_state"] == "crisis" else "high"
    elif regime == "elevated":
        direction, urgency = "bearish", "medium" if trend == "rising" else "low"
    elif regime == "calm":
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "low"
    reason = f"VIX volatility {short}% on a 21-session window (10-year percentile {pct}), {regime}, {trend}"
    # short histories make the percentile less telling: scale by the years behind it (full at 5)
    depth = min(1.0, (data["history_years"] or 0) / 5)
    confidence = envelope.degrade((0.45 + abs(pct - 50) / 125) * (0.6 + 0.4 * depth), sources, essential=[VIX])
    signals = [envelope.signal("vol_of_vol", direction, confidence, urgency, reason)]
    summary = (f"VIX itself has moved with an annualised volatility of {short}% on a 21-session window and "
               f"{fig(long_, '%')} on a 63-session one, the 21-day figure at the {pct} percentile of its "
               "10-year history "
               f"({fig(data['percentile_21d_1y'])} over one year): a {regime} regime, {trend}. The largest daily "
               f"VIX move of the month was {data['largest_move_21d_pct']}% on {data['largest_move_21d_date']}, "
               f"with VIX now at {data['vix_level']}.")
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable,
                          related_modules=envelope.related(
                              ("vix", "the VIX level behind its volatility"),
                              ("vix_term_structure", "whether the curve is inverting too"),
                              ("volatility_regime", "how long VIX states tend to last"),
                              ("tail_risk", "jump frequency in the S&P 500")),
                          methodology="Sample standard deviation of daily VIX log changes over 21 and 63 sessions, "
                                      "annualised with 252 days, in percent. Regime by the 10-year percentile of the "
                                      "21-session figure: calm below 25, normal 25 to 75, elevated 75 to 90, extreme "
                                      "90 or more; trend by its ratio to the 63-session figure (rising at 1.2 or "
                                      "more, falling at 0.8 or less).")


register(Module(name=NAME, category="volatility", tier="S", inputs=(VIX,),
                description="Volatility of VIX changes over 21/63 days, percentiles, regime",
                compute=compute, lookback_days=3700))
