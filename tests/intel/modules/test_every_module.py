"""Checks every registered module must pass, whatever it computes:

- on simulated markets at random dates (hypothesis) it computes, with no NaN or infinity anywhere, and
  every figure of its summary and signal reasons is a value in `data`;
- on random cuts of its inputs (series dropped, history shortened) it computes or raises InsufficientData,
  nothing else;
- perturbing any one input moves its `data` (every declared input is used), and perturbing all of them
  moves most of its figures (no constant standing in for a computation)."""
from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

import numpy as np
import polars as pl
import pytest
from builders import FIGURE, check_payload, figures_of_text_in_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intel.envelope import InsufficientData
from intel.formats import flatten, prompt_text
from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.registry import modules

AS_OF = date(2026, 11, 20)
TICKER = "AAPL"
ALL = sorted(modules())


@lru_cache(maxsize=4)
def provider(seed: int) -> SimProvider:
    return SimProvider(seed=seed)


def frames_for(module, now: date = AS_OF, seed: int = 7) -> Frames:
    start = now - timedelta(days=module.lookback_days)
    return Frames.from_long(provider(seed).observations(module.inputs, start, now), now, "sim")


def bars_for(module, now: date = AS_OF, seed: int = 7, ticker: str = TICKER) -> pl.DataFrame:
    return provider(seed).bars(ticker, now - timedelta(days=module.lookback_days), now)


def run(module, frames: Frames, bars: pl.DataFrame | None = None) -> dict:
    if module.takes_ticker:
        return module.compute(frames, bars, TICKER)
    return module.compute(frames)


def check_everything(payload: dict) -> None:
    check_payload(payload)
    for s in payload["signals"]:
        figures_of_text_in_data(s["reason"], payload["data"], f"signal {s['name']}")
    prompt = prompt_text(payload)
    assert payload["summary"] in prompt


@pytest.mark.parametrize("name", ALL)
def test_computes_on_sim_today(name):
    module = modules()[name]
    payload = run(module, frames_for(module), bars_for(module) if module.takes_ticker else None)
    assert payload["module"] == name
    check_everything(payload)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.sampled_from([3, 7, 19, 101]), days_back=st.integers(0, 365 * 14))
def test_property_random_sim_markets(name, seed, days_back):
    module = modules()[name]
    now = AS_OF - timedelta(days=days_back)
    frames = frames_for(module, now, seed)
    try:
        payload = run(module, frames, bars_for(module, now, seed) if module.takes_ticker else None)
    except InsufficientData:
        # honest only where the market did not have the data yet (bitcoin before December 2014)
        short = [sid for sid in module.inputs if frames.get(sid) is None or frames.get(sid).height < 260]
        assert short, f"{name} gave up on {now} with every input present"
        return
    check_everything(payload)


@pytest.mark.parametrize("name", ALL)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_property_random_cuts_of_inputs(name, data):
    """Drop any subset of the inputs and cut history short: a payload or InsufficientData, nothing else."""
    module = modules()[name]
    full = frames_for(module)
    keep = data.draw(st.lists(st.sampled_from(sorted(full.series)), unique=True), label="keep") if full.series else []
    tail = data.draw(st.integers(1, 3000), label="tail")
    series = {sid: full.series[sid].tail(tail) for sid in keep}
    frames = Frames(now=full.now, series=series, data_source="sim")
    bars = bars_for(module).tail(tail) if module.takes_ticker else None
    try:
        payload = run(module, frames, bars)
    except InsufficientData:
        return
    check_everything(payload)
    present = {s["id"] for s in payload["data_sources"]["series"]}
    assert not (set(payload["data_sources"]["missing"]) & present)


