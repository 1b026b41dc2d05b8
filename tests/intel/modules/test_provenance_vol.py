"""Provenance of the volatility and regime modules: every figure names the series it rests on (no fallback to
the module's whole input list), key figures name the right observations and operation, and no figure moves
with a series it does not name. Run on the simulated provider (VIX3M included, which the replay history
lacks) and on constructed frames."""
from __future__ import annotations

import sys
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path

import pytest
from builders import bdays, make_frames, series

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/intel: the shared provenance checks

from provenance_checks import attribution_counts, expanded, sign_word_errors, undeclared_dependencies  # noqa: E402

from intel.frames import Frames  # noqa: E402
from intel.modules import vix_term_structure, vol_of_vol  # noqa: E402
from intel.providers.sim import SimProvider  # noqa: E402
from intel.registry import modules  # noqa: E402

MODULES = ("vol_of_vol", "volatility_risk_premium", "cross_asset_volatility", "vix_term_structure",
           "volatility_regime", "tail_risk", "regime_transition", "signal_composite", "crash_risk")
NOW = date(2024, 7, 1)


@lru_cache(maxsize=16)
def sim_payload(name: str):
    module = modules()[name]
    frames = Frames.from_long(SimProvider().observations(module.inputs, NOW - timedelta(days=module.lookback_days),
                                                         NOW), NOW, "sim")
    return module, frames, module.compute(frames)


def entry(payload: dict, path: str) -> tuple[dict, dict]:
    """(provenance entry, {series: dates or through}) of one figure."""
    found = expanded(payload["provenance"])[path]
    return found, {i["series"]: i.get("dates", i.get("through")) for i in found["inputs"]}


@pytest.mark.parametrize("name", MODULES)
def test_every_figure_names_its_series_and_no_other_moves_it(name):
    module, frames, payload = sim_payload(name)
    assert attribution_counts(payload)["module"] == 0, [
        k for k, v in expanded(payload["provenance"]).items() if v["attribution"] == "module"]
    assert undeclared_dependencies(module, frames, None, payload) == []
    assert sign_word_errors(payload) == []


def test_term_structure_ratio_and_spread_are_the_last_shared_closes():
    _, frames, payload = sim_payload("vix_term_structure")
    ts = payload["data"]["term_structure"]
    ratio, inputs = entry(payload, "term_structure.ratio")
    assert ratio["attribution"] == "observation" and ratio["recompute"]["kind"] == "ratio"
    assert inputs == {"VIXCLS": [ts["date"]], "VXVCLS": [ts["date"]]}
    spread, inputs = entry(payload, "term_structure.spread_pts")
    assert spread["recompute"] == {"kind": "difference", "scale": 1.0, "decimals": 2}
    assert list(inputs) == ["VXVCLS", "VIXCLS"]  # VIX3M minus VIX
    assert entry(payload, "term_structure.ratio_percentile_10y")[1] == {
        "VIXCLS": frames.last_date("VIXCLS").isoformat(), "VXVCLS": frames.last_date("VXVCLS").isoformat()}
    assert entry(payload, "bands.backwardation_at_or_above")[1] == {}  # a rule of the method, no series
    # VIX3M measured: it counts toward data_as_of
    assert payload["data_as_of"] == max(frames.last_date("VIXCLS"), frames.last_date("VXVCLS")).isoformat()


def test_constructed_term_structure_names_both_closes_at_the_shared_date():
    dates = bdays(300)
    payload = vix_term_structure.compute(make_frames({"VIXCLS": series(dates, [16.0] * 290 + [22.0] * 10),
                                                      "VXVCLS": series(dates[:-1], [20.0] * 299)}))
    ts = payload["data"]["term_structure"]
    assert ts["ratio"] == 1.1 and ts["date"] == dates[-2].isoformat()
    _, inputs = entry(payload, "term_structure.vix")
    assert inputs == {"VIXCLS": [dates[-2].isoformat()]}
    _, inputs = entry(payload, "vix_level")  # the level is VIX's own last close
    assert inputs == {"VIXCLS": [dates[-1].isoformat()]}


def test_largest_vix_move_is_the_two_closes_it_joins():
    dates = bdays(300)
    values = [18.0] * 290 + [18.0, 18.5, 27.0, 26.0, 25.0, 24.0, 23.0, 22.0, 21.0, 20.0]
    payload = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, values)}))
    move, inputs = entry(payload, "largest_move_21d_pct")
    assert payload["data"]["largest_move_21d_pct"] == round((27 / 18.5 - 1) * 100, 2)
    assert move["recompute"]["kind"] == "pct_change"
    assert inputs == {"VIXCLS": [dates[-8].isoformat(), dates[-9].isoformat()]}
    assert payload["data"]["largest_move_21d_date"] == dates[-8].isoformat()
    vol, inputs = entry(payload, "vol_of_vol_21d_pct")
    assert vol["attribution"] == "series" and "21 daily VIX log changes" in vol["operation"]


