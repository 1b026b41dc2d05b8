"""cross_asset_volatility: realized volatility over 21 and 63 observations for equities, rates, FX, oil and
bitcoin, each against its own 10-year history, and how broad any volatility stress is."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, annualize, dated_changes, history_years, in_window, iso_day, rolling_std
from intel.modules._common import all_stale, left_out_as_stale, not_computed
from intel.registry import Module, register

NAME = "cross_asset_volatility"
# series -> (asset class, label, change kind, observations per year, unit)
ASSETS = {
    "SP500": ("equities", "S&P 500", "log", 252, "pct"),
    "DGS10": ("rates", "10-year Treasury yield", "diff", 252, "bp"),
    "DEXUSEU": ("fx", "EUR/USD", "log", 252, "pct"),
    "DCOILWTICO": ("oil", "WTI crude", "log", 252, "pct"),
    "CBBTCUSD": ("bitcoin", "bitcoin", "log", 365, "pct"),  # trades every calendar day
}
WINDOWS = (21, 63)
HIGH_PCT, EXTREME_PCT = 80.0, 95.0


def asset_block(frame, kind: str, per_year: int, unit: str) -> dict | None:
    """One series' realized volatility figures; the caller rounds them inside a scope naming that series."""
    days, change = dated_changes(frame, kind)
    if len(change) < WINDOWS[0]:
        return None
    decade = in_window(days, DECADE_DAYS)
    changes = "daily yield changes, bp per day" if unit == "bp" else f"daily log returns annualized with {per_year}"
    out = {"date": iso_day(days[-1])}
    for n in WINDOWS:
        # rates: standard deviation of daily yield changes in basis points per day (percent points x 100)
        path = rolling_std(change, n) * 100 if unit == "bp" else annualize(rolling_std(change, n), per_year)
        now = float(path[-1])
        key = f"realized_vol_{n}d_bp_per_day" if unit == "bp" else f"realized_vol_{n}d_pct"
        out[key] = envelope.rnd(now, 2, f"sd of the last {n} {changes}")
        if unit == "bp":
            out[f"realized_vol_{n}d_bp_annualised"] = envelope.rnd(annualize(now, per_year, 1.0), 1,
                                                                   f"sd of the last {n} daily yield changes in bp, "
                                                                   f"annualized with {per_year}")
        out[f"percentile_{n}d_10y"] = envelope.rnd(indicators.percentile_rank(path[decade], now), 1,
                                                   f"percentile rank of the {n}-observation figure within 10 years") \
            if np.isfinite(now) else None
        if n == WINDOWS[0]:
            out[f"median_{n}d_10y_{'bp_per_day' if unit == 'bp' else 'pct'}"] = envelope.rnd(
                np.nanmedian(path[decade]), 2, f"median of the {n}-observation figure over 10 years")
    short = out["realized_vol_21d_bp_per_day" if unit == "bp" else "realized_vol_21d_pct"]
    long_ = out["realized_vol_63d_bp_per_day" if unit == "bp" else "realized_vol_63d_pct"]
    out["ratio_21d_63d"] = envelope.rnd(short / long_, 2, "21-observation over 63-observation figure (as published)") \
        if long_ else None
    out["history_years"] = envelope.rnd(history_years(days), 1, "years of history behind the 10-year figures")
    out["observations"] = envelope.count(int(decade.sum()), "count of daily changes over 10 years")
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ASSETS)
    sources = envelope.data_sources(frames, ASSETS)
    stale = set(envelope.stale_ids(sources))
    data, unavailable, old = {}, {}, {}
    for sid, (asset, _, kind, per_year, unit) in ASSETS.items():
        frame = frames.get(sid)
        with provenance.about(frames, sid):
            block = asset_block(frame, kind, per_year, unit) if frame is not None else None
        if block is None:
            unavailable[asset] = f"{sid} missing" if frame is None else f"{sid} has fewer than 22 usable observations"
        else:
            data[asset] = {"series": sid, "stale": sid in stale, **block}
            if sid in stale:  # its block keeps its last figures, dated, but it stays out of today's picture
                old[asset] = block["date"]
    if not data:
        raise InsufficientData(f"{NAME}: no input has the 22 observations a 21-day volatility needs")
    pcts = {a: d["percentile_21d_10y"] for a, d in data.items() if not d["stale"]}
    signals, parts = [], []
    for asset, d in data.items():
        if d["stale"]:
            continue
        label = ASSETS[d["series"]][1]
        level = (f"{d['realized_vol_21d_bp_per_day']} bp/day" if "realized_vol_21d_bp_per_day" in d
                 else f"{d['realized_vol_21d_pct']}%")
        parts.append(f"{label} {level} (percentile {d['percentile_21d_10y']})")
    if pcts:
        mean_pct = float(np.mean(list(pcts.values())))
        high = sorted((a for a, p in pcts.items() if p >= HIGH_PCT), key=lambda a: -pcts[a])
        # rests on the current assets' series only: stale ones are left out of today's picture
        with provenance.about(frames, *(data[a]["series"] for a in pcts)):
            figures = {"mean_percentile_21d_10y": envelope.rnd(mean_pct, 1, "mean of the current assets' 21-day "
                                                                            "10-year percentiles"),
                       "assets_used": envelope.count(len(pcts), "count of assets with current quotes"),
                       "assets_above_80th_percentile": envelope.count(len(high), "count of current assets at or above "
                                                                                 "their 80th percentile")}
        data["cross_asset"] = {
            **figures, "high_vol_assets": ", ".join(high) or "none",
            "most_stressed": max(pcts, key=pcts.get), "calmest": min(pcts, key=pcts.get),
            "rising_assets": ", ".join(a for a in pcts if (data[a]["ratio_21d_63d"] or 0) >= 1.2) or "none",
        }
        ca = data["cross_asset"]
        if len(high) >= 3 or mean_pct >= HIGH_PCT:
            direction, urgency = "bearish", "high"
        elif len(high) >= 2 or mean_pct >= 65:
            direction, urgency = "bearish", "medium"
        elif mean_pct <= 25:
            direction, urgency = "bullish", "low"
        else:
            direction, urgency = "neutral", "low"
        share = len(pcts) / len(ASSETS)
        confidence = envelope.degrade((0.45 + abs(mean_pct - 50) / 125) * (0.6 + 0.4 * share), sources)
        signals.append(envelope.signal("cross_asset_volatility", direction, confidence, urgency,
                                       f"mean 21-day volatility percentile {ca['mean_percentile_21d_10y']} across "
                                       f"{len(pcts)} asset classes, {len(high)} above "
                                       f"their 80th percentile"))
        for asset in high:
            if pcts[asset] >= EXTREME_PCT:
                signals.append(envelope.signal(f"{asset}_volatility_spike", "bearish",
                                               envelope.degrade(0.6, sources, [data[asset]["series"]]), "medium",
                                               f"{asset} 21-day volatility at the {pcts[asset]} percentile of its "
                                               "10-year history"))
        summary = (f"Realized 21-day volatility: {'; '.join(parts)}. Across {len(pcts)} asset classes the "
                   f"mean percentile against 10-year history is {ca['mean_percentile_21d_10y']}; most stressed: "
                   f"{ca['most_stressed']}, calmest: {ca['calmest']}; above the 80th percentile: "
                   f"{ca['high_vol_assets']}.")
    else:
        unavailable["cross_asset"] = all_stale(old)
        summary = "No cross-asset volatility picture is given: every asset's series is stale."
    summary += left_out_as_stale(old, "the cross-asset figures")
    summary += not_computed(unavailable)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("equity_volatility", "S&P 500 vol cone and regime"),
                              ("duration_risk", "rate volatility and shock P&L"),
                              ("fx_volatility", "realized volatility per currency pair"),
                              ("oil", "the oil market behind its volatility"),
                              ("crypto_volatility", "bitcoin volatility in detail"),
                              ("vix", "implied equity volatility")),
                          methodology="Sample standard deviation of daily log returns over 21 and 63 observations, "
                                      "annualised with 252 (bitcoin: 365, as it trades every calendar day, so its "
                                      "windows span 21 and 63 calendar days), in percent; the 10-year Treasury "
                                      "yield uses daily changes in basis points per day (and times the square root "
                                      "of 252 for the annualised figure). Oil returns touching a non-positive price "
                                      "are dropped. Percentiles rank today's value among the same rolling figure "
                                      "over the last 10 years. The cross-asset figures use only assets with current "
                                      "quotes; a stale asset keeps its own block, dated and flagged.")


register(Module(name=NAME, category="volatility", tier="S", inputs=tuple(ASSETS),
                description="Realized 21d/63d volatility per asset class with 10-year percentiles",
                compute=compute, lookback_days=3700))
