"""The real history as one long frame, and point-in-time views of it, for the prediction tests."""
from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path

import polars as pl

from intel.catalog import release_lag
from intel.frames import Frames
from intel.providers.replay import read_series_csv
from tests.history import history_dir


@lru_cache(maxsize=1)
def _long(folder: str) -> pl.DataFrame:
    parts = [read_series_csv(path).with_columns(pl.lit(path.stem).alias("series_id"))
             for path in sorted(Path(folder).glob("*.csv"))]
    return pl.concat(parts).select("series_id", "date", "value")


def history_long() -> pl.DataFrame:
    """Every series of ../shared/data/history (skips the test when the folder is absent)."""
    return _long(str(history_dir()))


def published_by(long: pl.DataFrame, day: date) -> Frames:
    """Frames as the replay provider serves them on `day`: observations dated on or before day - release lag."""
    lags = pl.DataFrame({"series_id": long["series_id"].unique()}).with_columns(
        pl.col("series_id").map_elements(release_lag, return_dtype=pl.Int64).alias("lag"))
    visible = long.join(lags, on="series_id").filter(
        pl.col("date") + pl.duration(days=pl.col("lag")) <= pl.lit(day))
    return Frames.from_long(visible.drop("lag"), day, data_source="replay")
