"""Monthly macro series: values on a contiguous calendar-month grid (gaps stay NaN, so a missing month never
shifts a comparison), changes of a level series across calendar months, winsorized histories, a logistic map,
and the named observations behind a figure (for provenance). Registers nothing (underscore file)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import growth, month_grid, month_keys, month_label


@dataclass(frozen=True)
class Monthly:
    """Values on a grid of consecutive calendar months starting at `start` (year*12 + month-1)."""
    start: int
    values: np.ndarray  # NaN where a month has no observation

    def period(self, i: int = -1) -> str:
        return month_label(self.start + (i % len(self.values)))

    def at(self, i: int = -1) -> float | None:
        """Value `i` positions from the grid start (negative: from the end), None when absent."""
        if -len(self.values) <= i < len(self.values):
            v = float(self.values[i])
            return v if math.isfinite(v) else None
        return None


def monthly(frame: pl.DataFrame) -> Monthly:
    """One value per calendar month (the last observation dated in that month)."""
    return Monthly(*month_grid(frame))


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


def asof_values(frame: pl.DataFrame, days: list[date] | pl.Series) -> np.ndarray:
    """Value of `frame` on or before each day, however old (NaN before the frame starts)."""
    grid = pl.Series(list(days), dtype=pl.Date).to_numpy().astype("datetime64[D]").astype(np.int64)
    return indicators.asof(grid, indicators.day_numbers(frame), frame["value"].to_numpy().astype(float), max_gap=None)


def aligned(a: Monthly, b: Monthly) -> tuple[Monthly, Monthly]:
    """Both series on one common month grid (the union of their spans, NaN where absent)."""
    start = min(a.start, b.start)
    end = max(a.start + len(a.values), b.start + len(b.values))

    def place(m: Monthly) -> Monthly:
        grid = np.full(end - start, np.nan)
        grid[m.start - start: m.start - start + len(m.values)] = m.values
        return Monthly(start, grid)

    return place(a), place(b)


def trim_to_last_finite(m: Monthly) -> Monthly | None:
    """Drop trailing months without a value (None when there is none at all)."""
    ok = np.flatnonzero(np.isfinite(m.values))
    return Monthly(m.start, m.values[: ok[-1] + 1]) if len(ok) else None


def winsorized(history: np.ndarray, k: float = 4.0) -> np.ndarray:
    """Finite history clipped to median +- k robust sigmas (1.4826 x median absolute deviation), so one
    extreme episode (the 2020 lockdown swings) cannot flatten a decade of z-scores."""
    h = history[np.isfinite(history)]
    if not len(h):
        return h
    med = float(np.median(h))
    mad = 1.4826 * float(np.median(np.abs(h - med)))
    return np.clip(h, med - k * mad, med + k * mad) if mad > 0 else h


# ---- named observations behind figures (provenance) ----

def month_obs(frames: Frames, series_id: str, m: Monthly, i: int = -1) -> envelope.Obs | None:
    """The observation behind position `i` of the series' month grid `m` (the last one dated in that month),
    None when the month has none."""
    frame = frames.get(series_id)
    if frame is None or m.at(i) is None:
        return None
    key = m.start + (i % len(m.values))
    rows = np.flatnonzero(month_keys(frame) == key)
    if not len(rows):
        return None
    row = int(rows[-1])
    return series_id, frame["date"][row], float(frame["value"][row])


# ---- changes across calendar months, each naming the observations it compares ----

def obs_months_before(frames, sid: str, n: int) -> tuple | None:
    """(series, date, value) of the last observation in the calendar month n months before the series' last
    month, as month_grid has it (the last observation of a month wins); None when that month is absent."""
    frame = frames.get(sid)
    if frame is None:
        return None
    last = frame["date"][-1]
    key = last.year * 12 + last.month - 1 - n
    month = frame.filter((pl.col("date").dt.year() == key // 12) & (pl.col("date").dt.month() == key % 12 + 1))
    if month.height == 0 or not math.isfinite(month["value"][-1]):
        return None
    return sid, month["date"][-1], float(month["value"][-1])


def month_change(frames, sid: str, n: int, digits: int, op: str):
    """Last value minus the value n calendar months earlier, from the two named observations."""
    base = obs_months_before(frames, sid, n)
    return envelope.difference(envelope.last_obs(frames, sid), base, digits, scale=1.0, op=op) if base else None


def month_pct_change(frames, sid: str, n: int, digits: int, op: str):
    """Percent change of the last value from the value n calendar months earlier (a level series); None where
    the ratio is not positive, as `growth` has it."""
    base = obs_months_before(frames, sid, n)
    if base is None or not base[2] or envelope.last_obs(frames, sid)[2] / base[2] <= 0:
        return None
    return envelope.pct_change(envelope.last_obs(frames, sid), base, digits, op=op)


def growth_stats(frames, sid: str, digits: int = 2) -> dict:
    """Latest month, month-on-month, 3-month annualised and year-on-year growth of a monthly level series: the
    level and the 1- and 12-month changes name their observations, the annualised rate rests on the series."""
    start, grid = month_grid(frames.get(sid))
    last = start + len(grid) - 1
    with provenance.about(frames, sid):
        return {"period": month_label(last), "level": envelope.level(frames, sid, digits),
                "mom_pct": month_pct_change(frames, sid, 1, 2, "percent change from the month before"),
                "annualized_3m_pct": envelope.rnd(growth(grid, 3, annualize=True)[-1], 2,
                                                  "3-month change annualized, percent"),
                "yoy_pct": month_pct_change(frames, sid, 12, 2, "percent change from 12 months earlier")}