def test_premium_names_the_sp500_alone_for_realized_vol_and_both_for_the_premium():
    _, _, payload = sim_payload("volatility_risk_premium")
    assert set(entry(payload, "realized_vol_21d_pct")[1]) == {"SP500"}
    premium, inputs = entry(payload, "trailing.vrp_21d_pts")
    assert set(inputs) == {"VIXCLS", "SP500"} and "VIX minus" in premium["operation"]
    vix, inputs = entry(payload, "vix")
    assert vix["attribution"] == "observation" and inputs == {"VIXCLS": [payload["data"]["date"]]}


def test_tail_risk_var_is_one_daily_return_and_gauges_name_their_series():
    _, frames, payload = sim_payload("tail_risk")
    var, inputs = entry(payload, "window_1y.var_95_1d_pct")
    assert var["recompute"]["kind"] == "pct_change" and list(inputs) == ["SP500"]
    later, earlier = (date.fromisoformat(d) for d in inputs["SP500"])
    closes = dict(zip(frames.get("SP500")["date"].to_list(), frames.get("SP500")["value"].to_list(), strict=True))
    assert payload["data"]["window_1y"]["var_95_1d_pct"] == round((closes[later] / closes[earlier] - 1) * 100, 3)
    assert entry(payload, "stress_composite.components.vix.value")[0]["attribution"] == "observation"
    assert set(entry(payload, "stress_composite.components.hy_oas_pct.percentile_10y")[1]) == {"BAMLH0A0HYM2"}
    assert set(entry(payload, "stress_composite.score")[1]) == {"SP500", "VIXCLS", "BAMLH0A0HYM2"}


def test_regime_facts_are_the_observations_the_rules_read():
    _, _, payload = sim_payload("regime_transition")
    change, inputs = entry(payload, "facts_today.hy_oas_change_1m_bp")
    assert change["recompute"] == {"kind": "difference", "scale": 100.0, "decimals": 2}
    now, then = (date.fromisoformat(d) for d in inputs["BAMLH0A0HYM2"])
    assert 30 <= (now - then).days <= 40
    table, inputs = entry(payload, "transition_next_day.crisis.to_crisis")
    assert set(inputs) == set(payload["data"]["sample"]["inputs_used"]) and "next session" in table["operation"]


def test_composite_signals_name_their_own_input():
    _, _, payload = sim_payload("signal_composite")
    assert set(entry(payload, "strategies.vix_contrarian.signal")[1]) == {"VIXCLS"}
    assert set(entry(payload, "strategies.vix_contrarian.hit_rate_pct")[1]) == {"VIXCLS", "SP500"}
    assert set(entry(payload, "composite")[1]) == {"SP500", "VIXCLS", "BAMLH0A0HYM2", "T10Y2Y"}


def test_crash_components_name_their_series():
    _, _, payload = sim_payload("crash_risk")
    curve, inputs = entry(payload, "curve_2s10s_bp")
    assert curve["recompute"] == {"kind": "level", "scale": 100.0, "decimals": 0} and list(inputs) == ["T10Y2Y"]
    assert all(s.startswith("XL") for s in entry(payload, "components.breadth_weakness.value")[1])
    assert set(entry(payload, "components.vix_zscore_1y.value")[1]) == {"VIXCLS"}


def test_volatility_regime_state_history_names_vix():
    _, _, payload = sim_payload("volatility_regime")
    assert entry(payload, "vix")[0]["attribution"] == "observation"
    assert set(entry(payload, "transition_21d.low.to_low")[1]) == {"VIXCLS"}
    assert set(entry(payload, "sp500_forward_by_state.low.mean_return_next_21d_pct")[1]) == {"VIXCLS", "SP500"}
    assert entry(payload, "thresholds.low_below")[1] == {}


def test_cross_asset_blocks_name_their_own_series():
    _, _, payload = sim_payload("cross_asset_volatility")
    assert set(entry(payload, "rates.realized_vol_21d_bp_per_day")[1]) == {"DGS10"}
    current = {d["series"] for d in payload["data"].values() if isinstance(d, dict) and d.get("stale") is False}
    assert set(entry(payload, "cross_asset.mean_percentile_21d_10y")[1]) == current
