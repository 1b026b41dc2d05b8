"""Technical and statistical indicators on numpy arrays (NaN marks the warm-up), plus point-in-time
lookups on `date, value` frames. Conventions follow the usual definitions (checked against `ta`)."""
from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import polars as pl


def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def sma(x, n: int) -> np.ndarray:
    x = _arr(x)
    out = np.full(len(x), np.nan)
    if len(x) >= n:
        csum = np.cumsum(np.insert(x, 0, 0.0))
        out[n - 1:] = (csum[n:] - csum[:-n]) / n
    return out


def _recursive(x: np.ndarray, alpha: float, n: int) -> np.ndarray:
    """y_t = alpha*x_t + (1-alpha)*y_{t-1}, seeded with the first finite value; NaN until n values seen."""
    out = np.full(len(x), np.nan)
    finite = np.flatnonzero(np.isfinite(x))
    if not len(finite):
        return out
    start = finite[0]
    prev, keep = x[start], 1.0 - alpha
    values = out.copy()
    values[start] = prev
    for i in range(start + 1, len(x)):
        prev = alpha * x[i] + keep * prev
        values[i] = prev
    out[start + n - 1:] = values[start + n - 1:]
    return out


def ema(x, n: int) -> np.ndarray:
    """Exponential average with alpha 2/(n+1), seeded at the first value (as `ta` and pandas adjust=False)."""
    return _recursive(_arr(x), 2.0 / (n + 1), n)


def wilder(x, n: int) -> np.ndarray:
    """Wilder smoothing: seeded with the mean of the first n values, then y = (y*(n-1) + x)/n."""
    x = _arr(x)
    out = np.full(len(x), np.nan)
    if len(x) < n:
        return out
    prev = float(np.mean(x[:n]))
    out[n - 1] = prev
    for i in range(n, len(x)):
        prev = (prev * (n - 1) + x[i]) / n
        out[i] = prev
    return out


def rsi(close, n: int = 14) -> np.ndarray:
    """Wilder RSI: average gain/loss seeded with the simple mean of the first n changes."""
    close = _arr(close)
    out = np.full(len(close), np.nan)
    if len(close) <= n:
        return out
    diff = np.diff(close)
    gain, loss = wilder(np.clip(diff, 0, None), n), wilder(np.clip(-diff, 0, None), n)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(loss == 0, 100.0, 100.0 - 100.0 / (1.0 + gain / loss))
    out[1:] = np.where(np.isnan(gain), np.nan, value)
    return out


