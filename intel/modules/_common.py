"""Module-level pieces several module groups share: horizon returns, calendar-month grids, trend, drawdown and
volatility profiles, state-history tables, ticker bars and the wording of summaries. Numeric helpers with no
payload shape live in intel/indicators.py. Registers nothing (underscore file)."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import polars as pl

from intel import indicators, provenance
from intel.envelope import InsufficientData, last_obs, nth_obs, obs_on_or_before, pct_change, rnd
from intel.frames import Frames

# calendar days per horizon: lookups take the last observation on or before now minus this many days
HORIZONS = {"1d": None, "1w": 7, "1m": 30, "3m": 91, "6m": 182, "1y": 365}
# trading days per horizon, for figures counted in daily closes or bars
TRADING_HORIZONS = {"1m": 21, "3m": 63, "6m": 126, "12m": 252}


# ---- returns over calendar horizons and calendar-month grids ----

def horizon_returns(frame: pl.DataFrame, horizons=("1d", "1w", "1m", "3m", "6m", "1y"), ytd: bool = True,
                    kind: str = "pct", digits: int = 2) -> dict:
    """{"change_1d_pct": ..., ...}: 1d is against the previous observation; the rest by calendar."""
    unit = {"pct": "pct", "bp": "bp", "diff": "pts"}[kind]
    out = {}
    for h in horizons:
        change = indicators.last_change(frame, kind) if h == "1d" else indicators.change_since(frame, HORIZONS[h], kind)
        out[f"change_{h}_{unit}"] = rnd(change, digits)
    if ytd:
        out[f"change_ytd_{unit}"] = rnd(indicators.ytd_change_pct(frame), digits) if kind == "pct" else None
    return out


def observed_horizon_returns(source: Frames | pl.DataFrame, series_id: str,
                             horizons=("1d", "1w", "1m", "3m", "6m", "1y"), ytd: bool = True, words=None) -> dict:
    """horizon_returns' percent changes, each a pct_change of two named observations an agent can recompute: the
    last against the previous one (1d), the last on or before the horizon's calendar start, or the last of the
    previous year (ytd). `words(h)` gives horizon h's operation ("ytd" too); by default pct_change words it."""
    last, out = last_obs(source, series_id), {}
    for h in horizons:
        base = (nth_obs(source, series_id, -2) if h == "1d"
                else obs_on_or_before(source, series_id, last[1] - timedelta(days=HORIZONS[h])))
        out[f"change_{h}_pct"] = pct_change(last, base, 2, words(h) if words else None)
    if ytd:
        base = obs_on_or_before(source, series_id, date(last[1].year - 1, 12, 31))
        out["change_ytd_pct"] = pct_change(last, base, 2, words("ytd") if words else None)
    return out


def month_keys(frame: pl.DataFrame) -> np.ndarray:
    """year * 12 + month - 1 of each observation: one integer per calendar month."""
    return (frame["date"].dt.year().cast(pl.Int64) * 12 + frame["date"].dt.month().cast(pl.Int64) - 1).to_numpy()


def month_label(key: int) -> str:
    return f"{key // 12}-{key % 12 + 1:02d}"


def month_grid(frame: pl.DataFrame) -> tuple[int, np.ndarray]:
    """(key of the first month, one value per calendar month with NaN for absent months; the last observation
    of a month wins), so that "n months ago" is matched by calendar month: a gap gives None, never a shifted month."""
    keys = month_keys(frame)
    start = int(keys[0])
    grid = np.full(int(keys[-1]) - start + 1, np.nan)
    grid[keys - start] = frame["value"].to_numpy().astype(float)
    return start, grid


def months_ago(grid: np.ndarray, n: int) -> float | None:
    """The value n calendar months before the grid's last month (None when that month is absent)."""
    if n >= len(grid):
        return None
    value = float(grid[-1 - n])
    return value if np.isfinite(value) else None


def growth(values: np.ndarray, n: int, annualize: bool = False) -> np.ndarray:
    """Percent change over n steps of a level series at every position (NaN for the first n, across gaps and
    where the ratio is not positive); annualized as (ratio^(12/n) - 1) for monthly steps when asked."""
    out = np.full(len(values), np.nan)
    if len(values) > n:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = values[n:] / values[:-n]
            ratio = np.where(ratio > 0, ratio, np.nan)
            out[n:] = (ratio ** (12 / n) - 1) * 100 if annualize else (ratio - 1) * 100
    return out


