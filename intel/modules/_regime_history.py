"""Helpers shared by the regime and signal modules (regime_transition, signal_composite, crash_risk): a daily
calendar, series on it, forward returns, rolling statistics, and a vectorised daily version of the scored
regime rules of intel/regime.py. Registers nothing (underscore file)."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.indicators import asof, day_numbers

STATES = ("risk_on", "neutral", "risk_off", "crisis")  # as intel.regime, least to most stressed
SPX, VIX, HY = "SP500", "VIXCLS", "BAMLH0A0HYM2"
MIN_SPX_OBS = 260  # a 200-day average plus some history before the S&P 500 rules can be used
DAILY_RULES = ("Simplified daily version of the live regime rules (intel/regime.py), using only the S&P 500, "
               "VIX and high-yield spread: S&P 500 distance to its 200-day average (below -15% crisis 1, "
               "below -2% risk_off 1, within 2% neutral 0.5, else risk_on 1); S&P 500 drawdown from its "
               "252-session high (-20% or worse crisis 1, -10% risk_off 1, -5% neutral 0.5, else risk_on 0.5); "
               "VIX (40+ crisis 2, 30+ risk_off 1.5, 20+ risk_off 1, 15+ neutral 1, else risk_on 1); high-yield "
               "OAS (7%+ crisis 1.5, 5%+ risk_off 1, 3.5%+ neutral 1, else risk_on 1) and its change since 30 "
               "days earlier (over 100 bp crisis 1, over 40 bp risk_off 0.5, below -25 bp risk_on 0.5). Each day "
               "takes the state with most points (ties go to neutral). The live regime also scores the VIX "
               "percentile, the 2s10s curve, the dollar and the shock facts (the VIX against its 20-close "
               "average, the spread's 1-week change), which this history leaves out.")


def values(frame: pl.DataFrame) -> np.ndarray:
    return frame["value"].to_numpy().astype(float)


def calendar(frames: Frames, priority) -> tuple[str, np.ndarray] | None:
    """(series id, day numbers) of the first series in `priority` that is present."""
    for sid in priority:
        frame = frames.get(sid)
        if frame is not None:
            return sid, day_numbers(frame)
    return None


def on_grid(frames: Frames, sid: str, grid: np.ndarray, max_gap: int = 10) -> np.ndarray | None:
    frame = frames.get(sid)
    return None if frame is None else asof(grid, day_numbers(frame), values(frame), max_gap)


def rolling_max(x: np.ndarray, n: int) -> np.ndarray:
    """Maximum of each trailing window of up to n points (expanding before n)."""
    x = np.asarray(x, dtype=float)
    if len(x) < n:
        return np.maximum.accumulate(x)
    head = np.maximum.accumulate(x[: n - 1])
    tail = np.lib.stride_tricks.sliding_window_view(x, n).max(axis=1)
    return np.concatenate([head, tail])


def rolling_z(x: np.ndarray, n: int, min_obs: int | None = None) -> np.ndarray:
    """(x - mean) / sample std over each trailing window of n points that holds at least `min_obs` finite
    values (NaN otherwise); the window includes today."""
    x = np.asarray(x, dtype=float)
    min_obs = n if min_obs is None else min_obs
    ok = np.isfinite(x)
    filled = np.where(ok, x, 0.0)
    c1 = np.concatenate([[0.0], np.cumsum(filled)])
    c2 = np.concatenate([[0.0], np.cumsum(filled ** 2)])
    cn = np.concatenate([[0], np.cumsum(ok)])
    idx = np.arange(1, len(x) + 1)
    lo = np.clip(idx - n, 0, None)
    cnt = cn[idx] - cn[lo]
    s1, s2 = c1[idx] - c1[lo], c2[idx] - c2[lo]
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = s1 / cnt
        var = (s2 - cnt * mean ** 2) / (cnt - 1)
        z = (x - mean) / np.sqrt(np.where(var > 1e-12, var, np.nan))
    return np.where((cnt >= min_obs) & ok, z, np.nan)


def forward_return(close: np.ndarray, h: int) -> np.ndarray:
    """close[t+h]/close[t] - 1, NaN for the last h points (never reaches past the data)."""
    out = np.full(len(close), np.nan)
    if len(close) > h:
        out[:-h] = close[h:] / close[:-h] - 1
    return out


def forward_min_return(close: np.ndarray, h: int) -> np.ndarray:
    """min(close[t+1..t+h])/close[t] - 1: the deepest fall within the next h sessions (NaN for the last h)."""
    out = np.full(len(close), np.nan)
    if len(close) > h:
        later = np.lib.stride_tricks.sliding_window_view(close[1:], h).min(axis=1)
        out[: len(later)] = later / close[: len(later)] - 1
    return out


def _band(points: np.ndarray, x: np.ndarray, bands) -> None:
    """Add each day's points for the first band whose test holds (NaN facts add nothing)."""
    free = np.isfinite(x)
    for test, state, pts in bands:
        hit = free & test(np.where(free, x, 0.0))
        points[hit, STATES.index(state)] += pts
        free &= ~hit


