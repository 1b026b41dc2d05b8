"""make_provider / make_clock follow the settings."""
from __future__ import annotations

from datetime import UTC, date, datetime
from types import SimpleNamespace

import pytest

import intel.clock
from intel.providers.factory import make_clock, make_provider
from intel.providers.replay import ReplayProvider
from intel.providers.sim import SimProvider
from marketintel.settings import Settings


@pytest.fixture
def replay_folder(tmp_path):
    (tmp_path / "DGS10.csv").write_text("date,value\n2021-06-01,1.6\n2021-06-02,1.59\n")
    return tmp_path


def test_sim_provider_cached_per_seed():
    first = make_provider(Settings(source="sim", sim_seed=5))
    assert isinstance(first, SimProvider) and first.seed == 5
    assert make_provider(Settings(source="sim", sim_seed=5)) is first
    assert make_provider(Settings(source="sim", sim_seed=6)) is not first


def test_replay_provider_cached_per_folder(replay_folder):
    provider = make_provider(Settings(source="replay", replay_dir=replay_folder))
    assert isinstance(provider, ReplayProvider)
    assert provider.series_ids() == ["DGS10"]
    assert make_provider(Settings(source="replay", replay_dir=replay_folder / ".." / replay_folder.name)) is provider


def test_sim_clock_is_wall_time():
    clock = make_clock(Settings(source="sim"))
    assert clock.start is None
    before = datetime.now(UTC)
    now = clock.now()
    assert before <= now <= datetime.now(UTC)  # read between two wall-clock readings: no slack to tune


def test_replay_clock_starts_after_the_data(replay_folder, monkeypatch):
    settings = Settings(source="replay", replay_dir=replay_folder, clock_speed=0.0)
    assert make_clock(settings).today() == date(2021, 6, 3)
    anchor = 1_700_000_000.0
    moving = make_clock(Settings(source="replay", replay_dir=replay_folder, clock_speed=3600.0, clock_anchor=anchor))
    assert moving.anchor == anchor
    # the clock's wall time, 10 s after the anchor: at 3600x the market clock reads 10 hours after its start
    monkeypatch.setattr(intel.clock, "time", SimpleNamespace(time=lambda: anchor + 10))
    assert moving.now() == datetime(2021, 6, 3, 10, tzinfo=UTC)


def test_replay_start_overrides(replay_folder):
    settings = Settings(source="replay", replay_dir=replay_folder, replay_start=date(2021, 6, 2), clock_speed=0.0)
    assert make_clock(settings, make_provider(settings)).today() == date(2021, 6, 2)
