"""fx_volatility: realized volatility per dollar pair (10/21/63 sessions), the 21-day vol's percentile and
z-score against its own 10-year history, the short/long vol ratio, and the FX-wide volatility state."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, in_window, iso_day, rolling_std
from intel.modules._common import fig
from intel.modules._fx import BROAD, MONTH_OBS, PAIRS, SETTING, annualised_pct, quote_of, standing, usd_log_returns
from intel.registry import Module, register

NAME = "fx_volatility"
INPUTS = (*PAIRS, BROAD)
HIGH_PCT, LOW_PCT = 80.0, 20.0  # average 21-day vol percentile that makes FX volatility high / low
MIN_RETURNS = MONTH_OBS  # fewer daily changes than this give no 21-day vol for a pair


def pair_vol(days: np.ndarray, rets: np.ndarray) -> dict:
    vol21 = annualised_pct(rolling_std(rets, MONTH_OBS))
    now = float(vol21[-1])
    decade = vol21[in_window(days, DECADE_DAYS)]
    pct, z = standing(decade, now)
    v10 = annualised_pct(np.std(rets[-10:], ddof=1))
    v63 = annualised_pct(np.std(rets[-63:], ddof=1)) if len(rets) >= 63 else None
    finite = np.isfinite(decade)
    return {
        "realized_vol_10d_pct": envelope.rnd(v10, 2), "realized_vol_21d_pct": envelope.rnd(now, 2),
        "realized_vol_63d_pct": envelope.rnd(v63, 2),
        "vol_ratio_10d_to_63d": envelope.rnd(v10 / v63, 2, "10-day over 63-day realized volatility") if v63 else None,
        "vol_21d_percentile_10y": envelope.rnd(pct, 1, "percentile rank of the 21-day vol within its 10-year history"),
        "vol_21d_zscore_10y": envelope.rnd(z, 2, "z-score of the 21-day vol against its 10-year history"),
        "vol_21d_median_10y_pct": envelope.rnd(np.nanmedian(decade), 2, "median 21-day vol of the past 10 years")
        if finite.any() else None,
        "vol_21d_max_10y_pct": envelope.rnd(np.nanmax(decade), 2, "highest 21-day vol of the past 10 years")
        if finite.any() else None,
        "history_start": iso_day(days[in_window(days, DECADE_DAYS)][0]),
        "last_move_1d_pct": envelope.rnd(rets[-1] * 100, 2, "last daily log change of the dollar against the currency, "
                                                             "percent"),
    }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    stale = set(envelope.stale_ids(sources))
    pairs, unavailable = {}, {}
    for sid in INPUTS:
        frame = frames.get(sid)
        if frame is None:
            continue
        if sid == BROAD:
            label, quote, usd_per_foreign = "broad_dollar", "index, a rise is a stronger dollar", False
        else:
            label, quote, usd_per_foreign = PAIRS[sid][0], quote_of(sid), PAIRS[sid][2]
        days, rets = usd_log_returns(frame, usd_per_foreign)
        if len(rets) < MIN_RETURNS:
            unavailable[label] = f"{sid}: fewer than {MIN_RETURNS} daily changes"
            continue
        with provenance.about(frames, sid):
            pairs[label] = {"series": sid, "quote": quote, "stale": sid in stale, **pair_vol(days, rets)}
    if not pairs:
        raise InsufficientData(f"{NAME}: no pair has {MIN_RETURNS} daily changes")

    fresh = {k: v for k, v in pairs.items() if not v["stale"]} or pairs
    pcts = {k: v["vol_21d_percentile_10y"] for k, v in fresh.items() if v["vol_21d_percentile_10y"] is not None}
    vols = {k: v["realized_vol_21d_pct"] for k, v in fresh.items() if k != "broad_dollar"}
    avg_pct = float(np.mean(list(pcts.values()))) if pcts else None
    state = None if avg_pct is None else "high" if avg_pct >= HIGH_PCT else "low" if avg_pct <= LOW_PCT else "normal"
    with provenance.about(frames, *(pairs[k]["series"] for k in sorted(pcts))):
        average = envelope.rnd(avg_pct, 1, "mean of the pairs' 21-day vol percentiles (10-year history)")
        counted = envelope.count(len(pcts), "count of series in the average")
    data = {
        "pairs": pairs,
        "average_vol_21d_percentile_10y": average,
        "fx_vol_state": state,
        "pairs_in_average": sorted(pcts), "series_in_average": counted,
        "most_volatile_pair": max(vols, key=vols.get) if vols else None,
        "least_volatile_pair": min(vols, key=vols.get) if vols else None,
        "highest_percentile_pair": max(pcts, key=pcts.get) if pcts else None,
        "pairs_with_rising_vol": sorted(k for k, v in pairs.items() if (v["vol_ratio_10d_to_63d"] or 0) > 1.25),
        "thresholds": {"high_percentile": envelope.constant(HIGH_PCT, SETTING),
                       "low_percentile": envelope.constant(LOW_PCT, SETTING)},
    }
    # a maximum rests on every pair it was chosen among, not only the winner
    if data["most_volatile_pair"]:
        with provenance.about(frames, *(pairs[k]["series"] for k in sorted(vols))):
            data["most_volatile_vol_21d_pct"] = envelope.rnd(vols[data["most_volatile_pair"]], 2,
                                                             "highest 21-day realized vol among the pairs")
    if data["highest_percentile_pair"]:
        with provenance.about(frames, *(pairs[k]["series"] for k in sorted(pcts))):
            data["highest_percentile"] = envelope.rnd(pcts[data["highest_percentile_pair"]], 1,
                                                      "highest 21-day vol percentile (10-year history) among the pairs")
    missing = [s for s in sources["missing"]]
    if missing:
        unavailable.update({s: "no observations" for s in missing})

    signals = []
    if avg_pct is not None:
        direction = "bearish" if state == "high" else "bullish" if state == "low" else "neutral"
        urgency = "high" if avg_pct >= 95 else "medium" if state == "high" else "low"
        confidence = envelope.degrade(0.4 + min(0.45, abs(avg_pct - 50) / 110) + 0.1 * min(1, len(pcts) / 6),
                                      sources, essential=["DEXUSEU", "DEXJPUS"])
        signals.append(envelope.signal(
            "fx_volatility_state", direction, confidence, urgency,
            f"average 21-day FX vol percentile {data['average_vol_21d_percentile_10y']} across "
            f"{len(pcts)} series ({state}; high vol is a risk-off sign and bad for carry)"))
    summary = (f"FX volatility is {state or 'unrated'}: the 21-day realized vol of the dollar pairs sits at the "
               f"{fig(data['average_vol_21d_percentile_10y'])} percentile of its own 10y history on average. ")
    if data["most_volatile_pair"]:
        summary += (f"{data['most_volatile_pair']} is the most volatile at {data['most_volatile_vol_21d_pct']}% "
                    "annualised. ")
    if data["highest_percentile_pair"]:
        summary += (f"{data['highest_percentile_pair']} is the most unusual, at the {data['highest_percentile']} "
                    "percentile of its own history. ")
    if data["pairs_with_rising_vol"]:
        rising = ", ".join(data["pairs_with_rising_vol"])
        summary += "Short-term vol runs well above the 63-day level in " + rising + "."
    if unavailable:
        summary += " Not covered: " + ", ".join(sorted(unavailable)) + "."
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=summary.strip() + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("fx_overview", "levels and moves of the same pairs"),
                              ("fx_carry", "carry trades suffer when FX volatility rises"),
                              ("cross_asset_volatility", "FX volatility beside equities, rates, oil and crypto"),
                              ("em_fx_stress", "emerging-market currency stress"),
                              ("vix", "equity volatility for comparison")),
                          methodology="Realized volatility is the sample standard deviation of daily log changes "
                                      "annualised with the square root of 252 (the same for either quote "
                                      "convention). The 21-day vol is ranked against its own rolling history of up to "
                                      "10 years; the FX state averages those percentiles over fresh series (high at "
                                      "80 or more, low at 20 or less).")


register(Module(name=NAME, category="fx", tier="S", inputs=INPUTS,
                description="Realized vol per pair, percentile",
                compute=compute, lookback_days=3700))
