"""Every module replayed over real history at four dates: every figure traced, every date at or before the
clock, exact figures recomputable from the history files, no figure moving with a series it does not name,
no sign word on a zero and no level shown with more decimals than its source."""
from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

import pytest

from intel.frames import Frames
from intel.pulse import PULSE_INPUTS, compute_pulse
from intel.registry import modules
from tests.history import history_dir
from tests.intel.provenance_checks import (
    compute,
    dates_named,
    expanded,
    figure_paths,
    precision_errors,
    provider,
    recompute_errors,
    replay_inputs,
    sign_word_errors,
    undeclared_dependencies,
)

DATES = (date(2008, 10, 10), date(2013, 6, 24), date(2020, 3, 16), date(2022, 6, 17))


@lru_cache(maxsize=len(DATES))
def replayed(day: date) -> dict[str, tuple]:
    """name -> (module, frames, bars, payload) for every module with enough history at `day`."""
    out = {}
    for name, module in sorted(modules().items()):
        frames, bars = replay_inputs(module, day)
        payload = compute(module, frames, bars)
        if payload is not None:
            out[name] = (module, frames, bars, payload)
    return out


@pytest.fixture(autouse=True)
def _history():
    history_dir()


@pytest.mark.parametrize("day", DATES, ids=str)
def test_every_figure_is_traced_to_observations_on_or_before_the_clock(day):
    faults = []
    for name, (_, _, _, payload) in replayed(day).items():
        paths, traced = set(figure_paths(payload)), set(expanded(payload["provenance"]))
        if paths != traced:
            faults.append(f"{name}: untraced {sorted(paths - traced)[:5]}, stray {sorted(traced - paths)[:5]}")
        late = [d for d in dates_named(payload) if d > day]
        if late:
            faults.append(f"{name}: names observations after the clock: {late[:3]}")
        module_wide = [p for p, e in expanded(payload["provenance"]).items() if e["attribution"] == "module"]
        if module_wide:
            faults.append(f"{name}: attributed only to the module's whole input list: {module_wide[:5]}")
        vague = [p for p, e in expanded(payload["provenance"]).items() if not e["operation"]]
        if vague:
            faults.append(f"{name}: no operation for {vague[:5]}")
    assert not faults, "\n".join(faults)


@pytest.mark.parametrize("day", DATES, ids=str)
def test_exact_figures_recompute_from_the_history_files(day):
    faults = []
    exact = 0
    for name, (_, _, _, payload) in replayed(day).items():
        exact += sum(1 for e in expanded(payload["provenance"]).values() if e["attribution"] == "observation")
        faults += [f"{name}: {e}" for e in recompute_errors(payload)]
    assert not faults, "\n".join(faults)
    assert exact >= 100, f"only {exact} figures are traced to named observations at {day}"


@pytest.mark.parametrize("day", DATES, ids=str)
def test_no_figure_moves_with_a_series_it_does_not_name(day):
    faults = []
    for name, (module, frames, bars, payload) in replayed(day).items():
        faults += [f"{name}: {f}" for f in undeclared_dependencies(module, frames, bars, payload)]
    assert not faults, "\n".join(faults[:40])


@pytest.mark.parametrize("day", DATES, ids=str)
def test_dates_say_what_they_mean(day):
    for name, (_, _, _, payload) in replayed(day).items():
        assert payload["as_of"] == day.isoformat(), name
        assert payload["data_as_of"] <= payload["as_of"], name
        lasts = [s["last_observation"] for s in payload["data_sources"]["series"]]
        assert payload["data_as_of"] in lasts, f"{name}: data_as_of is not the last date of any input"


@pytest.mark.parametrize("day", DATES, ids=str)
def test_wording_has_no_sign_on_a_zero_and_no_false_precision(day):
    faults = []
    for name, (_, _, _, payload) in replayed(day).items():
        faults += [f"{name}: {e}" for e in sign_word_errors(payload) + precision_errors(payload)]
    pulse = replay_pulse(day)
    faults += [f"pulse: {e}" for e in sign_word_errors({"summary": " ".join(pulse["regime"]["rationale"])})]
    assert not faults, "\n".join(faults)


def test_every_module_is_replayed_at_one_date_at_least():
    seen = set().union(*(replayed(day) for day in DATES))
    assert seen == set(modules()), f"never replayed: {sorted(set(modules()) - seen)}"


def replay_pulse(day: date) -> dict:
    frames = Frames.from_long(provider().observations(PULSE_INPUTS, day - timedelta(days=3700), day), day, "replay")
    return compute_pulse(frames, [])


def test_the_pulse_is_traced_and_recomputes():
    pulse = replay_pulse(date(2022, 6, 17))
    figures = figure_paths({"data": {k: pulse[k] for k in ("regime", "signals", "correlation_alerts",
                                                           "composite_score")}})
    assert set(figures) == set(expanded(pulse["provenance"]))
    assert pulse["data_as_of"] == "2022-06-16" and pulse["as_of"] == "2022-06-17"
    slope = expanded(pulse["provenance"])["signals.bonds.key_figures.slope_2s10s_bp"]
    assert [i["series"] for i in slope["inputs"]] == ["DGS10", "DGS2"] and slope["attribution"] == "observation"
    assert not recompute_errors({"data": {k: pulse[k] for k in ("signals",)}, "provenance": {
        k: v for k, v in pulse["provenance"].items() if k.startswith("signals.")}})


def test_the_issue_examples():
    """vix and credit_spreads at 2008-10-10 name the 9th's close; XLK at 2022-06-17 is an adjusted close."""
    vix = replayed(date(2008, 10, 10))["vix"][3]
    assert vix["as_of"] == "2008-10-10" and vix["data_as_of"] == "2008-10-09"
    assert vix["data"]["level"] == 63.92
    assert expanded(vix["provenance"])["level"]["inputs"] == [{"series": "VIXCLS", "dates": ["2008-10-09"]}]
    credit = replayed(date(2008, 10, 10))["credit_spreads"][3]
    assert credit["data_as_of"] == "2008-10-09"
    assert expanded(credit["provenance"])["high_yield.oas_bp"]["inputs"][0]["series"] == "BAMLH0A0HYM2"
    ta = replayed(date(2022, 6, 17))["technical_analysis"][3]
    assert "close" not in ta["data"] and ta["data"]["adjustment"] == "split- and dividend-adjusted"
    assert ta["data"]["adj_close"] == round(ta["data"]["adj_close"], 2)
    assert "closed at" not in ta["summary"] and "adjusted close" in ta["summary"]
