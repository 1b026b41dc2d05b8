"""Helpers shared by the rates_credit modules (treasury_yields, curve_dynamics, real_yields, fed_policy,
credit_stress, duration_risk): tenor labels, calendar horizons, series on common dates and wording for
summaries. Registers nothing (underscore file)."""
from __future__ import annotations

import numpy as np

from intel.catalog import TREASURY_TENORS
from intel.frames import Frames
from intel.modules._common import HORIZONS, move_word

# "DGS10" -> "10y", "DGS3MO" -> "3m": the labels the yield_curve module uses
TENOR_LABEL = {sid: (sid[3:-2] + "m" if sid.endswith("MO") else sid[3:] + "y") for sid in TREASURY_TENORS}
DAYS = {h: days for h, days in HORIZONS.items() if days}  # calendar days per horizon, 1w to 1y


def aligned(frames: Frames, ids) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """The series `ids` on the dates all of them were published (inner join), as numpy arrays;
    None when one is absent or they share no date."""
    parts = [frames.get(s) for s in ids]
    if any(p is None for p in parts):
        return None
    joined = parts[0].rename({"value": ids[0]})
    for sid, part in zip(ids[1:], parts[1:]):
        joined = joined.join(part.rename({"value": sid}), on="date", how="inner")
    if joined.height == 0:
        return None
    return joined["date"].to_numpy().astype("datetime64[D]"), {s: joined[s].to_numpy() for s in ids}


def move_bp(x) -> str:
    """'up 12.5 bp' / 'down 3.0 bp' / 'unchanged' from a rounded figure that is also in data."""
    return move_word(x, " bp")
