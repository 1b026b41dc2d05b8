"""Helpers shared by the rates_credit modules (treasury_yields, curve_dynamics, real_yields, fed_policy,
credit_stress, duration_risk): tenor labels, calendar horizons, series on common dates, named observations
for exact figures and wording for summaries. Registers nothing (underscore file)."""
from __future__ import annotations

from datetime import date

import numpy as np

from intel import envelope
from intel.catalog import TREASURY_TENORS
from intel.frames import Frames
from intel.modules._common import HORIZONS, move_word

# "DGS10" -> "10y", "DGS3MO" -> "3m": the labels the yield_curve module uses
TENOR_LABEL = {sid: (sid[3:-2] + "m" if sid.endswith("MO") else sid[3:] + "y") for sid in TREASURY_TENORS}
DAYS = {h: days for h, days in HORIZONS.items() if days}  # calendar days per horizon, 1w to 1y
STATED = "stated parameter of the method (not computed from data)"  # operation of a constant (envelope.constant)

Obs = tuple[str, date, float]  # (series, date, value): one named observation


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


# ---- named observations, for figures an agent can recompute ----

def obs_at(series_id: str, dates: np.ndarray, values: np.ndarray, i: int | None) -> Obs | None:
    """Observation i of a series held as arrays (its own, or on dates it shares with others)."""
    if i is None:
        return None
    return series_id, dates[i].astype("datetime64[D]").astype(object), float(values[i])


def change_bp(frames: Frames, series_id: str, days: int | None, digits: int = 1, op: str | None = None):
    """Last observation minus the one `days` calendar days before (None: the previous one), in bp, as a
    difference of the two named observations; None when the history does not reach back."""
    base = (envelope.nth_obs(frames, series_id, -2) if days is None
            else envelope.obs_days_before(frames, series_id, days))
    if base is None:
        return None
    words = op or ("change from the previous observation, bp" if days is None
                   else f"change since the observation on or before {days} days earlier, bp")
    return envelope.difference(envelope.last_obs(frames, series_id), base, digits, 100.0, words)


def move_bp(x) -> str:
    """'up 12.5 bp' / 'down 3.0 bp' / 'unchanged' from a rounded figure that is also in data."""
    return move_word(x, " bp")
