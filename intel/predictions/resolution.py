"""Deciding a prediction from the observations of its series that were published by the resolution day.

Horizons in trading days count the series' own observations after the issue day; the value "on D" is the
last observation dated on or before D. A statement is undecidable (None) until every observation the
answer rests on is dated and published: an `above_any` or `wider_by_any` hit and an `event_within` event
decide it as soon as they are published; a miss only once the whole horizon has been published (its
observed value is then the highest close within the horizon, dated by the horizon's last observation)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from intel.catalog import release_lag
from intel.frames import Frames

EPOCH = date(1970, 1, 1).toordinal()
REPLAY_VINTAGE = ("latest vintage as stored in the replay history files (FRED's current values, revisions "
                  "included: not the first release)")


def day_number(day: date) -> int:
    return day.toordinal() - EPOCH


def iso(day_num: int) -> str:
    return date.fromordinal(int(day_num) + EPOCH).isoformat()


@dataclass(frozen=True)
class Decision:
    outcome: bool
    observed_value: float | None
    observed_on: int  # day number of the deciding observation
    needs_through: int  # index of the last observation the answer rests on (its publication gates it)


def _add_months(day_num: int, months: int) -> int:
    d = date.fromordinal(day_num + EPOCH)
    total = d.year * 12 + d.month - 1 + months
    return day_number(date(total // 12, total % 12 + 1, 1))


def decide(comparison: str, threshold: float | None, n: int, unit: str, issued: int,
           days: np.ndarray, values: np.ndarray) -> Decision | None:
    """The outcome from the observations given (ascending day numbers and values), or None when they do
    not decide it yet. The caller hands over only what was published by the resolution day."""
    ref = int(np.searchsorted(days, issued, side="right")) - 1
    if ref < 0:
        return None
    if unit == "months":
        return _event_within(issued, n, days, values)
    if unit == "calendar_days":
        return _calendar(comparison, issued + n, ref, days, values)
    if comparison in ("higher", "lower"):
        t = ref + n
        if t >= len(days):
            return None
        up = values[t] > values[ref] if comparison == "higher" else values[t] < values[ref]
        return Decision(bool(up), float(values[t]), int(days[t]), t)
    line = threshold if comparison == "above_any" else values[ref] + threshold
    window = values[ref + 1: ref + n + 1]
    hits = np.flatnonzero(window > line if comparison == "above_any" else window >= line - 1e-9)
    if len(hits):
        j = ref + 1 + int(hits[0])
        return Decision(True, float(values[j]), int(days[j]), j)
    if ref + n < len(days):
        j = ref + n
        return Decision(False, float(window.max()), int(days[j]), j)
    return None


def _calendar(comparison: str, target: int, ref: int, days: np.ndarray, values: np.ndarray) -> Decision | None:
    """The last observation dated on or before the target day, once nothing dated up to it can still come:
    it is dated the target day itself, or a later observation has been published."""
    t = int(np.searchsorted(days, target, side="right")) - 1
    if t <= ref:
        return None
    if days[t] != target and t + 1 >= len(days):
        return None
    up = values[t] > values[ref] if comparison == "higher" else values[t] < values[ref]
    return Decision(bool(up), float(values[t]), int(days[t]), t if days[t] == target else t + 1)


def _event_within(issued: int, months: int, days: np.ndarray, values: np.ndarray) -> Decision | None:
    """A monthly 0/1 series (dated the 1st) turns from 0 to 1 in one of the `months` months after the issue
    month: True at the first such month once published; False once the last month of the window is."""
    start = day_number(date.fromordinal(issued + EPOCH).replace(day=1))
    last = _add_months(start, months)
    first_idx = int(np.searchsorted(days, start, side="right"))
    for j in range(max(first_idx, 1), len(days)):
        if days[j] > last:
            break
        if values[j] >= 0.5 and values[j - 1] < 0.5:
            return Decision(True, float(values[j]), int(days[j]), j)
        if days[j] == last:
            return Decision(False, float(values[j]), int(days[j]), j)
    return None


def published_arrays(frames: Frames, series_id: str, day: date) -> tuple[np.ndarray, np.ndarray]:
    """A series' observations published by `day` (dated no later than day - release lag), as day numbers."""
    frame = frames.get(series_id)
    if frame is None:
        return np.empty(0, dtype=np.int64), np.empty(0)
    days = frame["date"].to_numpy().astype("datetime64[D]").astype(np.int64)
    keep = days + release_lag(series_id) <= day_number(day)
    return days[keep], frame["value"].to_numpy()[keep]


def resolve(prediction: dict, frames: Frames, day: date, vintage: str = REPLAY_VINTAGE,
            prediction_hash: str | None = None) -> dict | None:
    """The resolution record of `prediction` on market day `day`, from the observations of its series
    published by then, or None while it is undecidable. `prediction_hash` is the record store's chain hash
    of the prediction (None here: the store fills it in when it appends the resolution)."""
    days, values = published_arrays(frames, prediction["series"], day)
    issued = day_number(date.fromisoformat(prediction["issued_on"]))
    horizon = prediction["horizon"]
    decision = decide(prediction["comparison"], prediction["threshold"], horizon["n"], horizon["unit"], issued,
                      days, values)
    if decision is None:
        return None
    return resolution_record(prediction, decision, day.isoformat(), vintage, prediction_hash)


def resolution_record(prediction: dict, decision: Decision, resolved_on: str, vintage: str,
                      prediction_hash: str | None = None) -> dict:
    return {"id": f"{prediction['id']}:resolution", "prediction_id": prediction["id"],
            "prediction_hash": prediction_hash, "outcome": decision.outcome,
            "observed_value": decision.observed_value, "observed_on": iso(decision.observed_on),
            "resolved_on": resolved_on, "vintage": vintage, "origin": prediction["origin"]}