def macd(close, fast: int = 12, slow: int = 26, signal: int = 9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(macd line, signal line, histogram)."""
    line = ema(close, fast) - ema(close, slow)
    sig = ema(line, signal)
    return line, sig, line - sig


def bollinger(close, n: int = 20, k: float = 2.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(middle, upper, lower) with the population standard deviation, as Bollinger defined it."""
    close = _arr(close)
    mid = sma(close, n)
    std = np.full(len(close), np.nan)
    if len(close) >= n:
        windows = np.lib.stride_tricks.sliding_window_view(close, n)
        std[n - 1:] = windows.std(axis=1)
    return mid, mid + k * std, mid - k * std


def true_range(high, low, close) -> np.ndarray:
    high, low, close = _arr(high), _arr(low), _arr(close)
    prev = np.concatenate([[np.nan], close[:-1]])
    ranges = np.vstack([high - low, np.abs(high - prev), np.abs(low - prev)])
    return np.nanmax(ranges, axis=0)  # first bar: high - low


def atr(high, low, close, n: int = 14) -> np.ndarray:
    return wilder(true_range(high, low, close), n)


def adx(high, low, close, n: int = 14) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Wilder's (ADX, +DI, -DI). Sums of the first n moves seed the smoothing; ADX starts at bar 2n-1."""
    high, low, close = _arr(high), _arr(low), _arr(close)
    size = len(close)
    adx_out, pdi, ndi = (np.full(size, np.nan) for _ in range(3))
    if size < 2 * n + 1:
        return adx_out, pdi, ndi
    up, down = high[1:] - high[:-1], low[:-1] - low[1:]
    plus = np.where((up > down) & (up > 0), up, 0.0)
    minus = np.where((down > up) & (down > 0), down, 0.0)
    tr = true_range(high, low, close)[1:]
    # Wilder sums: S_n = sum of first n; S_t = S_{t-1} - S_{t-1}/n + x_t  (== n * wilder average)
    s_tr, s_plus, s_minus = (wilder(v, n) * n for v in (tr, plus, minus))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(s_tr > 0, 100 * s_plus / s_tr, 0.0)
        m = np.where(s_tr > 0, 100 * s_minus / s_tr, 0.0)
        dx = np.where(p + m > 0, 100 * np.abs(p - m) / (p + m), 0.0)
    valid = ~np.isnan(s_tr)
    pdi[1:][valid], ndi[1:][valid] = p[valid], m[valid]
    smoothed = wilder(dx[n - 1:], n)
    adx_out[n:] = smoothed
    return adx_out, pdi, ndi


def log_returns(x) -> np.ndarray:
    x = _arr(x)
    return np.diff(np.log(x))


def realized_vol(x, n: int, periods_per_year: int = 252) -> float | None:
    """Annualized standard deviation (ddof 1) of the last n log returns, in percent."""
    rets = log_returns(x)
    if len(rets) < n or n < 2:
        return None
    return float(np.std(rets[-n:], ddof=1) * math.sqrt(periods_per_year) * 100)


def percentile_rank(history, value: float) -> float | None:
    """Share of the history at or below `value`, in percent."""
    history = _arr(history)
    history = history[np.isfinite(history)]
    if not len(history):
        return None
    return float(np.count_nonzero(history <= value) / len(history) * 100)


def zscore(history, value: float) -> float | None:
    history = _arr(history)
    if len(history) < 2:
        return None
    std = float(np.std(history, ddof=1))
    return None if std == 0 else (value - float(np.mean(history))) / std


def drawdown(x) -> np.ndarray:
    """Fractional distance below the running maximum (0 at new highs, negative below)."""
    x = _arr(x)
    return x / np.maximum.accumulate(x) - 1.0


def period_return(x, n: int) -> float | None:
    """Fractional return over the last n periods."""
    x = _arr(x)
    if len(x) <= n:
        return None
    return float(x[-1] / x[-1 - n] - 1.0)


# ---- point-in-time lookups on `date, value` frames (dates ascending) ----

def value_on_or_before(frame: pl.DataFrame, day: date) -> tuple[date, float] | None:
    dates = frame["date"]
    idx = dates.search_sorted(day, side="right") - 1
    if idx < 0:
        return None
    return dates[idx], float(frame["value"][idx])


def change_since(frame: pl.DataFrame, days: int, kind: str = "pct") -> float | None:
    """Change of the last value against the value on or before `days` calendar days earlier:
    `pct` in percent, `bp` in basis points of a percent-quoted series, `diff` in the series' units."""
    last_date, last = frame["date"][-1], float(frame["value"][-1])
    base = value_on_or_before(frame, last_date - timedelta(days=days))
    if base is None or (kind == "pct" and base[1] == 0):
        return None
    if kind == "pct":
        return (last / base[1] - 1.0) * 100
    return (last - base[1]) * (100 if kind == "bp" else 1)


def ytd_change_pct(frame: pl.DataFrame) -> float | None:
    last_date = frame["date"][-1]
    base = value_on_or_before(frame, date(last_date.year - 1, 12, 31))
    return None if base is None else (float(frame["value"][-1]) / base[1] - 1.0) * 100


def window(frame: pl.DataFrame, days: int) -> pl.DataFrame:
    """Observations within `days` calendar days up to the last one."""
    return frame.filter(pl.col("date") > frame["date"][-1] - timedelta(days=days))
