"""Pick the provider and the market clock the settings ask for."""
from __future__ import annotations

import threading
from datetime import datetime, timezone
from pathlib import Path

from intel.clock import MarketClock
from intel.providers.base import Provider
from intel.providers.replay import ReplayProvider
from intel.providers.sim import SimProvider

_CACHE: dict[tuple, Provider] = {}
_LOCK = threading.Lock()


def _key(settings) -> tuple:
    if settings.source == "replay":
        return ("replay", str(Path(settings.replay_dir).resolve()))
    if settings.source == "sim":
        return ("sim", int(settings.sim_seed))
    raise ValueError(f"unknown data source {settings.source!r} (expected sim or replay)")


def make_provider(settings) -> Provider:
    """The provider for `settings.source`; one instance per process for the same parameters, so the
    simulated path or the loaded folder is built once."""
    key = _key(settings)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = ReplayProvider(Path(key[1])) if key[0] == "replay" else SimProvider(seed=key[1])
        return _CACHE[key]


def make_clock(settings, provider: Provider | None = None) -> MarketClock:
    """Wall time for `sim`; for `replay` a clock that starts at `replay_start` (default: the day after the
    folder's data ends) and runs at `clock_speed` from `clock_anchor`."""
    if settings.source != "replay":
        return MarketClock(start=None)
    start = settings.replay_start
    if start is None:
        replay = provider if provider is not None else make_provider(settings)
        start = replay.default_start()
    moment = datetime(start.year, start.month, start.day, tzinfo=timezone.utc)
    return MarketClock(start=moment, speed=settings.clock_speed, anchor=settings.clock_anchor)
