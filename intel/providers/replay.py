"""The replay provider: a folder of `date,value` CSVs (series id = file stem), served point-in-time.

This is the one place in `intel/` that reads files. Everything is loaded once into a long polars
frame; an observation is handed out only once it would have been published (its date plus the
catalog's release lag, at the release's hour: intel/catalog.py `known_through`), so a replay at a
moment sees what the service could have seen then: not a close before its market has closed.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl

from intel.catalog import get as get_series
from intel.frames import BARS_SCHEMA, LONG_SCHEMA, released_by
from intel.providers.sim_bars import valid_ticker

log = logging.getLogger(__name__)
UNSTATED = "as given in the replay file (adjustment not stated)"


def read_series_csv(path: Path) -> pl.DataFrame:
    """`date, value` from one CSV; rows whose date or value do not parse (FRED writes "." for a gap)
    are dropped. Raises ValueError when the file lacks those columns or holds no usable row."""
    raw = pl.read_csv(path, infer_schema=False)
    columns = {name.strip().lower(): name for name in raw.columns}
    if "date" not in columns or "value" not in columns:
        raise ValueError(f"expected columns date,value, found {raw.columns}")
    frame = raw.select(
        pl.col(columns["date"]).str.strip_chars().str.to_date("%Y-%m-%d", strict=False).alias("date"),
        pl.col(columns["value"]).str.strip_chars().cast(pl.Float64, strict=False).alias("value"),
    ).filter(pl.col("date").is_not_null() & pl.col("value").is_not_null() & pl.col("value").is_finite())
    if raw.height and not frame.height:
        raise ValueError("no row has a parseable date and value")
    return frame.unique("date", keep="last").sort("date")


class ReplayProvider:
    name = "replay"
    simulated = False

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        parts = []
        for path in sorted(self.folder.glob("*.csv")):
            try:
                frame = read_series_csv(path)
            except Exception as exc:  # one bad file must not take the other series down
                log.warning("replay: skipping unreadable series file %s: %s", path, exc)
                continue
            parts.append(frame.with_columns(pl.lit(path.stem).alias("series_id")))
        if not parts:
            log.warning("replay: no readable series in %s", self.folder)
        empty = pl.DataFrame(schema=LONG_SCHEMA)
        self._long = (pl.concat(parts, how="diagonal") if parts else empty).select(
            ["series_id", "date", "value"]).sort(["series_id", "date"])
        self._last = {sid: last for sid, last in self._long.group_by("series_id").agg(
            pl.col("date").max()).iter_rows()}

    def series_ids(self) -> list[str]:
        return sorted(self._last)

    def first_dates(self, series_ids: Sequence[str]) -> dict[str, date]:
        return dict(self._long.filter(pl.col("series_id").is_in(list(series_ids))).group_by("series_id").agg(
            pl.col("date").min()).iter_rows())

    def default_start(self) -> date:
        """The day after the latest observation in the folder: a replay that starts there sees it all."""
        if not self._last:
            raise ValueError(f"replay folder {self.folder} holds no readable series")
        return max(self._last.values()) + timedelta(days=1)

    def observations(self, series_ids: Sequence[str], start: date, end: date | datetime) -> pl.DataFrame:
        """What was published by `end`: a moment, or (a date) the whole of that day."""
        return self._long.filter(pl.col("series_id").is_in(list(series_ids)) & (pl.col("date") >= start)
                                 & released_by(series_ids, end))

    def price_adjustment(self, ticker: str) -> str | None:
        """The catalog's word for a known series (sector ETFs: adjusted; index levels: none); a file the
        catalog does not know is taken as it is, and said to be of unstated adjustment."""
        series_id = ticker if ticker in self._last else ticker.upper()
        entry = get_series(series_id)
        if entry is not None:
            return entry.adjustment or None
        return UNSTATED if series_id in self._last else None

    def bars(self, ticker: str, start: date, end: date) -> pl.DataFrame:
        """Close-only bars from `<TICKER>.csv` (the folder has no open, high, low or volume), as published
        by `end` like the observations they are (CPI read as a ticker still waits for its release)."""
        if not valid_ticker(ticker):
            return pl.DataFrame(schema=BARS_SCHEMA)
        series_id = ticker if ticker in self._last else ticker.upper()
        closes = self._long.filter((pl.col("series_id") == series_id) & (pl.col("date") >= start)
                                   & released_by([series_id], end))
        return closes.select(
            "date", *(pl.lit(None, dtype=pl.Float64).alias(c) for c in ("open", "high", "low")),
            pl.col("value").alias("close"), pl.lit(None, dtype=pl.Float64).alias("volume"),
        ).cast(BARS_SCHEMA)

