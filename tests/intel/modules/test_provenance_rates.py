"""Provenance of the rates_credit modules: key figures name the observations (or series) they rest on and
the operation that made them; no figure falls back to the module's whole input list."""
from datetime import timedelta

import numpy as np
from builders import NOW, bdays, make_frames, month_starts, series

from intel.catalog import TREASURY_TENORS
from intel.modules import (
    credit_spreads,
    credit_stress,
    curve_dynamics,
    duration_risk,
    fed_policy,
    real_yields,
    treasury_yields,
    yield_curve,
)
from tests.intel.provenance_checks import expanded


def _walks(ids, n=900, seed=1, start=3.0):
    """Each series an additive random walk in percent, 2 decimals as published."""
    dates, rng = bdays(n), np.random.default_rng(seed)
    return {sid: series(dates, np.round(start + 0.1 * i + np.cumsum(rng.normal(0, 0.04, n)), 2))
            for i, sid in enumerate(ids)}


def _no_module_fallback(payload):
    assert expanded(payload["provenance"]), "no figure filed"
    fallback = [p for p, e in expanded(payload["provenance"]).items() if e["attribution"] == "module"]
    assert not fallback, fallback


def _one(entry, sid):
    """The dates an entry names for series `sid`."""
    found = [i for i in entry["inputs"] if i["series"] == sid]
    assert len(found) == 1, entry
    return found[0].get("dates") or found[0]["through"]


def test_treasury_yields_levels_and_changes_name_their_observations():
    parts = _walks(TREASURY_TENORS)
    payload = treasury_yields.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov, dates = expanded(payload["provenance"]), parts["DGS10"]["date"]
    level = prov["tenors.10y.yield_pct"]
    assert level["attribution"] == "observation" and _one(level, "DGS10") == [NOW.isoformat()]
    day = prov["tenors.10y.change_1d_bp"]
    assert _one(day, "DGS10") == [NOW.isoformat(), dates[-2].isoformat()]
    assert day["recompute"] == {"kind": "difference", "scale": 100.0, "decimals": 1}
    month = prov["tenors.10y.change_1m_bp"]
    base = max(d for d in dates if d <= NOW - timedelta(days=30))
    assert _one(month, "DGS10") == [NOW.isoformat(), base.isoformat()]
    average = prov["average_change_1m_bp"]
    assert average["attribution"] == "series" and {i["series"] for i in average["inputs"]} == set(TREASURY_TENORS)
    assert "mean" in average["operation"]
    # which tenor moved most depends on every tenor's move: the figure names them all
    mover = prov["biggest_mover_1m.change_1m_bp"]
    assert {i["series"] for i in mover["inputs"]} == set(TREASURY_TENORS)


def test_yield_curve_slope_names_both_legs_and_a_zero_slope_is_flat():
    dates = bdays(300)
    # 10y under the 2y for a stretch, then exactly level with it: not inverted, and not positive either
    parts = {"DGS2": series(dates, [4.0] * 300), "DGS10": series(dates, [4.5] * 100 + [3.9] * 100 + [4.0] * 100),
             "DGS3MO": series(dates, [4.1] * 300), "DGS5": series(dates, [4.2] * 300)}
    payload = yield_curve.compute(make_frames(parts))
    _no_module_fallback(payload)
    slope = expanded(payload["provenance"])["slopes.2s10s_bp"]
    assert slope["attribution"] == "observation" and slope["operation"] == "DGS10 - DGS2 in bp"
    assert [i["series"] for i in slope["inputs"]] == ["DGS10", "DGS2"]
    assert _one(slope, "DGS10") == _one(slope, "DGS2") == [NOW.isoformat()]
    butterfly = expanded(payload["provenance"])["slopes.butterfly_2s5s10s_bp"]
    assert {i["series"] for i in butterfly["inputs"]} == {"DGS2", "DGS5", "DGS10"}
    assert payload["data"]["slopes"]["2s10s_bp"] == 0.0
    assert "2s10s is flat" in payload["summary"] and "2s10s is positive" not in payload["summary"]


def test_credit_spreads_gap_and_levels_name_their_observations():
    parts = _walks(("BAMLC0A0CM", "BAMLH0A0HYM2"), n=600)
    payload = credit_spreads.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov = expanded(payload["provenance"])
    gap = prov["hy_ig_gap_bp"]
    assert gap["attribution"] == "observation" and [i["series"] for i in gap["inputs"]] == ["BAMLH0A0HYM2",
                                                                                            "BAMLC0A0CM"]
    assert gap["recompute"] == {"kind": "difference", "scale": 100.0, "decimals": 0}
    assert prov["high_yield.oas_bp"]["recompute"] == {"kind": "level", "scale": 100.0, "decimals": 0}
    z = prov["high_yield.zscore_10y"]
    assert z["attribution"] == "series" and [i["series"] for i in z["inputs"]] == ["BAMLH0A0HYM2"]


