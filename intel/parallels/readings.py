"""Reading a series at a date without looking past it: the one place that decides which observation was
known on a given day, for the shipped episodes (CSV history) and the live state (warehouse frames) alike."""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

# A daily series whose last observation is older than this at the date read is treated as absent there
# (holidays and weekends leave gaps of a few days; a longer one means the series had not started or stopped).
MAX_DAILY_AGE_DAYS = 10

DAILY = "daily"
# Monthly averages (Shiller's S&P, CAPE, long rate; monthly gold): a month's row is known once it is complete.
MONTHLY_AVERAGE = "monthly_average"
# Monthly releases (CPI, unemployment): a month's row is known `lag_days` after the first of that month.
MONTHLY_RELEASE = "monthly_release"
# A monthly row more than this many days older than the newest row that could be known is absent there
# (Shiller's CAPE stops in 2023-09: a 2024 date must not read it as current).
MONTHLY_SLACK_DAYS = 62

Obs = tuple[date, float]


def add_months(day: date, months: int) -> date:
    """The same day `months` later (earlier if negative), clamped to the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    next_first = date(year + (month == 12), month % 12 + 1, 1)
    return date(year, month, min(day.day, (next_first - timedelta(days=1)).day))


@dataclass(frozen=True)
class Line:
    """One series (ascending dates, finite values) and the rule for when each row became known."""

    id: str
    dates: tuple[date, ...]
    values: tuple[float, ...]
    kind: str = DAILY
    lag_days: int = 0
    # oldest acceptable observation, in days before the date read; None: the kind's default
    max_age_days: int | None = None

    @classmethod
    def from_frame(cls, series_id: str, frame: pl.DataFrame, kind: str = DAILY, lag_days: int = 0,
                   max_age_days: int | None = None) -> Line:
        pairs = [(d, float(v)) for d, v in zip(frame["date"], frame["value"], strict=True)
                 if v is not None and math.isfinite(v)]
        return cls(series_id, tuple(d for d, _ in pairs), tuple(v for _, v in pairs), kind, lag_days, max_age_days)

    @property
    def max_age(self) -> int:
        if self.max_age_days is not None:
            return self.max_age_days
        if self.kind == DAILY:
            return MAX_DAILY_AGE_DAYS
        return self.lag_days + 31 + MONTHLY_SLACK_DAYS

    @property
    def first(self) -> date | None:
        return self.dates[0] if self.dates else None

    def known_until(self, day: date) -> date:
        """The latest row date that was known on `day`."""
        if self.kind == MONTHLY_AVERAGE:  # complete months only: rows dated before the first of day's month
            return date(day.year, day.month, 1) - timedelta(days=1)
        if self.kind == MONTHLY_RELEASE:
            return day - timedelta(days=self.lag_days)
        return day

    def at(self, day: date) -> Obs | None:
        """The newest observation known on `day`, if it is no older than `max_age` days."""
        i = bisect_right(self.dates, self.known_until(day)) - 1
        if i < 0 or (day - self.dates[i]).days > self.max_age:
            return None
        return self.dates[i], self.values[i]

    def shifted(self, obs_date: date, months: int) -> Obs | None:
        """The observation `months` from `obs_date`: the same month's row for a monthly series, the last
        close on or before the shifted date for a daily one."""
        target = add_months(obs_date, months)
        if self.kind == DAILY:
            i = bisect_right(self.dates, target) - 1
            if i < 0 or (target - self.dates[i]).days > MAX_DAILY_AGE_DAYS:
                return None
            return self.dates[i], self.values[i]
        i = bisect_right(self.dates, target) - 1
        return (self.dates[i], self.values[i]) if i >= 0 and self.dates[i] == target else None

    def between(self, start: date, end: date) -> list[Obs]:
        """Every observation dated in [start, end]."""
        lo, hi = bisect_right(self.dates, start - timedelta(days=1)), bisect_right(self.dates, end)
        return list(zip(self.dates[lo:hi], self.values[lo:hi], strict=True))

    def covers(self, start: date, end: date) -> bool:
        slack = timedelta(days=MAX_DAILY_AGE_DAYS)
        return bool(self.dates) and self.dates[0] <= start and self.dates[-1] >= end - slack
