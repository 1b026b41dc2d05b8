"""Calendars, seeded shocks and small time-series helpers for the simulated provider.

Prefix stability rests on one rule: the shocks for a date come from a generator seeded by
(seed, component, year), and the simulation always covers whole calendar years. A date's value then
depends only on shocks dated at or before it, never on how far the caller asked to look.
"""
from __future__ import annotations

import hashlib
from datetime import date

import numpy as np

DAY = np.timedelta64(1, "D")


def stable_key(text: str) -> int:
    """A 64-bit integer from `text` that is the same in every process (unlike hash())."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def to_day(value: date) -> np.datetime64:
    return np.datetime64(value, "D")


def all_days(first: date, last: date) -> np.ndarray:
    return np.arange(to_day(first), to_day(last) + DAY, DAY)


def business_days(first: date, last: date) -> np.ndarray:
    """Monday to Friday (holidays are not modelled)."""
    days = all_days(first, last)
    return days[np.is_busday(days)]


def weekdays(first: date, last: date, weekday: int) -> np.ndarray:
    """Every date with `weekday` (Monday = 0) in [first, last]."""
    days = all_days(first, last)
    # 1970-01-01 was a Thursday (weekday 3)
    return days[((days.astype(np.int64) + 3) % 7) == weekday]


def month_starts(first: date, last: date) -> np.ndarray:
    """The 1st of every month from `first`'s month through `last`."""
    months = np.arange(np.datetime64(first, "M"), np.datetime64(last, "M") + 1)
    return months.astype("datetime64[D]")


def quarter_starts(first: date, last: date) -> np.ndarray:
    months = month_starts(first, last)
    return months[(months.astype("datetime64[M]").astype(np.int64) % 3) == 0]


def years_of(dates: np.ndarray) -> np.ndarray:
    return dates.astype("datetime64[Y]").astype(np.int64) + 1970


class Draws:
    """Standard shocks per (component, calendar), seeded per year so that they never shift."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _per_year(self, component: str, dates: np.ndarray, draw) -> np.ndarray:
        out = np.empty(len(dates))
        years = years_of(dates)
        key = stable_key(component)
        for year in np.unique(years):
            where = np.flatnonzero(years == year)
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, key, int(year)]))
            out[where] = draw(rng, len(where))
        return out

    def normal(self, component: str, dates: np.ndarray) -> np.ndarray:
        return self._per_year(component, dates, lambda rng, n: rng.standard_normal(n))

    def fat(self, component: str, dates: np.ndarray, dof: float = 5.0) -> np.ndarray:
        """Student-t shocks scaled to unit variance: the fat tails of daily returns."""
        scale = np.sqrt((dof - 2.0) / dof)
        return self._per_year(component, dates, lambda rng, n: rng.standard_t(dof, n) * scale)

    def uniform(self, component: str, dates: np.ndarray) -> np.ndarray:
        return self._per_year(component, dates, lambda rng, n: rng.random(n))


def ar1(phi: float, inputs: np.ndarray, start: float = 0.0) -> np.ndarray:
    """x[t] = phi * x[t-1] + inputs[t], with x[-1] = start."""
    out = []
    x = start
    for u in inputs.tolist():
        x = phi * x + u
        out.append(x)
    return np.asarray(out)


def smooth_toward(targets: np.ndarray, speed: float | np.ndarray, start: float) -> np.ndarray:
    """x[t] = x[t-1] + speed * (targets[t] - x[t-1]): an exponential lag behind `targets`."""
    speeds = np.broadcast_to(np.asarray(speed, dtype=float), targets.shape).tolist()
    out = []
    x = start
    for target, k in zip(targets.tolist(), speeds):
        x += k * (target - x)
        out.append(x)
    return np.asarray(out)


def period_means(dates: np.ndarray, values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Mean of `values` over [starts[k], starts[k+1]) (the last period runs to the end of `dates`);
    NaN for a period with no dates."""
    edges = np.searchsorted(dates, starts)
    ends = np.append(edges[1:], len(dates))
    sums = np.concatenate([[0.0], np.cumsum(values)])
    counts = ends - edges
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, (sums[ends] - sums[edges]) / np.maximum(counts, 1), np.nan)


def trailing_means(dates: np.ndarray, values: np.ndarray, targets: np.ndarray, days: int) -> np.ndarray:
    """Mean of `values` over dates in (target - days, target], for weekly figures built from daily ones."""
    hi = np.searchsorted(dates, targets, side="right")
    lo = np.searchsorted(dates, targets - np.timedelta64(days, "D"), side="right")
    sums = np.concatenate([[0.0], np.cumsum(values)])
    counts = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, (sums[hi] - sums[lo]) / np.maximum(counts, 1), np.nan)


def last_before(dates: np.ndarray, values: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The latest value dated strictly before each target (the first value where none is)."""
    idx = np.searchsorted(dates, targets, side="left") - 1
    return values[np.clip(idx, 0, len(values) - 1)]
