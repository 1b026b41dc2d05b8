"""Tag detection thresholds, one state at a time."""
from __future__ import annotations

from intel.parallels.tags import EVENT_TAGS, STATE_TAGS, VOCABULARY, state_tags


def state(**values) -> dict:
    figures = {name: {"value": v, "series": "X"} for name, v in values.items()}
    if "volatility" in figures:
        figures["volatility"]["series"] = values.get("vol_series", "VIXCLS")
    figures.pop("vol_series", None)
    return figures


def test_thresholds():
    assert state_tags(state(sp500_drawdown_pct=-9.9)) == []
    assert state_tags(state(sp500_drawdown_pct=-10.0)) == ["equity_correction"]
    assert state_tags(state(sp500_drawdown_pct=-25.0)) == ["equity_correction", "bear_market"]
    assert state_tags(state(curve_slope_pp=-0.01, hy_spread_pct=6.0)) == ["inverted_curve", "credit_stress"]
    assert state_tags(state(inflation_yoy_pct=5.0, oil_change_12m_pct=-40.0)) == ["high_inflation", "oil_collapse"]


def test_volatility_bars_depend_on_the_measure():
    assert state_tags(state(volatility=28.0)) == []
    assert state_tags(state(volatility=28.0, vol_series="SHILLER_SP500")) == ["high_volatility"]
    assert state_tags(state(volatility=12.0)) == ["low_volatility"]
    assert state_tags(state(volatility=12.0, vol_series="SP500")) == []


def test_absent_figures_meet_no_threshold():
    assert state_tags({name: {"value": None, "reason": "absent"} for name in
                       ("sp500_drawdown_pct", "volatility", "curve_slope_pp", "inflation_yoy_pct")}) == []


def test_vocabulary_is_both_kinds_without_overlap():
    assert not set(STATE_TAGS) & set(EVENT_TAGS) and VOCABULARY == set(STATE_TAGS) | set(EVENT_TAGS)
