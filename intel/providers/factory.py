"""Pick the provider and the market clock the settings ask for."""
from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from intel.clock import MarketClock
from intel.providers.base import Provider, RecordedHistory
from intel.providers.live import LiveConfig, LiveProvider, probe
from intel.providers.replay import ReplayProvider
from intel.providers.sim import SimProvider

_CACHE: dict[tuple, Provider] = {}
_LOCK = threading.Lock()
# `auto` decisions per live configuration: (source picked, why). The probe runs once per process.
_AUTO: dict[LiveConfig, tuple[str, str]] = {}


def resolve_source(settings) -> tuple[str, str]:
    """(source, reason): `auto` becomes `live` when the live sources answer a short probe, else `sim`."""
    if settings.source != "auto":
        return settings.source, f"MI_SOURCE={settings.source}"
    config = LiveConfig.from_settings(settings)
    with _LOCK:
        if config not in _AUTO:
            ok, why = probe(config)
            _AUTO[config] = ("live", f"auto: live sources answer ({why})") if ok else (
                "sim", f"auto: live sources unreachable ({why}); falling back to SIMULATED data")
        return _AUTO[config]


def _key(settings) -> tuple:
    source, _ = resolve_source(settings)
    if source == "replay":
        return ("replay", str(Path(settings.replay_dir).resolve()))
    if source == "sim":
        return ("sim", int(settings.sim_seed))
    if source == "live":
        return ("live", LiveConfig.from_settings(settings))
    raise ValueError(f"unknown data source {settings.source!r} (expected auto, live, sim or replay)")


def _build(key: tuple) -> Provider:
    if key[0] == "replay":
        return ReplayProvider(Path(key[1]))
    if key[0] == "live":
        return LiveProvider(key[1])
    return SimProvider(seed=key[1])


def make_provider(settings) -> Provider:
    """The provider for `settings.source` (`auto` resolved); one instance per process for the same
    parameters, so the simulated path or the loaded folder is built once and breakers keep their state."""
    key = _key(settings)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = _build(key)
        return _CACHE[key]


def make_clock(settings, provider: Provider | None = None) -> MarketClock:
    """Wall time for `sim` and `live`; for `replay` a clock that starts at `replay_start` (default: the day
    after the folder's data ends) and runs at `clock_speed` from `clock_anchor`."""
    if settings.source != "replay":
        return MarketClock(start=None)
    start = settings.replay_start
    if start is None:
        replay = provider if provider is not None else make_provider(settings)
        if not isinstance(replay, RecordedHistory):
            raise TypeError(f"the {replay.name!r} provider has no recorded end to start a replay clock after")
        start = replay.default_start()
    moment = datetime(start.year, start.month, start.day, tzinfo=UTC)
    return MarketClock(start=moment, speed=settings.clock_speed, anchor=settings.clock_anchor)
