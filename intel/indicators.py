"""Technical and statistical indicators on numpy arrays (NaN marks the warm-up), calendar-day lookups on
arrays of days, and point-in-time lookups and changes on `date, value` frames. Conventions follow the usual
definitions (checked against `ta`). The numeric helpers shared by the modules live here, once."""
from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import polars as pl

YEAR_DAYS, DECADE_DAYS = 365, 3653  # calendar-day windows: one year, ten years


def _arr(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def window_sums(x, n: int) -> np.ndarray:
    """Sum of each full trailing window of n values (len(x) - n + 1 of them), from a running sum."""
    c = np.cumsum(np.insert(_arr(x), 0, 0.0))
    return c[n:] - c[:-n]


def rolling_var(x, n: int) -> np.ndarray:
    """Sample variance (ddof 1) of each full trailing window of n values from running sums (len(x) - n + 1
    values, clipped at 0): fast over long histories, though it can differ from a two-pass std in the last digits."""
    x = _arr(x)
    s1, s2 = window_sums(x, n), window_sums(x * x, n)
    return np.maximum((s2 - s1 * s1 / n) / (n - 1), 0.0)


def sma(x, n: int) -> np.ndarray:
    x = _arr(x)
    out = np.full(len(x), np.nan)
    if len(x) >= n:
        out[n - 1:] = window_sums(x, n) / n
    return out


def rolling_mean(values: np.ndarray, n: int, min_count: int) -> np.ndarray:
    """Trailing n-window mean ignoring NaN, NaN where fewer than min_count values are present."""
    out = np.full(len(values), np.nan)
    if len(values) < n:
        return out
    win = np.lib.stride_tricks.sliding_window_view(values, n)
    count = np.isfinite(win).sum(axis=1)
    total = np.where(np.isfinite(win), win, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[n - 1:] = np.where(count >= min_count, total / np.maximum(count, 1), np.nan)
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


def changes(values, kind: str) -> np.ndarray:
    """Changes between consecutive values: `log` returns, `pct` (a fraction) or `diff` (series units)."""
    values = _arr(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "log":
            return np.diff(np.log(values))
        if kind == "pct":
            return values[1:] / values[:-1] - 1.0
        return np.diff(values)


def annualize(std, periods_per_year: int, scale: float = 100.0):
    """A per-period standard deviation scaled by the square root of time (times 100: percent). The period
    count is explicit: 252 trading days for markets that close at weekends, 365 for crypto."""
    return std * math.sqrt(periods_per_year) * scale


def realized_vol(x, n: int, periods_per_year: int = 252) -> float | None:
    """Annualized standard deviation (ddof 1) of the last n log returns, in percent."""
    rets = log_returns(x)
    if len(rets) < n or n < 2:
        return None
    return float(annualize(np.std(rets[-n:], ddof=1), periods_per_year))


def rolling_std(x, n: int) -> np.ndarray:
    """Sample standard deviation (ddof 1) of each trailing window of n values, NaN during warm-up."""
    x = _arr(x)
    out = np.full(len(x), np.nan)
    if n >= 2 and len(x) >= n:
        out[n - 1:] = np.lib.stride_tricks.sliding_window_view(x, n).std(axis=1, ddof=1)
    return out


def pearson(x, y, min_obs: int = 3) -> float | None:
    """Pearson correlation of two equal-length samples; None under min_obs points or when one is flat."""
    if len(x) < min_obs or np.std(x) == 0 or np.std(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


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


def _finite(history) -> np.ndarray:
    history = _arr(history)
    return history[np.isfinite(history)]


def percentile_of(history, value, min_obs: int = 1) -> float | None:
    """percentile_rank of a value that may be missing: None when it is None or not finite, or when the
    history holds fewer than `min_obs` finite values."""
    if value is None or not math.isfinite(value):
        return None
    history = _finite(history)
    return percentile_rank(history, value) if len(history) >= max(min_obs, 1) else None


def zscore_of(history, value, min_obs: int = 2) -> float | None:
    """zscore against the finite values of the history, guarded as percentile_of."""
    if value is None or not math.isfinite(value):
        return None
    history = _finite(history)
    return zscore(history, value) if len(history) >= min_obs else None


def zscore_last(values: np.ndarray) -> float | None:
    """Z-score of the last value (None when it is missing) against the finite values of the array, at least 12."""
    return zscore_of(values, float(values[-1]) if len(values) else None, min_obs=12)


def normal_cdf(x) -> np.ndarray:
    """Standard normal CDF, elementwise (NaN where x is not finite)."""
    x = _arr(x)
    erf = np.vectorize(math.erf, otypes=[float])
    return np.where(np.isfinite(x), 0.5 * (1.0 + erf(np.nan_to_num(x) / math.sqrt(2.0))), np.nan)


def drawdown(x) -> np.ndarray:
    """Fractional distance below the running maximum (0 at new highs, negative below)."""
    x = _arr(x)
    return x / np.maximum.accumulate(x) - 1.0


def period_return(x, n: int, skip: int = 0) -> float | None:
    """Fractional return from n periods back to `skip` periods back (12-1 momentum: n=252, skip=21)."""
    x = _arr(x)
    if len(x) <= n or skip >= n:
        return None
    return float(x[-1 - skip] / x[-1 - n] - 1.0)


def return_pct(x, n: int, skip: int = 0) -> float | None:
    """period_return in percent."""
    r = period_return(x, n, skip)
    return None if r is None else r * 100


def rolling_return_pct(x, n: int, skip: int = 0) -> np.ndarray:
    """The same return at every date where it can be computed (for percentiles against history)."""
    x = _arr(x)
    if len(x) <= n or skip >= n:
        return np.empty(0)
    end = x[n - skip:len(x) - skip] if skip else x[n:]
    return (end / x[:len(x) - n] - 1.0) * 100


def run_start(flags: np.ndarray) -> int | None:
    """Index where the trailing run of True flags began (None when the last flag is False)."""
    if not len(flags) or not flags[-1]:
        return None
    off = np.flatnonzero(~flags)
    return int(off[-1]) + 1 if len(off) else 0


def runs(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start index, length, value) of each run of equal consecutive codes."""
    starts = np.concatenate([[0], np.flatnonzero(codes[1:] != codes[:-1]) + 1])
    lengths = np.diff(np.concatenate([starts, [len(codes)]]))
    return starts, lengths, codes[starts]


def transitions(codes: np.ndarray, step: int, k: int = 4) -> np.ndarray:
    """k x k counts of (state at t, state at t + step observations) for integer codes 0..k-1."""
    if len(codes) <= step:
        return np.zeros((k, k), dtype=np.int64)
    return np.bincount(codes[:-step] * k + codes[step:], minlength=k * k).reshape(k, k)


# ---- calendar-day lookups on day arrays: integer day numbers or datetime64[D] (both subtract whole days) ----

def in_window(days: np.ndarray, calendar_days: int) -> np.ndarray:
    """Mask of the days within `calendar_days` up to the last one (as `window` does for frames)."""
    if not len(days):
        return np.zeros(0, dtype=bool)
    return days > days[-1] - calendar_days


def history_years(days: np.ndarray, calendar_days: int = DECADE_DAYS) -> float | None:
    """Years covered by the part of the window actually available (what a `_10y` figure rests on)."""
    if not len(days):
        return None
    inside = days[in_window(days, calendar_days)]
    return (inside[-1] - inside[0]) / 365.25


def index_days_ago(days: np.ndarray, calendar_days: int, at: int = -1) -> int | None:
    """Index of the last observation on or before days[at] minus `calendar_days` (None before the history)."""
    if not len(days):
        return None
    idx = int(np.searchsorted(days, days[at] - calendar_days, side="right")) - 1
    return idx if idx >= 0 else None


def value_days_ago(days: np.ndarray, values: np.ndarray, calendar_days: int) -> float | None:
    """The value on or before the last day minus `calendar_days` (None when the history is shorter)."""
    idx = index_days_ago(days, calendar_days)
    return None if idx is None else float(values[idx])


def lagged_index(days: np.ndarray, calendar_days: int) -> np.ndarray:
    """For every observation, the index of the last one on or before its day minus `calendar_days` (-1: none)."""
    return np.searchsorted(days, days - calendar_days, side="right") - 1


def asof(grid: np.ndarray, days: np.ndarray, values: np.ndarray, max_gap: int | None = 10) -> np.ndarray:
    """Values of a series on the grid's days: the last observation on or before each day, NaN before the
    series starts or when that observation is more than `max_gap` calendar days old (None: any age)."""
    idx = np.searchsorted(days, grid, side="right") - 1
    out = np.where(idx >= 0, values[np.clip(idx, 0, None)], np.nan)
    if max_gap is None:
        return out
    age = grid - days[np.clip(idx, 0, None)]
    return np.where((idx >= 0) & (age <= max_gap), out, np.nan)


# ---- point-in-time lookups on `date, value` frames (dates ascending) ----

def day_numbers(frame: pl.DataFrame) -> np.ndarray:
    """The frame's dates as integer days since 1970-01-01 (fast comparisons and intersections)."""
    return frame["date"].to_numpy().astype("datetime64[D]").astype(np.int64)


def iso_day(day_number) -> str:
    return str(np.datetime64(int(day_number), "D"))


def dated_changes(frame: pl.DataFrame, kind: str = "log") -> tuple[np.ndarray, np.ndarray]:
    """(day numbers of the later observation, changes between consecutive observations). `log`: log
    returns, dropping any change that touches a non-positive price (WTI printed below zero in 2020);
    `diff`: plain differences."""
    days, values = day_numbers(frame), frame["value"].to_numpy().astype(float)
    if len(values) < 2:
        return days[:0], values[:0]
    if kind == "diff":
        change = np.diff(values)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            change = np.where((values[1:] > 0) & (values[:-1] > 0), np.log(values[1:] / values[:-1]), np.nan)
    ok = np.isfinite(change)
    return days[1:][ok], change[ok]


def common_changes(a: pl.DataFrame, kind_a: str, b: pl.DataFrame, kind_b: str, last: int | None = None,
                   min_dates: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(day numbers, changes of a, changes of b) between consecutive dates BOTH series have: levels are
    aligned first, so bitcoin's Monday change spans Friday to Monday like the S&P 500's. `last`: only the
    last last+1 common dates; None when fewer than `min_dates` remain. Pairs where either change is not
    finite are dropped."""
    common, ia, ib = np.intersect1d(day_numbers(a), day_numbers(b), return_indices=True)
    if last is not None:
        common, ia, ib = common[-last - 1:], ia[-last - 1:], ib[-last - 1:]
    if len(common) < min_dates:
        return None
    x, y = changes(a["value"].to_numpy()[ia], kind_a), changes(b["value"].to_numpy()[ib], kind_b)
    ok = np.isfinite(x) & np.isfinite(y)
    return common[1:][ok], x[ok], y[ok]


def rows_through(frame: pl.DataFrame, day: date) -> int:
    """How many of the frame's rows are dated on or before `day` (a frame's dates ascend). numpy's search on the
    dates: polars' `search_sorted` with a date costs about ten times as much, and the regime history asks for
    every trading day of decades."""
    return int(np.searchsorted(frame["date"].to_numpy(), np.datetime64(day, "D"), side="right"))


def value_on_or_before(frame: pl.DataFrame, day: date) -> tuple[date, float] | None:
    idx = rows_through(frame, day) - 1
    if idx < 0:
        return None
    return frame["date"][idx], float(frame["value"][idx])


def value_days_before(frame: pl.DataFrame, days: int, end: date | None = None) -> float | None:
    """The value on or before `days` calendar days before `end` (default: the last date); None when the
    history does not reach back that far."""
    found = value_on_or_before(frame, (frame["date"][-1] if end is None else end) - timedelta(days=days))
    return None if found is None else found[1]


def change_since(frame: pl.DataFrame, days: int, kind: str = "pct", end: date | None = None) -> float | None:
    """Change of the value on or before `end` (default: the last value) against the value on or before
    `days` calendar days earlier: `pct` in percent, `bp` in basis points of a percent-quoted series, `diff`
    in the series' units. None when the history does not reach back that far."""
    if end is None:
        last = float(frame["value"][-1])
    else:
        found = value_on_or_before(frame, end)
        if found is None:
            return None
        last = found[1]
    base = value_days_before(frame, days, end)
    if base is None or (kind == "pct" and base == 0):
        return None
    if kind == "pct":
        return (last / base - 1.0) * 100
    return (last - base) * (100 if kind == "bp" else 1)


def last_change(frame: pl.DataFrame, kind: str = "pct") -> float | None:
    """Change of the last value against the previous observation, in the units of change_since."""
    if frame.height < 2:
        return None
    last, prev = float(frame["value"][-1]), float(frame["value"][-2])
    if kind == "pct":
        return (last / prev - 1) * 100
    return (last - prev) * (100 if kind == "bp" else 1)


def ytd_change_pct(frame: pl.DataFrame) -> float | None:
    last_date = frame["date"][-1]
    base = value_on_or_before(frame, date(last_date.year - 1, 12, 31))
    return None if base is None else (float(frame["value"][-1]) / base[1] - 1.0) * 100


def window(frame: pl.DataFrame, days: int) -> pl.DataFrame:
    """Observations within `days` calendar days up to the last one (a zero-copy slice)."""
    return frame.slice(rows_through(frame, frame["date"][-1] - timedelta(days=days)))
