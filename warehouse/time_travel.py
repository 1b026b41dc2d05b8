"""A module's answer as the service would have given it at a past moment, computed from a warehouse copy that
holds the history since: each input only as released by that moment (its date plus the catalog's lag, at its
release's hour), each revision as ingested by then. A replay started at that moment reads the same observations,
so it answers the same figures (tests/warehouse/test_time_travel.py)."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from pathlib import Path

import polars as pl

from charging.prices import premium_modules
from intel.catalog import known_through, published_at
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.pulse import PULSE_INPUTS, PULSE_LOOKBACK_DAYS, compute_pulse
from intel.registry import Module, modules, union_inputs
from warehouse.duckdb_store import Warehouse


def moment_of(as_of: date | datetime) -> datetime:
    """A date is the start of that day (00:00 UTC), as a replay started on it; a time is that moment (UTC)."""
    if isinstance(as_of, datetime):
        return as_of.astimezone(UTC) if as_of.tzinfo else as_of.replace(tzinfo=UTC)
    return datetime.combine(as_of, time(0), UTC)


def payload_at(path: Path, module: Module, as_of: date | datetime, data_source: str) -> dict:
    """The module's payload at `as_of`, said to be time travel, with when each input's last observation was
    published. InsufficientData when its inputs have no history by then."""
    moment = moment_of(as_of)
    frames = _frames(path, module.inputs, module.lookback_days, moment, data_source)
    return said_past(module.compute(frames), moment, isinstance(as_of, datetime))


def payloads_on(store: Warehouse, day: date, chosen: Sequence[Module], data_source: str) -> dict[str, dict | str]:
    """Each module's payload as of `day` (its start, as `payload_at` with a date), from one read of all their
    inputs: a module short of history gets the reason instead of a payload. The history asset's unit of work."""
    moment = moment_of(day)
    inputs, lookback = union_inputs(chosen)
    everything = store.frames(inputs, moment.date(), lookback, data_source, now_ts=moment, known_at=moment)
    out: dict[str, dict | str] = {}
    for module in chosen:
        try:
            out[module.name] = said_past(module.compute(everything.only(module.inputs, module.lookback_days)),
                                          moment, False)
        except InsufficientData as exc:
            out[module.name] = str(exc)
    return out


def pulse_at(path: Path, as_of: date | datetime, data_source: str) -> dict:
    """The pulse at `as_of`, as payload_at gives a module."""
    moment = moment_of(as_of)
    frames = _frames(path, PULSE_INPUTS, PULSE_LOOKBACK_DAYS, moment, data_source)
    if not frames.series:  # before any of its inputs' history: no pulse, rather than one made of nothing
        raise InsufficientData("pulse: no observations yet for any of its inputs", PULSE_INPUTS)
    return said_past(compute_pulse(frames, premium_modules(modules())), moment, isinstance(as_of, datetime))


def parallels_at(path: Path, as_of: date | datetime, data_source: str) -> dict:
    """Historical parallels at `as_of`: the state then against the episodes whose aftermath had ended by then."""
    from intel.parallels import load_episodes, parallels_view
    from intel.parallels.state import PARALLELS_INPUTS, PARALLELS_LOOKBACK_DAYS

    moment = moment_of(as_of)
    frames = _frames(path, PARALLELS_INPUTS, PARALLELS_LOOKBACK_DAYS, moment, data_source)
    if not frames.series:
        raise InsufficientData("parallels: no observations yet for any of its inputs", PARALLELS_INPUTS)
    return said_past(parallels_view(frames, load_episodes(), moment.date()), moment, isinstance(as_of, datetime))


def regime_at(path: Path, as_of: date | datetime, data_source: str) -> dict:
    """The regime view at `as_of`: labels, transitions and tilts from what was released by then. A stored daily
    label (regime_daily) is kept for a day whose inputs had all been released by the moment (it read nothing else);
    the days after that, and any day not stored, are labelled again from the inputs as released by the moment."""
    from intel.regime import REGIME_INPUTS
    from intel.regime_history import TILT_SERIES, daily_regimes, regime_view, trading_days

    moment = moment_of(as_of)
    with Warehouse(path, read_only=True) as store:
        frames = store.frames((*REGIME_INPUTS, *TILT_SERIES), moment.date(), (moment.date() - date(1, 1, 1)).days,
                              data_source, now_ts=moment, known_at=moment)
        stored = store.regimes(data_source)
    settled = min(known_through(sid, moment) for sid in REGIME_INPUTS)
    kept = stored.filter(pl.col("date") <= settled)
    held = set(kept["date"].to_list())
    labels = pl.concat([kept, daily_regimes(frames, [d for d in trading_days(frames) if d not in held])]).sort("date")
    if labels.is_empty():
        raise InsufficientData("regime: no observations yet for its inputs", tuple(REGIME_INPUTS))
    return said_past(regime_view(frames, labels, moment.date()), moment, isinstance(as_of, datetime))


def _frames(path: Path, inputs, lookback_days: int, moment: datetime, data_source: str) -> Frames:
    with Warehouse(path, read_only=True) as store:
        return store.frames(inputs, moment.date(), lookback_days, data_source, now_ts=moment, known_at=moment)


def said_past(payload: dict, moment: datetime, timed: bool) -> dict:
    """The payload marked as time travel, each input's last observation with when it was published. `timed`: the
    moment was asked with its time of day, so `as_of` says it (else the date the payload has)."""
    for series in payload.get("data_sources", {}).get("series", []):
        if series.get("last_observation"):
            last = date.fromisoformat(series["last_observation"])
            series["published_at"] = published_at(series["id"], last).isoformat()
    if timed:
        payload["as_of"] = moment.isoformat()
    payload["time_travel"] = True
    return payload
