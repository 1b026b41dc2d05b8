"""The decision calendar and what was known on each of its days: the point-in-time view every strategy rule reads.

A rule decides at the close of a trading day D. It may read an observation only once it was published: dated
on or before D minus the series' release lag (intel/catalog.py), the same rule the replay and live providers
apply to the clock, so a back-test decision on D sees what the service would have held on D. Features (moving
averages, changes, volatilities) are computed on each series' own observations, which only look backwards,
and then carried onto the calendar by that publication rule."""
from __future__ import annotations

from collections.abc import Callable
from datetime import date

import numpy as np

from intel.catalog import get as catalog_entry
from intel.catalog import release_lag
from intel.frames import Frames
from intel.indicators import day_numbers
from intel.regime_history import trading_days

# (a series' values, ascending) -> a feature on the same observations, each from that one and earlier ones only
Feature = Callable[[np.ndarray], np.ndarray]
DEFAULT_MAX_GAP_DAYS = 10  # a series the catalog does not know: a value older than this is no value


def day_number(day: date) -> int:
    return int(np.datetime64(day, "D").astype(np.int64))


def max_gap_days(series_id: str) -> int:
    """How old (beyond its release lag) a series' latest published value may be and still stand for the day:
    its cadence plus the catalog's grace, so a monthly figure stands until the next month's is due."""
    entry = catalog_entry(series_id)
    return entry.max_age_days - entry.release_lag_days if entry else DEFAULT_MAX_GAP_DAYS


class Panel:
    """Point-in-time values of the frames' series on the decision calendar: the trading days of the stored
    history (intel.regime_history.trading_days) and the clock's day, on which today's signals are decided."""

    def __init__(self, frames: Frames):
        self.frames = frames
        days = trading_days(frames)
        if not days or days[-1] < frames.now:
            days = [*days, frames.now]
        self.days = days
        self.grid = np.array([day_number(d) for d in days], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.grid)

    def has(self, series_id: str) -> bool:
        return self.frames.get(series_id) is not None

    def known(self, series_id: str, feature: Feature | None = None) -> np.ndarray:
        """The series (or `feature` of it) as published by each decision day; NaN where nothing was yet, or
        where its latest published value is too old to stand for the day (max_gap_days)."""
        frame = self.frames.get(series_id)
        if frame is None:
            return np.full(len(self.grid), np.nan)
        values = frame["value"].to_numpy().astype(float)
        if feature is not None:
            values = np.asarray(feature(values), dtype=float)
        published = day_numbers(frame) + release_lag(series_id)
        idx = np.searchsorted(published, self.grid, side="right") - 1
        safe = np.clip(idx, 0, None)
        fresh = (idx >= 0) & (self.grid - published[safe] <= max_gap_days(series_id))
        return np.where(fresh, values[safe], np.nan)

    def last_published(self, series_id: str) -> date | None:
        """The date of the newest observation a decision on the clock's day could read."""
        frame = self.frames.get(series_id)
        if frame is None:
            return None
        published = day_numbers(frame) + release_lag(series_id)
        n = int(np.searchsorted(published, self.grid[-1], side="right"))
        return frame["date"][n - 1] if n else None
