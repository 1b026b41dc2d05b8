"""Settings for a replay of the real history with the market clock frozen on one day (tests/history.py finds it)."""
from __future__ import annotations

from datetime import date

from marketintel.settings import Settings
from tests.history import history_dir


def replay_settings(clock: date, redis_url: str, monkeypatch) -> Settings:
    """The process's settings replaying ../shared/data/history frozen at `clock` (the run sees that market day)."""
    monkeypatch.setenv("MI_REDIS_URL", redis_url)
    monkeypatch.setenv("MI_SOURCE", "replay")
    monkeypatch.setenv("MI_REPLAY_DIR", str(history_dir()))
    monkeypatch.setenv("MI_REPLAY_START", clock.isoformat())
    monkeypatch.setenv("MI_CLOCK_SPEED", "0")
    return Settings()
