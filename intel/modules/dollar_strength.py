"""dollar_strength: the broad trade-weighted dollar (DTWEXBGS): trend against its 50/200-day averages,
momentum over 1-12 months (and 12-1), RSI, realized volatility, and where the level sits in its history."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, day_numbers, in_window
from intel.modules._common import fig, observed_horizon_returns, pct_word, trend_profile
from intel.modules._fx import BROAD, MONTH_OBS, SETTING, YEAR_OBS, observed_return, standing
from intel.registry import Module, register

NAME = "dollar_strength"
TREND_BAND_PCT = 1.0  # distance to the 200-day average beyond which the trend counts (either way)


def momentum(frames: Frames, values: np.ndarray) -> dict:
    """Returns over a fixed number of observations (21 ~ 1 month), and 12-1 momentum that skips the last month:
    each the percent change between two named observations."""
    out = {}
    for label, n in (("1m", MONTH_OBS), ("3m", 63), ("6m", 126), ("12m", YEAR_OBS)):
        out[f"return_{label}_pct"] = observed_return(frames, BROAD, n, op=f"return over {n} observations, percent")
    out["momentum_12_1_pct"] = observed_return(
        frames, BROAD, YEAR_OBS, MONTH_OBS,
        op=f"return from {YEAR_OBS} to {MONTH_OBS} observations back (12-1 momentum), percent")
    rsi = indicators.rsi(values, 14)[-1] if len(values) > 15 else np.nan
    out["rsi_14"] = envelope.rnd(rsi, 1, "14-observation Wilder RSI")
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [BROAD], need="all")
    frame = frames.get(BROAD)
    if frame.height < 2:
        raise InsufficientData(f"{NAME}: needs at least two observations of {BROAD}")
    sources = envelope.data_sources(frames, [BROAD])
    values, days = frame["value"].to_numpy().astype(float), day_numbers(frame)
    level = float(values[-1])
    decade = values[in_window(days, DECADE_DAYS)]
    year = values[in_window(days, 365)]
    pct_10y, z_10y = standing(decade, level)
    pct_1y, z_1y = standing(year, level)
    history_years = indicators.history_years(days, DECADE_DAYS)
    with provenance.about(frames, BROAD):
        data = {
            "level": envelope.level(frames, BROAD, 2), "date": frame["date"][-1].isoformat(),
            "quote": "broad trade-weighted index, a rise is a stronger dollar",
            **observed_horizon_returns(frames, BROAD, ("1d", "1w", "1m", "3m", "6m", "1y")),
            "trend": trend_profile(frame, 50, 200),
            "momentum": momentum(frames, values),
            "realized_vol_21d_pct": envelope.rnd(indicators.realized_vol(values, MONTH_OBS, YEAR_OBS), 2),
            "realized_vol_63d_pct": envelope.rnd(indicators.realized_vol(values, 63, YEAR_OBS), 2),
            "percentile_1y": envelope.rnd(pct_1y, 1), "zscore_1y": envelope.rnd(z_1y, 2),
            "percentile_10y": envelope.rnd(pct_10y, 1), "zscore_10y": envelope.rnd(z_10y, 2),
            "high_10y": envelope.rnd(decade.max(), 2), "low_10y": envelope.rnd(decade.min(), 2),
            "history_years_used": envelope.rnd(history_years, 1),
            "trend_band_pct": envelope.constant(TREND_BAND_PCT, SETTING),
        }
    unavailable = {}
    if data["trend"]["sma_200"] is None:
        unavailable["trend_200d"] = "fewer than 200 observations: no 200-day average"
    if data["momentum"]["momentum_12_1_pct"] is None:
        unavailable["momentum_12_1_pct"] = "less than a year of observations"
    if history_years < 5:
        unavailable["percentile_10y"] = f"only {data['history_years_used']} years of history behind the 10y figures"

    # trend call: distance to the 200-day average, confirmed (or not) by 3-month momentum
    dist = data["trend"]["distance_to_sma200_pct"]
    mom = data["momentum"]["return_3m_pct"]
    lead = dist if dist is not None else data["change_1m_pct"]
    if lead is None:
        direction, strength = "neutral", 0.0
    else:
        direction = "bullish" if lead > TREND_BAND_PCT else "bearish" if lead < -TREND_BAND_PCT else "neutral"
        strength = min(1.0, abs(lead) / 5)
    agree = mom is not None and lead is not None and np.sign(mom) == np.sign(lead)
    confidence = envelope.degrade(0.35 + 0.35 * strength + (0.15 if agree else 0.0), sources, essential=[BROAD])
    urgency = "medium" if (data["percentile_10y"] or 50) >= 95 or (data["percentile_10y"] or 50) <= 5 else "low"
    reason = (f"broad dollar {fig(dist)}% from its 200-day average, 3-month return {fig(mom)}% "
              "(direction refers to the dollar)") if dist is not None else \
        f"broad dollar {pct_word(data['change_1m_pct'])} over a month (direction refers to the dollar)"
    signals = [envelope.signal("usd_trend", direction, confidence, urgency, reason)]
    if data["percentile_10y"] is not None and history_years >= 5 and (data["percentile_10y"] >= 90
                                                                       or data["percentile_10y"] <= 10):
        rich = data["percentile_10y"] >= 90
        signals.append(envelope.signal(
            "usd_extreme", "bearish" if rich else "bullish",
            envelope.degrade(0.3 + abs(data["zscore_10y"] or 0) / 10, sources, essential=[BROAD]), "low",
            f"broad dollar at the {data['percentile_10y']} percentile of {data['history_years_used']} years: "
            f"{'stretched high, mean reversion risk' if rich else 'stretched low, rebound potential'} "
            "(direction refers to the dollar)"))

    t = data["trend"]
    summary = (f"The broad trade-weighted dollar stands at {data['level']} on {data['date']}, "
               f"{pct_word(data['change_1m_pct'])} over a month and {pct_word(data['change_1y_pct'])} over a year. "
               f"It is in a {t['trend_state'].replace('_', ' ')} state, {fig(t['distance_to_sma200_pct'], '%')} "
               f"from its 200-day average, with 12-1 momentum of {fig(data['momentum']['momentum_12_1_pct'], '%')} "
               f"and a 14-day RSI of {fig(data['momentum']['rsi_14'])}. The level sits at the "
               f"{fig(data['percentile_10y'])} percentile of the past {data['history_years_used']} years "
               f"(z-score {fig(data['zscore_10y'])}).")
    if unavailable:
        summary += " Some long-horizon figures are unavailable for lack of history."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("fx_overview", "the major pairs behind the broad index"),
                              ("em_fx_stress", "whether dollar strength is squeezing emerging currencies"),
                              ("fx_carry", "the US rate leg that supports the dollar"),
                              ("safe_havens", "dollar, yen and franc demand on risk-off days"),
                              ("market_regime", "the dollar's part in the cross-asset regime")),
                          methodology="Trend compares the index with its 50- and 200-observation simple averages; "
                                      "momentum returns count observations (21 = one month, 252 = one year; 12-1 "
                                      "skips the latest month); percentiles and z-scores compare today's level with "
                                      "the last 1 and 10 years of the same series; realized volatility annualises "
                                      "the standard deviation of daily log changes with the square root of 252.")


register(Module(name=NAME, category="fx", tier="S", inputs=(BROAD,),
                description="Broad dollar trend, momentum, percentile",
                compute=compute, lookback_days=3700))