def test_real_yields_real_rate_is_a_difference_and_the_forward_names_both_breakevens():
    parts = _walks(("DGS10", "T10YIE", "T5YIE"), n=600, start=2.0)
    payload = real_yields.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov = expanded(payload["provenance"])
    real = prov["real_10y.real_10y_pct"]
    assert real["attribution"] == "observation" and real["operation"] == "DGS10 - T10YIE"
    assert real["recompute"] == {"kind": "difference", "scale": 1.0, "decimals": 2}
    assert _one(real, "DGS10") == _one(real, "T10YIE") == [NOW.isoformat()]
    forward = prov["forward_5y5y.breakeven_5y5y_pct"]
    assert {i["series"] for i in forward["inputs"]} == {"T10YIE", "T5YIE"} and "5y5y" in forward["operation"]
    band = prov["forward_5y5y.anchor_band_pct.0"]
    assert band["inputs"] == [] and "stated parameter" in band["operation"]
    assert prov["nominal_10y_change_1m_decomposition.breakeven_part_bp"]["inputs"][0]["series"] == "T10YIE"


def test_duration_risk_volatility_is_scoped_and_shock_sizes_are_stated():
    parts = _walks(("DGS10", "DGS30"), n=600)
    payload = duration_risk.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov = expanded(payload["provenance"])
    vol = prov["10y.realized_vol_21d_bp_per_day"]
    assert vol["attribution"] == "series" and vol["inputs"] == [{"series": "DGS10", "through": NOW.isoformat()}]
    assert "21 daily changes" in vol["operation"]
    assert prov["30y.par_bond.coupon_pct"]["recompute"]["kind"] == "level"
    assert prov["30y.par_bond.shocks.plus_100bp.shock_bp"]["inputs"] == []
    assert prov["30y.par_bond.shocks.two_sigma_1d_up.shock_bp"]["inputs"][0]["series"] == "DGS30"


def test_curve_dynamics_leg_changes_name_the_common_dates():
    parts = _walks(("DGS2", "DGS10", "DGS30"), n=600)
    payload = curve_dynamics.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov, dates = expanded(payload["provenance"]), parts["DGS2"]["date"]
    base = max(d for d in dates if d <= NOW - timedelta(days=30)).isoformat()
    short = prov["segments.2s10s.horizons.1m.short_change_bp"]
    assert short["attribution"] == "observation" and _one(short, "DGS2") == [NOW.isoformat(), base]
    slope = prov["segments.10s30s.slope_bp"]
    assert [i["series"] for i in slope["inputs"]] == ["DGS30", "DGS10"] and slope["operation"] == "DGS30 - DGS10 in bp"
    change = prov["segments.2s10s.horizons.1m.slope_change_bp"]
    assert {i["series"] for i in change["inputs"]} == {"DGS2", "DGS10"} and change["attribution"] == "series"


def test_fed_policy_path_and_rule_name_their_inputs():
    mdates, ddates = month_starts(30), bdays(300)
    cpi = np.round(300 * 1.03 ** (np.arange(30) / 12), 3)
    parts = {"FEDFUNDS": series(mdates, np.full(30, 5.33)), "CPILFESL": series(mdates, cpi),
             "UNRATE": series(mdates, np.full(30, 4.0)), "DGS2": series(ddates, np.full(300, 4.33)),
             "DGS3MO": series(ddates, np.full(300, 5.38))}
    payload = fed_policy.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov = expanded(payload["provenance"])
    spread = prov["implied_path.2y.minus_funds_bp"]
    assert spread["attribution"] == "observation" and spread["operation"] == "DGS2 - FEDFUNDS in bp"
    assert _one(spread, "DGS2") == [NOW.isoformat()] and _one(spread, "FEDFUNDS") == [mdates[-1].isoformat()]
    yoy = prov["taylor_rule.core_cpi_yoy_pct"]
    assert yoy["recompute"]["kind"] == "pct_change" and _one(yoy, "CPILFESL") == [mdates[-1].isoformat(),
                                                                                   mdates[-13].isoformat()]
    gap = prov["taylor_rule.funds_minus_taylor_bp"]
    assert {i["series"] for i in gap["inputs"]} == {"FEDFUNDS", "CPILFESL", "UNRATE"}
    assert prov["taylor_rule.parameters.okun_coefficient"]["inputs"] == []
    # the implied path's yields are essential: the answer is dated by the 2y, not by the monthly funds rate
    assert payload["data_as_of"] == NOW.isoformat()


def test_credit_stress_composite_names_its_components_and_levels_their_observations():
    n = 800
    dates, rng = bdays(n), np.random.default_rng(4)
    fridays = [d for d in dates if d.weekday() == 4]
    parts = {"BAMLH0A0HYM2": series(dates, np.round(4 + np.cumsum(rng.normal(0, 0.03, n)), 2)),
             "VIXCLS": series(dates, np.round(16 + np.abs(np.cumsum(rng.normal(0, 0.3, n))), 2)),
             "ANFCI": series(fridays, np.round(np.cumsum(rng.normal(0, 0.05, len(fridays))), 5)),
             "STLFSI4": series(fridays, np.round(np.cumsum(rng.normal(0, 0.1, len(fridays))), 4))}
    payload = credit_stress.compute(make_frames(parts))
    _no_module_fallback(payload)
    prov = expanded(payload["provenance"])
    composite = prov["composite_zscore"]
    assert {i["series"] for i in composite["inputs"]} == set(parts) and "z-scores" in composite["operation"]
    level = prov["components.anfci.level"]
    assert level["attribution"] == "observation" and _one(level, "ANFCI") == [fridays[-1].isoformat()]
    assert prov["spread_momentum.change_1m_bp"]["recompute"]["kind"] == "difference"
    assert prov["resemblance_threshold"]["inputs"] == []
