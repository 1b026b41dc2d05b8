"""crash_risk: a crash-warning composite from VIX, the high-yield spread, sector breadth and the 2s10s
curve, with its back-tested hit rate and false-alarm rate against later S&P 500 falls of 10% or more
within three months."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.catalog import SECTORS
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import asof, day_numbers, iso_day, runs
from intel.modules._common import fig
from intel.modules._regime_history import HY, SPX, VIX, calendar, forward_min_return, rolling_z, values
from intel.modules._volatility import RULE_THRESHOLD
from intel.registry import Module, register

NAME = "crash_risk"
CURVE = "T10Y2Y"
INPUTS = (VIX, HY, *SECTORS, CURVE, SPX)
WARN, SEVERE = 1.0, 2.0  # composite levels: warning, severe warning
CRASH_PCT, CRASH_SESSIONS = -10.0, 63  # a crash: the S&P 500 falls 10% or more below the day's close within 63 sessions
MIN_SECTORS = 3  # sectors with a 50-day average needed for a breadth reading
COMPONENTS = {
    "vix_zscore_1y": "VIX z-score against its past 252 sessions",
    "hy_spread_zscore_1y": "high-yield spread z-score against its past 252 sessions",
    "breadth_weakness": "(share of sectors below their 50-day average - 50%) / 25%",
    "curve_inversion": "minus the 2s10s spread / 0.5 percentage point",
}


def breadth_history(frames: Frames, grid: np.ndarray) -> tuple[np.ndarray | None, dict]:
    """Share (%) of sectors below their 50-day average on each grid day, and today's distances (the sectors
    used are the distances' keys)."""
    below, valid, distances = [], [], {}
    for sid in SECTORS:
        frame = frames.get(sid)
        if frame is None or frame.height < 50:
            continue
        close = values(frame)
        sma = indicators.sma(close, 50)
        with provenance.about(frames, sid):
            distances[sid] = envelope.rnd((close[-1] / sma[-1] - 1) * 100, 2, "percent distance of the last close from "
                                                                              "its 50-day average")
        flag = asof(grid, day_numbers(frame), np.where(close < sma, 1.0, 0.0))
        known = asof(grid, day_numbers(frame), np.where(np.isfinite(sma), 1.0, np.nan))
        below.append(np.where(np.isfinite(known), flag, 0.0))
        valid.append(np.isfinite(known))
    if not below:
        return None, distances
    count = np.sum(valid, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(count >= MIN_SECTORS, np.sum(below, axis=0) / count * 100, np.nan)
    return share, distances


def component_histories(frames: Frames, grid: np.ndarray) -> tuple[dict, dict, np.ndarray | None, dict]:
    """Each component's daily history on the grid, today's sector distances, the breadth share, and the series
    each component is computed from."""
    comps, series = {}, {}
    for key, sid in (("vix_zscore_1y", VIX), ("hy_spread_zscore_1y", HY)):
        frame = frames.get(sid)
        if frame is not None and frame.height >= 63:
            comps[key], series[key] = asof(grid, day_numbers(frame), rolling_z(values(frame), 252, min_obs=63)), [sid]
    share, distances = breadth_history(frames, grid)
    if share is not None:
        comps["breadth_weakness"], series["breadth_weakness"] = (share - 50) / 25, list(distances)
    curve = frames.get(CURVE)
    if curve is not None:
        comps["curve_inversion"], series["curve_inversion"] = -asof(grid, day_numbers(curve), values(curve)) / 0.5, \
            [CURVE]
    return {k: np.clip(v, -3, 3) for k, v in comps.items()}, distances, share, series


def backtest(composite: np.ndarray, close: np.ndarray, days: np.ndarray, today: float) -> dict | None:
    """Warning days (composite >= WARN) against S&P 500 falls of 10%+ within the next 63 sessions."""
    fall = forward_min_return(close, CRASH_SESSIONS) * 100
    test = np.isfinite(fall) & np.isfinite(composite)
    if test.sum() < 252:
        return None
    crash = fall[test] <= CRASH_PCT
    warn = composite[test] >= WARN
    d = days[test]
    n_warn = int(warn.sum())
    hits = int((warn & crash).sum())
    # episodes: runs of consecutive tested days that are crash-labelled (or warning days)
    starts, lengths, vals = runs(crash.astype(int))
    crash_eps = [(s, s + n) for s, n, v in zip(starts, lengths, vals) if v == 1]
    caught = sum(1 for s, e in crash_eps if warn[s:e].any())
    w_starts, w_lengths, w_vals = runs(warn.astype(int))
    warn_eps = [(s, s + n) for s, n, v in zip(w_starts, w_lengths, w_vals) if v == 1]
    false_eps = sum(1 for s, e in warn_eps if not crash[s:e].any())
    at_or_above = composite[test] >= today
    count = envelope.count
    return {
        "sample_start": iso_day(d[0]), "sample_end": iso_day(d[-1]),
        "tested_days": count(test.sum(), op="count of past days with a composite and a known 3-month outcome"),
        "base_rate_pct": envelope.rnd(crash.mean() * 100, 1, "percent of tested days followed by a 10% S&P 500 fall "
                                                             "within 63 sessions"),
        "warning_days": count(n_warn, op="count of tested days with a warning"),
        "hit_rate_pct": envelope.rnd(hits / n_warn * 100, 1, "percent of warning days followed by a crash")
        if n_warn else None,
        "false_alarm_rate_pct": envelope.rnd((n_warn - hits) / n_warn * 100, 1, "percent of warning days not followed "
                                             "by a crash") if n_warn else None,
        "crash_episodes": count(len(crash_eps), op="count of runs of crash-labelled days"),
        "crash_episodes_warned": count(caught, op="count of crash episodes with a warning day"),
        "crash_episodes_warned_pct": envelope.rnd(caught / len(crash_eps) * 100, 1, "percent of crash episodes with a "
                                                  "warning day") if crash_eps else None,
        "warning_episodes": count(len(warn_eps), op="count of runs of warning days"),
        "false_alarm_episodes": count(false_eps, op="count of warning episodes with no crash day"),
        "crash_rate_when_composite_at_or_above_today_pct": envelope.rnd(crash[at_or_above].mean() * 100, 1,
                                                                        "percent of tested days with the "
                                                                        "composite at or above today's followed by "
                                                                        "a crash")
        if at_or_above.any() else None,
        "days_at_or_above_today": count(at_or_above.sum(), op="count of tested days with the composite at or "
                                                              "above today's"),
    }


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, (VIX, HY, *SECTORS, CURVE))
    sources = envelope.data_sources(frames, INPUTS)
    cal = calendar(frames, (SPX, VIX, HY, CURVE, *SECTORS))
    grid = cal[1]
    comps, distances, share, series = component_histories(frames, grid)
    now = {k: float(v[-1]) for k, v in comps.items() if np.isfinite(v[-1])}
    if not now:
        raise InsufficientData(f"{NAME}: no component has enough history for today's reading")
    stack = np.vstack(list(comps.values()))
    ok = np.isfinite(stack)
    with np.errstate(invalid="ignore", divide="ignore"):
        # a past day needs at least two components (or all of them when fewer exist) to count
        mean = np.where(ok, stack, 0.0).sum(axis=0) / ok.sum(axis=0)
        hist = np.where(ok.sum(axis=0) >= min(2, len(comps)), mean, np.nan)
    composite = float(np.mean(list(now.values())))
    finite = hist[np.isfinite(hist)]
    level = "severe" if composite >= SEVERE else "warning" if composite >= WARN else \
        "watch" if composite >= WARN / 2 else "low"
    today = [sid for k in now for sid in series[k]]  # today's composite: the components with a reading
    every = [sid for k in comps for sid in series[k]]  # its history: every component
    with provenance.about(frames, *today):
        figures = {"composite": envelope.rnd(composite, 2, "mean of today's clipped components"),
                   "components_used": envelope.count(len(now), "count of components with a reading today")}
    with provenance.about(frames, *every):
        figures["composite_percentile"] = envelope.rnd(indicators.percentile_rank(finite, composite), 1,
                                                       "percentile rank of today's composite within its daily "
                                                       "history") \
            if len(finite) else None
    components = {}
    for k, v in now.items():
        with provenance.about(frames, *series[k], operation=f"{COMPONENTS[k]}, clipped to -3..+3"):
            components[k] = {"value": envelope.rnd(v, 2), "rule": COMPONENTS[k]}
    with provenance.about(frames, *series.get("breadth_weakness", ())):
        below = envelope.rnd(share[-1], 1,
                             "percent of sectors below their 50-day average") if share is not None else None
    data = {
        "composite": figures["composite"], "level": level, "warning": bool(composite >= WARN),
        "composite_percentile": figures["composite_percentile"],
        "components": components,
        "components_used": figures["components_used"],
        "sectors_below_sma50_pct": below,
        "sector_distance_to_sma50_pct": distances,
        "curve_2s10s_bp": envelope.level(frames, CURVE, 0, scale=100.0, op="T10Y2Y in bp")
        if frames.get(CURVE) is not None else None,
        "thresholds": {"warning": envelope.constant(WARN, RULE_THRESHOLD),
                       "severe": envelope.constant(SEVERE, RULE_THRESHOLD),
                       "crash_fall_pct": envelope.constant(CRASH_PCT, RULE_THRESHOLD),
                       "crash_window_sessions": envelope.constant(CRASH_SESSIONS, RULE_THRESHOLD)},
        "history_start": iso_day(grid[np.isfinite(hist)][0]) if len(finite) else None,
    }
    unavailable = {k: "input missing or too short" for k in COMPONENTS if k not in now}
    spx = frames.get(SPX)
    record = None
    if spx is not None and cal[0] == SPX:
        with provenance.about(frames, *every, SPX):
            record = backtest(hist, values(spx), grid, composite)
    if record is not None:
        data["backtest"] = record
    else:
        unavailable["backtest"] = "needs the S&P 500 and a year of composite history with known 3-month outcomes"

    hit = record["hit_rate_pct"] if record else None
    if composite >= WARN:
        direction, urgency = "bearish", "critical" if composite >= SEVERE else "high"
    elif composite >= WARN / 2:
        direction, urgency = "bearish", "medium"
    elif composite <= -WARN / 2:
        direction, urgency = "bullish", "low"
    else:
        direction, urgency = "neutral", "low"
    skill = (hit or 0) / 100 if composite >= WARN / 2 else 1 - (record["base_rate_pct"] / 100 if record else 0.5)
    confidence = envelope.degrade(
        (0.25 + 0.25 * min(1.0, abs(composite) / 2) + 0.3 * skill) * (0.7 + 0.3 * len(now) / 4), sources,
        essential=[VIX, HY])
    reason = f"crash composite {data['composite']} ({level}) from {len(now)} components"
    if hit is not None and composite >= WARN:
        reason += f"; past warnings were followed by a 10% fall {hit}% of the time"
    signals = [envelope.signal("crash_warning", direction, confidence, urgency, reason)]

    parts = [f"{k.replace('_', ' ')} {v['value']}" for k, v in data["components"].items()]
    summary = (f"The crash-warning composite reads {data['composite']} ({level}; warning at {WARN:g}), at the "
               f"{fig(data['composite_percentile'])} percentile of its history. Components: {'; '.join(parts)}.")
    if record:
        summary += (f" Back-test since {record['sample_start']} over {record['tested_days']} days: warnings were "
                    f"followed by an S&P 500 fall of {abs(CRASH_PCT):g}% or more within three months "
                    f"{fig(record['hit_rate_pct'])}% of the time (false alarms {fig(record['false_alarm_rate_pct'])}%, "
                    f"base rate {record['base_rate_pct']}%), and {record['crash_episodes_warned']} of "
                    f"{record['crash_episodes']} crash episodes had a warning.")
    if unavailable:
        summary += " Not available: " + ", ".join(sorted(unavailable)).replace("_", " ") + "."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("tail_risk", "expected shortfall and jump risk of the S&P 500"),
                              ("market_breadth", "sector breadth in detail"),
                              ("credit_stress", "the credit side of the warning"),
                              ("vix", "the volatility component"),
                              ("regime_transition", "odds of a move into crisis"),
                              ("equity_drawdown", "how deep the current drawdown already is")),
                          methodology="Composite = mean of the available components, each clipped to -3..+3: VIX and "
                                      "high-yield spread z-scores against their past 252 sessions, breadth weakness "
                                      "((share of sectors below their 50-day average - 50%) / 25%) and curve inversion "
                                      "(minus 2s10s / 0.5 point). A warning is a composite of 1 or more. Back-test: "
                                      "every past day with a composite and a known outcome counts; a crash follows "
                                      "when the S&P 500 closes 10% or more below that day's close within 63 sessions. "
                                      "Hit rate = warning days followed by a crash / warning days; false alarms are "
                                      "the rest; episodes are runs of consecutive crash-labelled or warning days.")


register(Module(name=NAME, category="regime", tier="P", inputs=INPUTS,
                description="Crash-warning composite with back-tested hit rate and false alarms",
                compute=compute, lookback_days=7700))
