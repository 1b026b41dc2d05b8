"""Payloads of the modules alert fields read, computed by the real modules: on simulated data (seeded), and on
the real history replayed to a given market day (every observation dated on or before it)."""
from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

from intel.events.alert_fields import FIELDS
from intel.frames import Frames
from intel.providers.replay import ReplayProvider
from intel.providers.sim import SimProvider
from intel.registry import modules

SIM_AS_OF = date(2026, 11, 20)


def compute(provider, as_of: date, source: str, wanted: set[str] | None = None) -> dict[str, dict]:
    """{module: payload} of the `wanted` modules (default: every module a field reads) as of `as_of`."""
    registry = modules()
    wanted = wanted or {f.module for f in FIELDS.values()}
    inputs = sorted({sid for name in wanted for sid in registry[name].inputs})
    frames = Frames.from_long(provider.observations(inputs, as_of - timedelta(days=3700), as_of), as_of, source)
    return {name: registry[name].compute(frames) for name in wanted}


@lru_cache(maxsize=1)
def sim_payloads() -> dict[str, dict]:
    """Simulated data (seed 7), as of SIM_AS_OF."""
    return compute(SimProvider(seed=7), SIM_AS_OF, "sim")


def replay_payloads(folder, as_of: date) -> dict[str, dict]:
    return compute(ReplayProvider(folder), as_of, "replay")
