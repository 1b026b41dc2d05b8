"""The simulation's statistics stay within the stated tolerances of the real history's (bench/calibration.py)."""
from __future__ import annotations

import pytest

from bench.calibration import REAL_TARGETS, STATS, history_loader, measure, sim_loader
from tests.history import history_dir


@pytest.fixture(scope="module")
def sim() -> dict[str, float]:
    return measure(sim_loader())


@pytest.mark.parametrize("stat", STATS, ids=lambda s: s.name)
def test_sim_within_tolerance_of_the_recorded_real_figure(sim, stat):
    assert stat.within(sim[stat.name], REAL_TARGETS[stat.name]), (
        stat.name, sim[stat.name], REAL_TARGETS[stat.name], stat.describe_tolerance())


def test_recorded_targets_are_what_the_history_measures():
    real = measure(history_loader(history_dir()))
    for name, value in real.items():
        assert REAL_TARGETS[name] == pytest.approx(value, rel=1e-3, abs=1e-3), name


def test_sim_within_tolerance_of_the_history(sim):
    real = measure(history_loader(history_dir()))
    outside = [(s.name, sim[s.name], real[s.name]) for s in STATS if not s.within(sim[s.name], real[s.name])]
    assert not outside