def monthly_mean(frame: pl.DataFrame) -> pl.DataFrame:
    """Daily (or weekly) observations averaged per calendar month: `date` (1st of month), `value`, `count`.
    Summed in date order with numpy: a polars group mean may sum in a different order from run to run,
    which moved last digits (and so, rarely, a rounded figure) between identical runs."""
    if frame.height == 0:
        return pl.DataFrame(schema={"date": pl.Date, "value": pl.Float64, "count": pl.UInt32})
    frame = frame.sort("date")
    months = frame["date"].dt.truncate("1mo")
    starts = np.flatnonzero(np.r_[True, (months[1:] != months[:-1]).to_numpy()])
    counts = np.diff(np.r_[starts, frame.height])
    sums = np.add.reduceat(frame["value"].to_numpy(), starts)
    return pl.DataFrame({"date": months.gather(starts), "value": sums / counts, "count": counts},
                        schema={"date": pl.Date, "value": pl.Float64, "count": pl.UInt32})


def monthly_last(frame: pl.DataFrame) -> pl.DataFrame:
    """The last observation of each calendar month, dated the 1st of that month."""
    return frame.group_by(pl.col("date").dt.truncate("1mo")).agg(pl.col("value").last()).sort("date")


# ---- trend, drawdown and volatility profiles ----

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


def trend_figures(last: float, f: float, s: float, fast: int = 50, slow: int = 200, digits: int = 2) -> dict:
    """A level against the last values of its fast and slow moving averages: the averages (at `digits`),
    the distance to each in percent, and the trend state (uptrend: level > fast > slow)."""
    if np.isfinite(f) and np.isfinite(s):
        state = "uptrend" if last > f > s else "downtrend" if last < f < s else "mixed"
    else:
        state = "insufficient_history"
    return {f"sma_{fast}": rnd(f, digits), f"sma_{slow}": rnd(s, digits),
            f"distance_to_sma{fast}_pct": rnd((last / f - 1) * 100, 2) if np.isfinite(f) else None,
            f"distance_to_sma{slow}_pct": rnd((last / s - 1) * 100, 2) if np.isfinite(s) else None,
            "trend_state": state}


def trend_profile(frame: pl.DataFrame, fast: int = 50, slow: int = 200) -> dict:
    """Level vs its fast/slow moving averages (in observations), trend state and cross dates."""
    close = frame["value"].to_numpy()
    sma_fast, sma_slow = indicators.sma(close, fast), indicators.sma(close, slow)
    golden, death = last_crosses(frame["date"], sma_fast, sma_slow)
    return {**trend_figures(close[-1], sma_fast[-1], sma_slow[-1], fast, slow),
            "last_golden_cross": golden, "last_death_cross": death}


def drawdown_profile(frame: pl.DataFrame) -> dict:
    """Drawdown from the highest close in the frame, the high's date and days since."""
    close = frame["value"].to_numpy()
    peak = int(np.argmax(close))
    high_date = frame["date"][peak]
    return {"high": rnd(close[peak], 2), "high_date": high_date.isoformat(),
            "drawdown_from_high_pct": rnd((close[-1] / close[peak] - 1) * 100, 2),
            "days_since_high": (frame["date"][-1] - high_date).days,
            "max_drawdown_pct": rnd(float(indicators.drawdown(close).min()) * 100, 2)}


def vol_cone(history: np.ndarray, quantiles=(10, 25, 50, 75, 90)) -> dict:
    """Quantiles, min and max of a rolling volatility's own history (its volatility cone), in percent."""
    out = {f"p{q}_pct": rnd(v, 2) for q, v in zip(quantiles, np.percentile(history, quantiles))}
    out.update({"min_pct": rnd(history.min(), 2), "max_pct": rnd(history.max(), 2)})
    return out


def vol_regime(percentile: float, top: str) -> str:
    """A volatility regime from its percentile in its own cone: low below 25, normal below 75, elevated
    below 90, else `top` (each module keeps the word it has always published)."""
    if percentile < 25:
        return "low"
    if percentile < 75:
        return "normal"
    return "elevated" if percentile < 90 else top


# ---- state histories (regimes, volatility states) ----

def transition_table(counts: np.ndarray, states) -> dict:
    """Per state: the share of next states (a row of `counts` normalised) and how many observations it holds."""
    out = {}
    for i, state in enumerate(states):
        n = int(counts[i].sum())
        out[state] = {**{f"to_{s}": rnd(counts[i, j] / n, 3) if n else None for j, s in enumerate(states)},
                      "observations": n}
    return out


def persistence(next_day: np.ndarray, i: int, completed: np.ndarray) -> dict:
    """State i's next-day persistence, the geometric duration it implies, and its completed runs' lengths."""
    n = next_day[i].sum()
    stay = next_day[i, i] / n if n else None
    return {"next_day_persistence": rnd(stay, 3),
            "expected_duration_geometric_sessions": rnd(1 / (1 - stay), 1) if stay is not None and stay < 1 else None,
            "completed_runs": int(len(completed)),
            "mean_completed_run_sessions": rnd(completed.mean(), 1) if len(completed) else None,
            "median_completed_run_sessions": rnd(np.median(completed), 1) if len(completed) else None}