def daily_regime(frames: Frames) -> dict | None:
    """Daily regime codes (0..3 in STATES order) on the S&P 500 calendar (VIX or HY when it is missing).
    Returns days, codes, the facts and the inputs used; None when no day can be classified."""
    spx = frames.get(SPX)
    use_spx = spx is not None and spx.height >= MIN_SPX_OBS
    hy_frame = frames.get(HY)
    use_hy = hy_frame is not None and hy_frame.height >= 22
    use_vix = frames.get(VIX) is not None
    cal = calendar(frames, [s for s, ok in ((SPX, use_spx), (VIX, use_vix), (HY, use_hy)) if ok])
    if cal is None:
        return None
    grid = cal[1]
    facts = {}
    if use_spx:
        sdays, close = day_numbers(spx), values(spx)
        dist = (close / indicators.sma(close, 200) - 1) * 100
        dd = (close / rolling_max(close, 252) - 1) * 100
        dd[:199] = np.nan  # the same warm-up as the 200-day average
        facts["sp500_vs_sma200_pct"] = asof(grid, sdays, dist)
        facts["sp500_drawdown_252d_pct"] = asof(grid, sdays, dd)
    if use_vix:
        facts["vix"] = on_grid(frames, VIX, grid)
    if use_hy:
        hdays, hy = day_numbers(hy_frame), values(hy_frame)
        facts["hy_oas_pct"] = asof(grid, hdays, hy)
        month_ago = asof(hdays - 30, hdays, hy, max_gap=10)
        chg = (hy - month_ago) * 100
        chg[hdays - 30 < hdays[0]] = np.nan
        facts["hy_oas_change_1m_bp"] = asof(grid, hdays, chg)
    n = len(grid)
    pts = np.zeros((n, 4))
    rules = {
        "sp500_vs_sma200_pct": [(lambda d: d < -15, "crisis", 1.0), (lambda d: d < -2, "risk_off", 1.0),
                                (lambda d: d <= 2, "neutral", 0.5), (lambda d: d == d, "risk_on", 1.0)],
        "sp500_drawdown_252d_pct": [(lambda d: d <= -20, "crisis", 1.0), (lambda d: d <= -10, "risk_off", 1.0),
                                    (lambda d: d <= -5, "neutral", 0.5), (lambda d: d == d, "risk_on", 0.5)],
        "vix": [(lambda v: v >= 40, "crisis", 2.0), (lambda v: v >= 30, "risk_off", 1.5),
                (lambda v: v >= 20, "risk_off", 1.0), (lambda v: v >= 15, "neutral", 1.0),
                (lambda v: v == v, "risk_on", 1.0)],
        "hy_oas_pct": [(lambda h: h >= 7, "crisis", 1.5), (lambda h: h >= 5, "risk_off", 1.0),
                       (lambda h: h >= 3.5, "neutral", 1.0), (lambda h: h == h, "risk_on", 1.0)],
        "hy_oas_change_1m_bp": [(lambda c: c > 100, "crisis", 1.0), (lambda c: c > 40, "risk_off", 0.5),
                                (lambda c: c < -25, "risk_on", 0.5)],
    }
    for key, x in facts.items():
        _band(pts, x, rules[key])
    # classify only days on which every fact in use is known (no half-informed early history)
    known = np.all(np.vstack([np.isfinite(x) for x in facts.values()]), axis=0)
    if not known.any():
        return None
    first = int(np.argmax(known))
    keep = np.arange(n) >= first
    pts[:, 1] += 1e-9  # ties resolve to neutral, as in the live classifier
    codes = np.argmax(pts, axis=1)
    return {"days": grid[keep], "codes": codes[keep], "known": known[keep],
            "facts": {k: v[keep] for k, v in facts.items()},
            "inputs_used": [s for s, ok in ((SPX, use_spx), (VIX, use_vix), (HY, use_hy)) if ok]}


def observation_asof(frames: Frames, sid: str, day: int, max_gap: int | None = 10) -> tuple | None:
    """(series, date, value) of the observation `asof` reads for `day` (None when it reads none)."""
    frame = frames.get(sid)
    if frame is None:
        return None
    days = day_numbers(frame)
    i = int(np.searchsorted(days, day, side="right")) - 1
    if i < 0 or (max_gap is not None and day - days[i] > max_gap):
        return None
    return sid, frame["date"][i], float(frame["value"][i])


FACT_OPS = {"sp500_vs_sma200_pct": "percent distance of the S&P 500 from its 200-day average",
            "sp500_drawdown_252d_pct": "percent S&P 500 drawdown from its 252-session high"}


def facts_today(frames: Frames, history: dict) -> dict:
    """The last classified day's facts, rounded to 2: VIX and the high-yield spread as the observations the rules
    read that day (its month change as the difference of two of them), the S&P 500 facts named as such."""
    day = int(history["days"][-1])
    out = {}
    for key, values_ in history["facts"].items():
        value = float(values_[-1])
        if not np.isfinite(value):
            out[key] = None
        elif key == "vix":
            out[key] = envelope.observed_level(observation_asof(frames, VIX, day), 2, "VIX on the last classified day")
        elif key == "hy_oas_pct":
            out[key] = envelope.observed_level(observation_asof(frames, HY, day), 2,
                                               "HY OAS on the last classified day")
        elif key == "hy_oas_change_1m_bp":
            now = observation_asof(frames, HY, day)
            then = observation_asof(frames, HY, int(np.datetime64(now[1], "D").astype(np.int64)) - 30)
            out[key] = envelope.difference(now, then, 2, op="HY OAS change since 30 days earlier, bp")
        else:
            with provenance.about(frames, SPX):
                out[key] = envelope.rnd(value, 2, FACT_OPS[key])
    return out