def _perturb(frame: pl.DataFrame, rng: np.random.Generator, column: str = "value") -> pl.DataFrame:
    values = frame[column].to_numpy().astype(float)
    if len(values) and set(np.unique(values)) <= {0.0, 1.0}:  # an indicator series (USREC): flip it
        return frame.with_columns(pl.Series(column, 1.0 - values))
    step = np.nanstd(np.diff(values)) if len(values) > 2 else 0.0
    scale = max(step, abs(float(np.nanmean(values))) * 0.002, 1e-6)
    # at least half a typical daily move everywhere, so no figure stays put by a lucky small draw
    shock = rng.normal(0, 1.0, len(values))
    noisy = values + np.sign(shock) * (0.5 + np.abs(shock)) * scale
    if (values > 0).all():
        noisy = np.maximum(noisy, values * 0.5)
    return frame.with_columns(pl.Series(column, noisy))


def _numbers(payload: dict) -> dict:
    return {k: v for k, v in flatten(payload["data"]).items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


@pytest.mark.parametrize("name", ALL)
def test_each_input_moves_the_output(name):
    module = modules()[name]
    frames = frames_for(module)
    bars = bars_for(module) if module.takes_ticker else None
    base = run(module, frames, bars)["data"]
    rng = np.random.default_rng(5)
    unused = []
    for sid in sorted(frames.series):
        moved = Frames(now=frames.now, series={**frames.series, sid: _perturb(frames.series[sid], rng)},
                       data_source="sim")
        if run(module, moved, bars)["data"] == base:
            unused.append(sid)
    assert not unused, f"{name}: perturbing {unused} changes nothing in data"
    if module.takes_ticker:
        moved_bars = bars
        for column in ("open", "high", "low", "close"):
            moved_bars = _perturb(moved_bars, rng, column)
        assert run(module, frames, moved_bars)["data"] != base, f"{name}: the ticker's bars change nothing"


@pytest.mark.parametrize("name", ALL)
def test_perturbing_all_inputs_moves_most_figures(name):
    """Figures that stay put when every input is perturbed must be counts, dates or stated parameters:
    at least three in four non-integer figures have to move."""
    module = modules()[name]
    frames = frames_for(module)
    bars = bars_for(module) if module.takes_ticker else None
    base = _numbers(run(module, frames, bars))
    rng = np.random.default_rng(9)
    moved = Frames(now=frames.now, series={sid: _perturb(f, rng) for sid, f in frames.series.items()},
                   data_source="sim")
    if module.takes_ticker:
        for column in ("open", "high", "low", "close"):
            bars = _perturb(bars, rng, column)
    after = _numbers(run(module, moved, bars))
    fractional = [k for k, v in base.items() if isinstance(v, float) and not float(v).is_integer()]
    still = [k for k in fractional if k in after and after[k] == base[k]]
    assert len(still) <= len(fractional) / 4, f"{name}: unchanged under perturbation: {still}"


def test_figure_pattern_reads_signed_decimals():
    assert FIGURE.findall("down 1.5% to -0.25 bp, 12 days") == ["1.5", "-0.25", "12"]
    # a figure ending a sentence is read; one glued to a unit suffix (6.62x, 10y) is not read in part
    assert FIGURE.findall("it closed at 6. Then 6.62x the 10y mean") == ["6"]


@pytest.mark.parametrize(("text", "value", "holds"), [
    ("down 2.1% on the day", -2.1, True), ("down 2.1% on the day", 2.1, False),
    ("(up 7.0 bp on the month)", -7.0, False), ("It is -12.54% from its high", 12.54, False),
    ("+2.34 pp against CPI", -2.34, False), ("HY spread narrowed 12 bp", -12.0, True),
    ("plus 100.0 bp costs 8.43%", 100.0, False),  # the P&L of a rise must be a loss
    ("3.38% from its high", -3.38, True),  # no sign stated: a magnitude
])
def test_summary_figures_must_carry_the_sign_the_text_states(text, value, holds):
    data = {"x": value, "shock_bp": 100.0}
    if holds:
        figures_of_text_in_data(text, data)
    else:
        with pytest.raises(AssertionError, match="with that sign"):
            figures_of_text_in_data(text, data)
