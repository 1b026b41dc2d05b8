"""correlations: rolling 63-day correlation matrix of daily changes, one series per asset class, against
the 1-year baseline before it (the same assets and windows as the pulse's correlation alerts)."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.correlations import (  # the package-level helpers (not this module)
    BASELINE_WINDOW,
    CORRELATION_ASSETS,
    SHORT_WINDOW,
    rolling_corr,
)
from intel.frames import Frames
from intel.modules._common import fig, not_computed
from intel.modules._cross_asset import aligned_changes, changes_of, each_pair, series_in
from intel.registry import Module, register

NAME = "correlations"
ASSETS = CORRELATION_ASSETS
SHORT, BASE = SHORT_WINDOW, BASELINE_WINDOW
HISTORY = 3 * 252  # the 63-day correlation's own 3-year history, for its percentile
SHIFT = 0.1  # average absolute correlation moving this much from baseline counts as a shift


def label(sid: str) -> str:
    return ASSETS[sid][0]


def pair_stats(frames: Frames, a: str, b: str) -> tuple[dict | None, str | None]:
    """A pair's figures, each resting on the two series alone (their common dates)."""
    with provenance.about(frames, a, b):
        return _pair_stats(frames, a, b)


def _pair_stats(frames: Frames, a: str, b: str) -> tuple[dict | None, str | None]:
    got = aligned_changes(frames, a, ASSETS[a][1], b, ASSETS[b][1], HISTORY + SHORT + BASE)
    if got is None:
        return None, "series missing"
    _, x, y = got
    if len(x) < SHORT:
        return None, f"only {len(x)} common daily changes"
    rolling = rolling_corr(x, y, SHORT)
    now = rolling[-1]
    if not np.isfinite(now):
        return None, "no variation in the last window"
    # baseline: the 252 common days before the current 63-day window (disjoint, as the pulse does)
    base = indicators.pearson(x[-SHORT - BASE:-SHORT], y[-SHORT - BASE:-SHORT]) if len(x) >= SHORT + BASE else None
    history = rolling[-HISTORY:]
    history = history[np.isfinite(history)]
    month_ago = rolling[-22] if len(rolling) >= 22 + SHORT - 1 else np.nan
    what = f"correlation of {changes_of(a, ASSETS[a][1])} and {changes_of(b, ASSETS[b][1])}"
    return {"assets": f"{label(a)} vs {label(b)}", "correlation_63d": envelope.rnd(now, 3, f"{SHORT}-day {what}"),
            "baseline_1y": envelope.rnd(base, 3, f"{what} over the {BASE} common days before the {SHORT}-day window"),
            "change_vs_baseline": envelope.rnd(now - base, 3, f"{SHORT}-day {what} minus its 1-year baseline")
            if base is not None else None,
            "change_1m": envelope.rnd(now - month_ago, 3, f"{SHORT}-day {what} now minus 21 common days earlier"),
            "percentile_3y": envelope.rnd(indicators.percentile_rank(history, now), 1,
                                          f"percentile rank of the {SHORT}-day {what} among its values over 3 years")
            if len(history) >= 252 else None,
            "common_days": envelope.count(len(x), f"count of common daily changes of {a} and {b} used")}, None


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ASSETS)
    sources = envelope.data_sources(frames, ASSETS)
    pairs, unavailable = each_pair(frames, ASSETS, pair_stats)
    if not pairs:
        raise envelope.InsufficientData(f"{NAME}: no pair of asset series has {SHORT} common daily changes")
    matrix: dict = {}
    for key, s in pairs.items():
        a, b = key.split("/")
        matrix.setdefault(label(a), {})[label(b)] = s["correlation_63d"]
        matrix.setdefault(label(b), {})[label(a)] = s["correlation_63d"]
    with_base = [s for s in pairs.values() if s["baseline_1y"] is not None]
    avg_now = float(np.mean([abs(s["correlation_63d"]) for s in pairs.values()]))
    avg_base = float(np.mean([abs(s["baseline_1y"]) for s in with_base])) if with_base else None
    avg_now_same = float(np.mean([abs(s["correlation_63d"]) for s in with_base])) if with_base else None
    ranked = sorted(pairs.items(), key=lambda kv: kv[1]["correlation_63d"])

    def brief(kv, which: str) -> dict:
        # the pick is made among every pair, so the figure rests on all their series
        with provenance.about(frames, *series_in(pairs), operation=f"{which} {SHORT}-day correlation among the pairs"):
            return {"pair": kv[0], "assets": kv[1]["assets"],
                    "correlation_63d": envelope.rnd(kv[1]["correlation_63d"], 3)}
    based = [k for k, s in pairs.items() if s["baseline_1y"] is not None]
    with provenance.about(frames, *ASSETS):  # which pairs compute depends on every series offered
        computed = envelope.count(len(pairs), f"count of asset pairs with a {SHORT}-day correlation")
    with provenance.about(frames, *series_in(pairs), operation=f"mean absolute {SHORT}-day correlation over the pairs"):
        average_now = envelope.rnd(avg_now, 3)
    with provenance.about(frames, *series_in(based)):
        average_base = envelope.rnd(avg_base, 3,
                                    "mean absolute 1-year baseline correlation over the pairs that have one")
        # same pairs on both sides, so the shift is not an artefact of pairs lacking a baseline
        shift = envelope.rnd(avg_now_same - avg_base, 3, f"mean absolute {SHORT}-day correlation minus mean absolute "
                             "baseline, over the pairs with a baseline") if with_base else None
    data = {
        "window_days": envelope.constant(SHORT, "fixed parameter: correlation window in common trading days"),
        "baseline_days": envelope.constant(BASE, "fixed parameter: baseline window in common trading days"),
        "pairs_computed": computed, "average_abs_correlation_63d": average_now,
        "average_abs_correlation_baseline_1y": average_base, "average_abs_correlation_shift": shift,
        "strongest_positive": brief(ranked[-1], "highest"), "strongest_negative": brief(ranked[0], "lowest"),
        "pairs": pairs, "matrix_63d": matrix,
    }
    if with_base:
        moved = max(with_base, key=lambda s: abs(s["change_vs_baseline"]))
        key = next(k for k, s in pairs.items() if s is moved)
        with provenance.about(frames, *series_in(based), operation="largest absolute change from baseline among the "
                                                                   "pairs (signed)"):
            data["largest_change"] = {"pair": key, "assets": moved["assets"],
                                      "change_vs_baseline": envelope.rnd(moved["change_vs_baseline"], 3)}
    else:
        unavailable["baseline_1y"] = f"fewer than {SHORT + BASE} common daily changes for every pair"
    signals = [_diversification_signal(data, sources)]
    summary = (f"Across {len(pairs)} asset pairs the average absolute correlation of daily changes over the last "
               f"{SHORT} common trading days is {data['average_abs_correlation_63d']}"
               + (f", against {data['average_abs_correlation_baseline_1y']} in the 1-year baseline"
                  if avg_base is not None else " (no 1-year baseline yet)")
               + f". Most positive: {data['strongest_positive']['assets']} at "
               f"{data['strongest_positive']['correlation_63d']}; most negative: "
               f"{data['strongest_negative']['assets']} at {data['strongest_negative']['correlation_63d']}.")
    if "largest_change" in data:
        lc = data["largest_change"]
        summary += f" The largest move from baseline is {lc['assets']} ({lc['change_vs_baseline']})."
    summary += not_computed(unavailable)
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("correlation_breaks", "which pairs broke from baseline, with z-scores and dates"),
                              ("stock_bond_correlation", "the stock-bond link and its regime"),
                              ("btc_macro_correlation", "bitcoin's betas to macro drivers"),
                              ("portfolio_60_40", "what the correlations mean for a balanced portfolio"),
                              ("market_regime", "the regime the correlations sit in")),
                          methodology=(f"Pearson correlation of daily changes (log changes for prices and the VIX, "
                                       f"percent for oil, point changes for the 10-year yield) between consecutive "
                                       f"dates both series have, over the last {SHORT} such days, against the "
                                       f"{BASE} days before that window; percentiles rank the current value among "
                                       f"the rolling {SHORT}-day correlations of the past three years."),
                          unavailable=unavailable or None)


def _diversification_signal(data: dict, sources: dict) -> dict:
    shift, avg = data["average_abs_correlation_shift"], data["average_abs_correlation_63d"]
    if shift is not None and shift >= SHIFT:
        direction, urgency = "bearish", "high" if shift >= 2 * SHIFT else "medium"
        reason = (f"cross-asset correlations converging (average absolute {avg}, up {shift} on baseline): "
                  "diversification eroding")
    elif shift is not None and shift <= -SHIFT:
        direction, urgency = "bullish", "low"
        reason = (f"cross-asset correlations loosening (average absolute {avg}, {shift} on baseline): "
                  "diversification improving")
    else:
        direction, urgency = "neutral", "low"
        reason = f"average absolute correlation {avg} near its baseline (shift {fig(shift)})"
    confidence = 0.45 + min(0.4, abs(shift or 0) * 2)
    if shift is None:
        confidence = 0.3
    return envelope.signal("diversification", direction,
                           envelope.degrade(confidence, sources, essential=("SP500", "DGS10")),
                           urgency, reason)


register(Module(name=NAME, category="cross_asset", tier="S", inputs=tuple(ASSETS),
                description="Rolling 63-day cross-asset correlation matrix vs the 1-year baseline",
                compute=compute, lookback_days=1900))