# ---- ticker modules ----

def clean_bars(bars: pl.DataFrame, now: date, module: str, ticker: str, min_bars: int
               ) -> tuple[pl.DataFrame, bool, bool]:
    """A ticker's bars with a close, dated on or before now, ascending; plus whether every bar has a high and
    a low, and whether every bar has a volume. InsufficientData under `min_bars` bars."""
    bars = bars.filter(pl.col("close").is_not_null() & (pl.col("date") <= now)).sort("date")
    if bars.height < min_bars:
        raise InsufficientData(f"{module}: {bars.height} daily bars for {ticker}, at least {min_bars} needed")
    has_range = bars.height > 0 and bars["high"].null_count() == 0 and bars["low"].null_count() == 0
    has_volume = bars.height > 0 and bars["volume"].null_count() == 0 and float(bars["volume"].sum()) > 0
    provenance.note_essential(ticker, bars["date"][-1])  # the payload's data_as_of is the last bar's date
    return bars, has_range, has_volume


PRICE_DIGITS = 2  # prices are quoted in cents; an adjusted history's extra decimals are not precision


def bars_inputs(bars: pl.DataFrame, ticker: str) -> tuple[provenance.Input, ...]:
    """The ticker's daily bars as a provenance input (through the last bar): for `provenance.about_inputs`."""
    return (provenance.Input(ticker, through=bars["date"][-1]),)


def last_price(frames, bars: pl.DataFrame, ticker: str) -> dict:
    """The last bar's close, traced to that bar: `close` when the source gives traded prices; `adj_close` and
    `adjustment` (how it is adjusted) when it gives adjusted ones, which never pass for what traded."""
    day, value = bars["date"][-1], float(bars["close"][-1])
    adjustment = frames.adjustments.get(ticker)
    key = "adj_close" if adjustment else "close"
    figure = provenance.observed(round(value, PRICE_DIGITS), [(ticker, day)], "level",
                                 f"{adjustment} close" if adjustment else "close", PRICE_DIGITS)
    return {key: figure, "adjustment": adjustment} if adjustment else {key: figure}


def closed_at(data: dict, ticker: str) -> str:
    """"XLK closed at 126.4 on D", or for an adjusted price "XLK's split- and dividend-adjusted close on D
    was 59.94" (an adjusted figure is not what closed that day)."""
    if "adj_close" in data:
        return f"{ticker}'s {data['adjustment']} close on {data['date']} was {data['adj_close']}"
    return f"{ticker} closed at {data['close']} on {data['date']}"


# ---- wording for summaries: every figure quoted is a value in data ----

def fig(x, unit: str = "") -> str:
    """A figure for a summary sentence ('n/a' when missing), always a value that is also in data."""
    return "n/a" if x is None else f"{x}{unit}"


def signed(x, unit: str = "") -> str:
    """'+1.2' / '-0.4' (with a unit: '+1.2%') for a rounded figure that is also in data ('n/a' when missing)."""
    if x is None:
        return "n/a"
    return f"{'+' if x > 0 else ''}{x}{unit}"


def move_word(x, unit: str = "", missing: str = "with no comparison available", zero: str = "unchanged") -> str:
    """'up 1.23%' / 'down 12.5 bp' from a rounded figure (the figure itself stays in data)."""
    if x is None:
        return missing
    return zero if x == 0 else f"{'up' if x > 0 else 'down'} {abs(x)}{unit}"


def pct_word(x) -> str:
    return move_word(x, "%", missing="unchanged (no comparison available)", zero="flat")


def not_computed(unavailable: dict) -> str:
    """' Not computed: a, b.' for a summary, naming what data.unavailable explains ('' when nothing is)."""
    return (" Not computed: " + ", ".join(unavailable) + ".") if unavailable else ""


# ---- stale inputs: kept out of figures about today ----

def left_out_as_stale(last_seen: dict[str, str], what: str) -> str:
    """' Left out of <what> as stale: 20y (last 2023-12-29), ...' for a summary, naming each stale input kept
    out of a figure about today with its last observation ('' when none was); the dates are values in data."""
    if not last_seen:
        return ""
    return f" Left out of {what} as stale: " + ", ".join(f"{k} (last {d})" for k, d in last_seen.items()) + "."


def all_stale(last_seen: dict[str, str]) -> str:
    """The `unavailable` reason of a figure about today whose every input is stale."""
    return ("every input is stale (" + ", ".join(f"{k} last {d}" for k, d in last_seen.items())
            + "): not computed from old data")
