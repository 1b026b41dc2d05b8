"""Warehouse-shaped frames at a market date straight from the real history CSVs (what a replay ingest would
hold, minus release lags), for the pure parallels tests."""
from __future__ import annotations

from datetime import date, timedelta

import polars as pl

from intel.catalog import release_lag
from intel.frames import Frames
from intel.parallels.state import PARALLELS_INPUTS, PARALLELS_LOOKBACK_DAYS
from tests.history import history_dir


def replay_frames(today: date) -> Frames:
    parts = []
    for series_id in PARALLELS_INPUTS:
        frame = pl.read_csv(history_dir() / f"{series_id}.csv", try_parse_dates=True)
        published = pl.col("date") <= today - timedelta(days=release_lag(series_id))
        parts.append(frame.filter(published & (pl.col("date") >= today - timedelta(days=PARALLELS_LOOKBACK_DAYS)))
                     .select(pl.lit(series_id).alias("series_id"), "date", pl.col("value").cast(pl.Float64)))
    return Frames.from_long(pl.concat(parts), today, "replay")
