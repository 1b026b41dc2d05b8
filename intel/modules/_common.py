"""Pieces several modules share: horizon returns, trend against moving averages, crosses, drawdowns."""
from __future__ import annotations

from datetime import timedelta

import numpy as np
import polars as pl

from intel import indicators as ind
from intel.envelope import rnd

# calendar days per horizon: lookups take the last observation on or before now minus this many days
HORIZONS = {"1d": None, "1w": 7, "1m": 30, "3m": 91, "6m": 182, "1y": 365}


def horizon_returns(frame: pl.DataFrame, horizons=("1d", "1w", "1m", "3m", "6m", "1y"), ytd: bool = True,
                    kind: str = "pct", digits: int = 2) -> dict:
    """{"change_1d_pct": ..., ...}: 1d is against the previous observation; the rest by calendar."""
    unit = {"pct": "pct", "bp": "bp", "diff": "pts"}[kind]
    values = frame["value"]
    out = {}
    for h in horizons:
        if h == "1d":
            if frame.height < 2:
                change = None
            elif kind == "pct":
                change = (values[-1] / values[-2] - 1) * 100
            else:
                change = (values[-1] - values[-2]) * (100 if kind == "bp" else 1)
        else:
            change = ind.change_since(frame, HORIZONS[h], kind)
            if frame["date"][-1] - timedelta(days=HORIZONS[h]) < frame["date"][0]:
                change = None  # history too short for this horizon
        out[f"change_{h}_{unit}"] = rnd(change, digits)
    if ytd:
        out[f"change_ytd_{unit}"] = rnd(ind.ytd_change_pct(frame), digits) if kind == "pct" else None
    return out


def last_crosses(dates: pl.Series, fast: np.ndarray, slow: np.ndarray) -> tuple[str | None, str | None]:
    """Dates of the last golden cross (fast rises above slow) and last death cross (falls below)."""
    diff = fast - slow
    ok = np.isfinite(diff)
    above = diff > 0
    idx = np.flatnonzero(ok[1:] & ok[:-1] & (above[1:] != above[:-1])) + 1
    golden = [i for i in idx if above[i]]
    death = [i for i in idx if not above[i]]
    as_iso = lambda found: dates[int(found[-1])].isoformat() if found else None  # noqa: E731
    return as_iso(golden), as_iso(death)


def trend_profile(frame: pl.DataFrame, fast: int = 50, slow: int = 200) -> dict:
    """Level vs its fast/slow moving averages (in observations), trend state and cross dates."""
    close = frame["value"].to_numpy()
    sma_fast, sma_slow = ind.sma(close, fast), ind.sma(close, slow)
    last, f, s = close[-1], sma_fast[-1], sma_slow[-1]
    golden, death = last_crosses(frame["date"], sma_fast, sma_slow)
    if np.isfinite(f) and np.isfinite(s):
        state = "uptrend" if last > f > s else "downtrend" if last < f < s else "mixed"
    else:
        state = "insufficient_history"
    return {f"sma_{fast}": rnd(f, 2), f"sma_{slow}": rnd(s, 2),
            f"distance_to_sma{fast}_pct": rnd((last / f - 1) * 100, 2) if np.isfinite(f) else None,
            f"distance_to_sma{slow}_pct": rnd((last / s - 1) * 100, 2) if np.isfinite(s) else None,
            "trend_state": state, "last_golden_cross": golden, "last_death_cross": death}


def drawdown_profile(frame: pl.DataFrame) -> dict:
    """Drawdown from the highest close in the frame, the high's date and days since."""
    close = frame["value"].to_numpy()
    peak = int(np.argmax(close))
    high_date = frame["date"][peak]
    return {"high": rnd(close[peak], 2), "high_date": high_date.isoformat(),
            "drawdown_from_high_pct": rnd((close[-1] / close[peak] - 1) * 100, 2),
            "days_since_high": (frame["date"][-1] - high_date).days,
            "max_drawdown_pct": rnd(float(ind.drawdown(close).min()) * 100, 2)}


def pct_word(x) -> str:
    """'up 1.23%' / 'down 1.23%' from a rounded figure (the figure itself stays in data)."""
    if x is None:
        return "unchanged (no comparison available)"
    return "flat" if x == 0 else f"{'up' if x > 0 else 'down'} {abs(x)}%"


def fig(x, unit: str = "") -> str:
    """A figure for a summary sentence ('n/a' when missing), always a value that is also in data."""
    return "n/a" if x is None else f"{x}{unit}"
