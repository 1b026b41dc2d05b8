"""Every registered strategy against the contract: it reads only catalog series, trades only known instruments,
names only registry modules, scores each of them in [-1, 1] on every decision day, and is point in time: the
scores it gives a past day are the same when the frames are cut at that day (nothing later was read)."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import polars as pl
import pytest

from intel.catalog import CATALOG
from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.registry import modules
from intel.signals.instruments import INSTRUMENTS
from intel.signals.panel import Panel
from intel.signals.product import input_series
from intel.signals.strategies import strategies

AS_OF = date(2026, 11, 20)
CUTS = (date(2022, 3, 15), date(2024, 8, 30), date(2026, 1, 9))  # past decision days the rule is replayed at


@pytest.fixture(scope="module")
def frames() -> Frames:
    long = SimProvider(seed=11).observations(list(input_series()), AS_OF - timedelta(days=8 * 365), AS_OF)
    return Frames.from_long(long, AS_OF, "sim")


def cut(frames: Frames, day: date) -> Frames:
    return Frames(now=day, series={s: f.filter(pl.col("date") <= day) for s, f in frames.series.items()},
                  data_source=frames.data_source)


@pytest.mark.parametrize("name", list(strategies()))
def test_strategy_contract(name, frames):
    strategy = strategies()[name]
    assert strategy.name == name and strategy.horizon >= 1 and 0 < strategy.threshold < 1
    assert set(strategy.inputs) <= set(CATALOG) and set(strategy.instruments) <= set(INSTRUMENTS)
    assert strategy.modules and set(strategy.modules) <= set(modules())
    panel = Panel(frames)
    scores = strategy.rule(panel)
    assert set(scores) == set(strategy.instruments)
    for inst, s in scores.items():
        assert s.shape == (len(panel),), inst
        finite = s[np.isfinite(s)]
        assert len(finite) > len(s) / 3 and np.all(np.abs(finite) <= 1), inst
    assert np.isfinite([s[-1] for s in scores.values()]).all()  # today is decided on complete sim data
    assert all(isinstance(line, str) and line for line in strategy.explain(panel))


@pytest.mark.parametrize("name", list(strategies()))
def test_strategy_reads_nothing_after_the_decision_day(name, frames):
    strategy, whole = strategies()[name], Panel(frames)
    full = strategy.rule(whole)
    for day in CUTS:
        past = Panel(cut(frames, day))
        at = past.days.index(day) if day in past.days else len(past) - 1
        assert whole.days[at] == past.days[at]
        again = strategy.rule(past)
        for inst in strategy.instruments:
            np.testing.assert_array_equal(again[inst], full[inst][:len(past)], err_msg=f"{inst} at {day}")
