"""Point-in-time inputs handed to module functions."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

import polars as pl

from intel.catalog import REVISED, known_through, release_lag

LONG_SCHEMA = {"series_id": pl.Utf8, "date": pl.Date, "value": pl.Float64}
BARS_SCHEMA = {
    "date": pl.Date,
    "open": pl.Float64,
    "high": pl.Float64,
    "low": pl.Float64,
    "close": pl.Float64,
    "volume": pl.Float64,
}
# Hourly candles; `ts` is the candle's CLOSE time (UTC), so `ts <= now` means the close was known by now.
INTRADAY_SCHEMA = {
    "series_id": pl.Utf8,
    "ts": pl.Datetime("us", "UTC"),
    "open": pl.Float64,
    "high": pl.Float64,
    "low": pl.Float64,
    "close": pl.Float64,
    "volume": pl.Float64,
}
# Data sources whose provider serves intraday candles (only live's Coinbase client): for any other source
# a module says the provider has none rather than treating the absence as a data problem.
INTRADAY_SOURCES = frozenset({"live"})


def released_by(series_ids, moment: date | datetime) -> pl.Expr:
    """True for the rows of a long frame released by `moment` (a moment, or the whole of a date): each series'
    dates up to its last one published then (intel/catalog.py `known_through`)."""
    through = {sid: known_through(sid, moment) for sid in dict.fromkeys(series_ids)}
    return pl.col("date") <= pl.col("series_id").replace_strict(through, default=None, return_dtype=pl.Date)


def as_first_released(long: pl.DataFrame, moment: datetime) -> tuple[pl.DataFrame, frozenset[str]]:
    """A long frame with `published` and `first_value` (FRED's real-time periods, where the source gave them) cut to
    what was out at `moment`: an observation with its publication day by that day at its release hour, the others
    by the catalog's lag (`released_by`). A revised series whose every observation kept has its value as first
    published gets that value instead of the latest revision, and is named in the set returned (`vintage:
    first_release`); a series short of even one first value keeps its latest values, and says so."""
    ids = long["series_id"].unique().to_list()
    through = {sid: known_through(sid, moment) for sid in ids}
    release_day = {sid: day + timedelta(days=release_lag(sid)) for sid, day in through.items()}
    by_day = pl.col("series_id").replace_strict(release_day, return_dtype=pl.Date)
    by_lag = pl.col("series_id").replace_strict(through, return_dtype=pl.Date)
    released = long.filter(pl.when(pl.col("published").is_not_null()).then(pl.col("published") <= by_day)
                           .otherwise(pl.col("date") <= by_lag))
    whole = released.group_by("series_id").agg(pl.col("first_value").is_not_null().all().alias("whole"))
    first = frozenset(sid for sid, ok in whole.iter_rows() if ok and sid in REVISED)
    value = pl.when(pl.col("series_id").is_in(list(first))).then(pl.col("first_value")).otherwise(pl.col("value"))
    return released.with_columns(value.alias("value")).select(list(LONG_SCHEMA)), first


@dataclass(frozen=True)
class Frames:
    """Series as of `now`: each frame has `date` (Date) and `value` (Float64), ascending,
    no nulls, every date <= now. Construct with `Frames.from_long` so that holds."""

    now: date
    series: dict[str, pl.DataFrame] = field(default_factory=dict)
    data_source: str = "sim"
    # series_id -> hourly candles (INTRADAY_SCHEMA without series_id), ascending, every ts <= the clock's
    # now; only the warehouse fills it, and only when given the clock's time (`frames(now_ts=...)`).
    intraday: dict[str, pl.DataFrame] = field(default_factory=dict)
    # the clock's time when the inputs were read: a payload's `generated_at` (None: the wall clock)
    clock: datetime | None = None
    # ticker or series id -> how its prices are adjusted ("split- and dividend-adjusted"); absent: traded prices
    adjustments: dict[str, str] = field(default_factory=dict)
    # revised series whose values here are as first published (time travel over FRED's real-time periods)
    first_release: frozenset[str] = frozenset()

    @classmethod
    def from_long(cls, long: pl.DataFrame, now: date, data_source: str = "sim") -> Frames:
        """Split a long `series_id, date, value` frame, dropping anything after `now`."""
        clean = (
            long.select(list(LONG_SCHEMA))
            .cast(LONG_SCHEMA)
            .filter((pl.col("date") <= now) & pl.col("value").is_not_null() & pl.col("value").is_finite())
            .unique(["series_id", "date"], keep="last")
            .sort(["series_id", "date"])
        )
        parts = {
            key[0] if isinstance(key, tuple) else key: part.drop("series_id")
            for key, part in clean.partition_by("series_id", as_dict=True).items()
        }
        return cls(now=now, series=parts, data_source=data_source)

    def only(self, series_ids, lookback_days: int) -> Frames:
        """These frames cut to `series_ids` and the last `lookback_days` before `now`: what reading those series
        over that window alone would have given (one read of many modules' inputs, then one cut per module)."""
        since = self.now - timedelta(days=lookback_days)
        keep = set(series_ids)
        return replace(self, series={sid: frame.filter(pl.col("date") >= since)
                                     for sid, frame in self.series.items() if sid in keep},
                       intraday={sid: frame for sid, frame in self.intraday.items() if sid in keep})

    def get(self, series_id: str) -> pl.DataFrame | None:
        frame = self.series.get(series_id)
        return frame if frame is not None and frame.height else None

    def last_date(self, series_id: str) -> date | None:
        frame = self.get(series_id)
        return frame["date"][-1] if frame is not None else None
