"""curve_dynamics: bull/bear steepening/flattening classification of the 2s10s and 10s30s curve over 1w/1m/3m."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, YEAR_DAYS, in_window, index_days_ago, lagged_index
from intel.modules._common import fig
from intel.modules._rates import DAYS, STATED, aligned, move_bp, obs_at
from intel.registry import Module, register

NAME = "curve_dynamics"
INPUTS = ("DGS2", "DGS10", "DGS30")
LABEL = {"DGS2": "2y", "DGS10": "10y", "DGS30": "30y"}
# 2s30s only stands in when the 10y is missing
SEGMENTS = {"2s10s": ("DGS2", "DGS10"), "10s30s": ("DGS10", "DGS30"), "2s30s": ("DGS2", "DGS30")}
HORIZONS = ("1w", "1m", "3m")
# a slope move smaller than this (bp) is not called steepening or flattening
SLOPE_THRESHOLD_BP = 5.0
REGIMES = ("bull_steepening", "bear_steepening", "bull_flattening", "bear_flattening", "steepening_twist",
           "flattening_twist", "bull_parallel", "bear_parallel", "unchanged")
WORDS = {r: r.replace("_", " ") for r in REGIMES}


def classify(d_short, d_long) -> np.ndarray:
    """The rule, on changes in bp (arrays or scalars): the slope change is long minus short. |slope change|
    below the threshold is a parallel shift (bull if the average yield fell, bear if it rose, unchanged
    if it also moved less than the threshold). Otherwise the curve steepened (slope up) or flattened;
    the two legs moving in opposite directions is a twist, and both moving the same way (or one not at
    all) is bull when yields fell and bear when they rose."""
    d_short, d_long = np.asarray(d_short, dtype=float), np.asarray(d_long, dtype=float)
    slope, level = d_long - d_short, (d_long + d_short) / 2
    steep = slope > 0
    bull = level < 0
    moved = np.abs(slope) >= SLOPE_THRESHOLD_BP
    twist = (d_short * d_long) < 0
    out = np.where(steep, np.where(bull, "bull_steepening", "bear_steepening"),
                   np.where(bull, "bull_flattening", "bear_flattening")).astype(object)
    out = np.where(twist, np.where(steep, "steepening_twist", "flattening_twist"), out)
    parallel = np.where(np.abs(level) < SLOPE_THRESHOLD_BP, "unchanged",
                        np.where(bull, "bull_parallel", "bear_parallel"))
    return np.where(moved, out, parallel)


def segment_stats(frames: Frames, dates: np.ndarray, ids: tuple[str, str], short: np.ndarray, long: np.ndarray
                  ) -> dict:
    """Slope and leg changes from named observations on the legs' common dates; slope changes, their
    z-score and the regime history scoped to both legs."""
    short_id, long_id = ids
    leg = lambda sid, values, i: obs_at(sid, dates, values, i)  # noqa: E731
    out = {"short_tenor": LABEL[short_id], "long_tenor": LABEL[long_id],
           "slope_bp": envelope.difference(leg(long_id, long, -1), leg(short_id, short, -1), 1), "horizons": {}}
    with provenance.about(frames, short_id, long_id):
        return _segment_history(dates, ids, short, long, out)


def _segment_history(dates: np.ndarray, ids: tuple[str, str], short: np.ndarray, long: np.ndarray,
                     out: dict) -> dict:
    short_id, long_id = ids
    for h in HORIZONS:
        i = index_days_ago(dates, DAYS[h])
        if i is None:
            out["horizons"][h] = None
            continue
        ds, dl = (short[-1] - short[i]) * 100, (long[-1] - long[i]) * 100
        op = f"change since the common date on or before {DAYS[h]} days earlier, bp"
        out["horizons"][h] = {
            "short_change_bp": envelope.difference(obs_at(short_id, dates, short, -1),
                                                   obs_at(short_id, dates, short, i),
                                                   op=op),
            "long_change_bp": envelope.difference(obs_at(long_id, dates, long, -1), obs_at(long_id, dates, long, i),
                                                  op=op),
            "slope_change_bp": envelope.rnd(dl - ds, 1, f"{long_id} change minus {short_id} change over {h}, bp"),
            "regime": str(classify(ds, dl))}
    # history of the same 30-calendar-day changes, to judge today's move and how common each regime was
    base = lagged_index(dates, DAYS["1m"])
    ok = base >= 0
    ds_hist = (short - short[np.maximum(base, 0)]) * 100
    dl_hist = (long - long[np.maximum(base, 0)]) * 100
    decade = ok & in_window(dates, DECADE_DAYS)
    changes = (dl_hist - ds_hist)[decade]
    out["slope_change_1m_zscore_10y"] = envelope.rnd(
        (changes[-1] - changes.mean()) / changes.std(ddof=1), 2,
        "z-score of the 1-month slope change among all 30-day slope changes of the past 10 years") \
        if len(changes) > 20 and changes.std() > 0 else None
    year = ok & in_window(dates, YEAR_DAYS)
    if year.sum() >= 20:
        regimes = classify(ds_hist[year], dl_hist[year])
        names, counts = np.unique(regimes.astype(str), return_counts=True)
        out["regime_frequency_1y_pct"] = {
            str(n): envelope.rnd(c / len(regimes) * 100, 1, "percent of the past year's dates whose 1-month move had "
                                                            "this regime") for n, c in zip(names, counts)}
        same = regimes[::-1] == regimes[-1]
        out["regime_1m_persistence_obs"] = envelope.count(int(len(same) if same.all() else np.argmin(same)),
                                                          "count of latest consecutive dates with today's 1-month "
                                                          "regime")
    return out


def compute(frames: Frames) -> dict:
    present = [s for s in INPUTS if frames.get(s) is not None]
    if len(present) < 2:
        raise envelope.InsufficientData(f"{NAME}: needs two of DGS2, DGS10, DGS30; has {', '.join(present) or 'none'}")
    envelope.require(frames, NAME, INPUTS)  # never raises here (two are present): names the essential inputs
    sources = envelope.data_sources(frames, INPUTS)
    data: dict = {"yields_pct": {LABEL[s]: envelope.level(frames, s, 2) for s in present},
                  "slope_threshold_bp": envelope.constant(SLOPE_THRESHOLD_BP, STATED), "segments": {}}
    for name, (short_id, long_id) in SEGMENTS.items():
        if name == "2s30s" and "DGS10" in present:
            continue
        joined = aligned(frames, [short_id, long_id])
        if joined is None or len(joined[0]) < 2:
            continue
        dates, values = joined
        data["segments"][name] = segment_stats(frames, dates, (short_id, long_id), values[short_id],
                                               values[long_id])
    if not data["segments"]:
        raise envelope.InsufficientData(f"{NAME}: the available yields share too few dates")
    primary = next(n for n in SEGMENTS if n in data["segments"])
    data["primary_segment"] = primary
    unavailable = {n: "a leg of this segment is missing" for n in ("2s10s", "10s30s") if n not in data["segments"]}
    for seg in data["segments"].values():
        for h, v in seg["horizons"].items():
            if v is None:
                unavailable[f"{seg['short_tenor']}-{seg['long_tenor']} {h}"] = "history shorter than the horizon"

    signals = []
    for name, seg in data["segments"].items():
        month = seg["horizons"]["1m"]
        if month is None:
            continue
        regime, slope_change = month["regime"], month["slope_change_bp"]
        # direction refers to Treasury prices: bull moves (yields falling) are gains for holders
        direction = "bullish" if regime.startswith("bull") else "bearish" if regime.startswith("bear") else "neutral"
        agree = sum(1 for h in ("1w", "3m") if seg["horizons"][h] and seg["horizons"][h]["regime"] == regime)
        confidence = envelope.degrade(0.35 + min(0.4, abs(slope_change) / 75) + 0.1 * agree, sources,
                                      essential=list(SEGMENTS[name]))
        urgency = "high" if abs(slope_change) >= 40 else "medium" if abs(slope_change) >= 15 else "low"
        signals.append(envelope.signal(
            f"{name}_regime_1m", direction, confidence, urgency,
            f"{name} {WORDS[regime]} over a month: {seg['short_tenor']} {move_bp(month['short_change_bp'])}, "
            f"{seg['long_tenor']} {move_bp(month['long_change_bp'])}, slope {move_bp(slope_change)} "
            "(direction for Treasury prices)"))

    parts = []
    for name, seg in data["segments"].items():
        h = seg["horizons"]
        words = ", ".join(f"{k} {WORDS[v['regime']]}" for k, v in h.items() if v is not None)
        month = h["1m"]
        text = f"The {name} slope is {seg['slope_bp']} bp ({words or 'no horizon reaches back far enough'})."
        if month is not None:
            text += (f" Over a month the {seg['short_tenor']} moved {move_bp(month['short_change_bp'])} and the "
                     f"{seg['long_tenor']} {move_bp(month['long_change_bp'])}, the slope "
                     f"{move_bp(month['slope_change_bp'])} (z-score {fig(seg['slope_change_1m_zscore_10y'])}).")
        parts.append(text)
    if len(data["segments"]) < 2:
        parts.append("Only one segment could be classified.")
    return envelope.build(NAME, frames, data=data, signals=signals,
                          summary=" ".join(parts) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("yield_curve", "the whole curve, its slopes and inversion status"),
                              ("treasury_yields", "per-tenor levels, changes and percentiles"),
                              ("fed_policy", "policy expectations behind front-end moves"),
                              ("real_yields", "whether long-end moves are real rates or breakevens"),
                              ("duration_risk", "the P&L these moves imply")),
                          methodology="Changes compare the last common observation with the one on or before 7, 30 "
                                      "and 91 calendar days earlier. Slope change = long-leg change minus short-leg "
                                      f"change; below {SLOPE_THRESHOLD_BP} bp in absolute value it is a parallel shift "
                                      "(bull if the average of the two legs fell, bear if it rose, unchanged if that "
                                      "also moved less than the threshold); otherwise steepening (slope up) or "
                                      "flattening, a twist when the legs moved in opposite directions, else bull "
                                      "when the legs fell and bear when they rose. The z-score ranks today's 1m slope "
                                      "change against all 30-day changes of the past 10 years.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="rates_credit", tier="S", inputs=INPUTS,
                description="Bull/bear steepening/flattening classification over 1w/1m/3m",
                compute=compute, lookback_days=3700))
