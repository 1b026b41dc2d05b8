"""equity_drawdown: S&P 500 and Nasdaq drawdown from their high, days since the high, and how long past
drawdowns of the same depth took to recover, from the history available."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig
from intel.registry import Module, register

NAME = "equity_drawdown"
INDICES = {"SP500": "S&P 500", "NASDAQCOM": "Nasdaq Composite"}
# "similar depth": past troughs between 2/3 and 3/2 of today's drawdown (e.g. -6.7% to -15% for -10%)
BAND_LOW, BAND_HIGH = 2 / 3, 3 / 2


def drawdown_episodes(close: np.ndarray) -> dict[str, np.ndarray]:
    """Runs of closes below the running maximum. For each episode: `start` (first index underwater, the
    peak is start-1), `end` (first index back at or above the peak, or -1 while still underwater) and
    `depth` (its deepest drawdown, a negative fraction)."""
    close = np.asarray(close, dtype=np.float64)
    dd = close / np.maximum.accumulate(close) - 1.0
    under = dd < 0
    edges = np.diff(np.concatenate([[False], under, [False]]).astype(np.int8))
    starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)  # stop: first index back up
    if not len(starts):
        empty = np.empty(0, dtype=np.int64)
        return {"start": empty, "end": empty, "depth": np.empty(0), "dd": dd}
    depth = np.minimum.reduceat(dd, starts)
    # reduceat runs to the next start, which includes the recovered stretch (dd 0): the min is unaffected
    end = np.where(stops < len(close), stops, -1)
    return {"start": starts, "end": end, "depth": depth, "dd": dd}


def _stats(days: np.ndarray, prefix: str, what: str) -> dict:
    """Median, mean and longest of `days` (`what` they measure, for each figure's operation)."""
    if not len(days):
        return {f"{prefix}_median": None, f"{prefix}_mean": None, f"{prefix}_max": None}
    return {f"{prefix}_median": envelope.rnd(np.median(days), 1, f"median of the {what}"),
            f"{prefix}_mean": envelope.rnd(days.mean(), 1, f"mean of the {what}"),
            f"{prefix}_max": envelope.count(days.max(), f"maximum of the {what}")}


def recovery_block(close: np.ndarray, days: np.ndarray, ep: dict, current: float) -> dict:
    """Past (recovered) episodes, excluding the one in progress, measured two ways against today's depth."""
    dd, start, end, depth = ep["dd"], ep["start"], ep["end"], ep["depth"]
    done = end >= 0
    # 1) episodes that reached today's depth: time from first reaching it to the next high
    reached = done & (depth <= current)
    hits = np.flatnonzero(dd <= current)
    cross = hits[np.searchsorted(hits, start[reached])] if reached.any() else np.empty(0, dtype=np.int64)
    recov = end[reached]
    past = "of the past recovered drawdowns that reached today's depth"
    out = {"reached_this_depth": {
        "episodes": envelope.count(reached.sum(), f"count {past}"),
        **_stats(recov - cross, "trading_days_to_recovery",
                 f"trading days from first reaching today's depth to the new high, {past}"),
        "calendar_days_to_recovery_median": envelope.rnd(np.median(days[recov] - days[cross]), 1,
                                                         "median calendar days from first reaching today's depth to "
                                                         f"the new high, {past}") if len(cross) else None,
        "trough_pct_median": envelope.rnd(np.median(depth[reached]) * 100, 2, f"median trough, percent, {past}")
        if reached.any() else None,
        "trough_pct_deepest": envelope.rnd(depth[reached].min() * 100, 2, f"deepest trough, percent, {past}")
        if reached.any() else None}}
    # 2) episodes whose trough was of similar depth: peak-to-trough and trough-to-recovery
    similar = done & (depth <= current * BAND_LOW) & (depth >= current * BAND_HIGH)
    idx = np.flatnonzero(similar)
    troughs = np.array([s + int(np.argmin(dd[s:e])) for s, e in zip(start[idx], end[idx])], dtype=np.int64)
    peaks = start[idx] - 1
    similar_past = "of the past recovered drawdowns whose trough lies in the band"
    out["similar_trough_depth"] = {
        "trough_band_pct": [envelope.rnd(current * BAND_HIGH * 100, 2, "deep end of the band: 3/2 of today's drawdown"),
                            envelope.rnd(current * BAND_LOW * 100, 2,
                                         "shallow end of the band: 2/3 of today's drawdown")],
        "episodes": envelope.count(len(idx), f"count {similar_past}"),
        **_stats(troughs - peaks, "trading_days_peak_to_trough", f"trading days from peak to trough, {similar_past}"),
        **_stats(end[idx] - troughs, "trading_days_trough_to_recovery",
                 f"trading days from trough to the new high, {similar_past}"),
        **_stats(end[idx] - peaks, "trading_days_peak_to_recovery",
                 f"trading days from peak to the new high, {similar_past}")}
    return out


def _index(frames: Frames, sid: str) -> tuple[dict, dict]:
    frame = frames.get(sid)
    close = frame["value"].to_numpy()
    dates = frame["date"]
    days = dates.to_numpy().astype("datetime64[D]").astype(np.int64)
    ep = drawdown_episodes(close)
    peak = int(np.argmax(close))  # first close at the highest level in the history
    current = float(ep["dd"][-1])
    ongoing = len(ep["end"]) and ep["end"][-1] == -1
    year = indicators.window(frame, 365)
    # the drawdowns against one high are percent changes of two named closes (dd is close / high - 1)
    last, high = envelope.last_obs(frame, sid), envelope.nth_obs(frame, sid, peak)
    out = {"level": envelope.level(frames, sid, 2, op="latest close"), "date": dates[-1].isoformat(),
           "history_start": dates[0].isoformat(),
           "high": envelope.observed_level(high, 2, "highest close in the history used"),
           "high_date": dates[peak].isoformat(),
           "drawdown_from_high_pct": envelope.pct_change(last, high, 2,
                                                         "percent change from the highest close to the latest"),
           "drawdown_from_52w_high_pct": envelope.pct_change(
               last, envelope.nth_obs(year, sid, int(np.argmax(year["value"].to_numpy()))), 2,
               "percent change from the highest close of the past 52 weeks to the latest")}
    with provenance.about(frames, sid):
        out.update({
            "days_since_high": envelope.count(days[-1] - days[peak], "calendar days since the highest close"),
            "trading_days_since_high": envelope.count(len(close) - 1 - peak, "closes since the highest close"),
            "max_drawdown_pct": envelope.rnd(ep["dd"].min() * 100, 2, "deepest drawdown in the history used, percent"),
            "episodes_in_history": envelope.count(len(ep["start"]) - (1 if ongoing else 0),
                                                  "count of completed drawdown episodes in the history used")})
    # keys in their former order
    out = {k: out[k] for k in ("level", "date", "history_start", "high", "high_date", "drawdown_from_high_pct",
                               "days_since_high", "trading_days_since_high", "drawdown_from_52w_high_pct",
                               "max_drawdown_pct", "episodes_in_history")}
    unavailable = {}
    if ongoing:
        s = int(ep["start"][-1])
        low = s + int(np.argmin(ep["dd"][s:]))
        # the episode's peak is the close before its first close underwater
        trough = envelope.nth_obs(frame, sid, low)
        out["current_episode"] = {
            "low_pct": envelope.pct_change(trough, envelope.nth_obs(frame, sid, s - 1), 2,
                                           "percent change from the episode's peak close to its lowest close"),
            "low_date": dates[low].isoformat(),
            "rebound_from_low_pct": envelope.pct_change(last, trough, 2,
                                                        "percent change from the episode's lowest close to the latest")}
        with provenance.about(frames, sid):
            out["recovery"] = recovery_block(close, days, ep, current)
    else:
        unavailable["recovery"] = "the index closed at its high: there is no drawdown to recover from"
    return out, unavailable


def _below(dd: float, days_since: float) -> str:
    """'12.3% below' (what precedes 'its high'); no '0.0% below' on a drawdown that rounds to zero."""
    if dd:
        return f"{abs(dd)}% below"
    return "at" if not days_since else "fractionally below"


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INDICES)
    sources = envelope.data_sources(frames, INDICES)
    data, unavailable = {}, {}
    for sid in INDICES:
        if frames.get(sid) is not None:
            data[sid], missing = _index(frames, sid)
            unavailable.update({f"{sid}.{k}": v for k, v in missing.items()})
    signals, sentences = [], []
    for sid, d in data.items():
        label, dd = INDICES[sid], d["drawdown_from_high_pct"]
        if dd <= -20:
            direction, urgency = "bearish", "critical" if dd <= -35 else "high"
        elif dd <= -10:
            direction, urgency = "bearish", "medium"
        elif dd <= -5:
            direction, urgency = "neutral", "low"
        else:
            direction, urgency = "bullish", "low"
        reach = d.get("recovery", {}).get("reached_this_depth", {})
        n = reach.get("episodes") or 0
        confidence = 0.45 + min(0.3, abs(dd) / 60) + (0.1 if n >= 5 else 0.0)
        signals.append(envelope.signal(f"{sid.lower()}_drawdown", direction,
                                       envelope.degrade(confidence, sources, essential=[sid]), urgency,
                                       f"{label} {_below(dd, d['days_since_high'])} its high of {d['high_date']}, "
                                       f"{fig(d['days_since_high'])} days ago"))
        text = (f"The {label} is {_below(dd, d['days_since_high'])} its high of {d['high']} set on {d['high_date']} "
                f"({fig(d['days_since_high'])} calendar days ago); the deepest drawdown since "
                f"{d['history_start']} was {d['max_drawdown_pct']}%.")
        if "recovery" in d and not n:
            text += (f" None of the {fig(d['episodes_in_history'])} earlier drawdowns in that history reached "
                     f"this depth, so it offers no recovery time for it.")
        elif "recovery" in d:
            sim = d["recovery"]["similar_trough_depth"]
            text += (f" Of the {fig(d['episodes_in_history'])} earlier drawdowns in that history, {fig(n)} "
                     f"reached this depth; from that point they took a median of "
                     f"{fig(reach['trading_days_to_recovery_median'])} trading days (longest "
                     f"{fig(reach['trading_days_to_recovery_max'])}) to regain their high, and their median "
                     f"trough was {fig(reach['trough_pct_median'], '%')}." +
                     (f" {fig(sim['episodes'])} past drawdowns bottomed at a similar depth; their median "
                      f"peak-to-recovery took {sim['trading_days_peak_to_recovery_median']} trading days."
                      if sim["episodes"] else " None bottomed at a similar depth."))
        else:
            text += " It closed at that high, so no recovery is pending."
        sentences.append(text)
    summary = " ".join(sentences) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("equity_indices", "levels, returns and trend of the same indices"),
                              ("equity_volatility", "the volatility regime the drawdown sits in"),
                              ("tail_risk", "expected shortfall and jump risk"),
                              ("risk_dashboard", "the drawdown beside volatility, credit and liquidity gauges"),
                              ("market_regime", "the cross-asset regime")),
                          methodology="Drawdown is the close against the running maximum of the closes available "
                                      "(history_start onward, so episodes that began earlier are cut). An episode runs "
                                      "from the first close below a high to the first close back at or above it. "
                                      "Recovery times use only past, recovered episodes: those that reached today's "
                                      "depth, counted from the first close at that depth to the new high; and those "
                                      "whose trough lies within 2/3 to 3/2 of today's depth (trough_band_pct).",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="equities", tier="S", inputs=tuple(INDICES),
                description="Drawdown from high, days since high, recovery times from similar drawdowns",
                compute=compute, lookback_days=7700))
