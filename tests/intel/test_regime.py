import sys
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "modules"))
from builders import NOW, make_frames, market, series  # noqa: E402

from intel.regime import STATES, classify, regime_facts, softmax  # noqa: E402


def test_states_from_constructed_markets():
    calm, crisis = classify(make_frames(market("calm"))), classify(make_frames(market("crisis")))
    assert calm["state"] == "risk_on" and crisis["state"] == "crisis"
    assert crisis["probabilities"]["crisis"] > 0.5 > calm["probabilities"]["crisis"]
    assert crisis["rationale"][0].endswith("-> crisis")  # sorted by points: the heaviest fact first


def test_facts_match_hand_computation():
    parts = market("crisis")
    facts = regime_facts(make_frames(parts))
    spx = parts["SP500"]["value"].to_numpy()
    assert facts["sp500_vs_sma200_pct"] == pytest.approx((spx[-1] / spx[-200:].mean() - 1) * 100)
    assert facts["vix"] == 45.0 and facts["curve_2s10s_bp"] == pytest.approx(-30.0)
    hy = parts["BAMLH0A0HYM2"]
    base = hy.filter(hy["date"] <= NOW - timedelta(days=30))["value"][-1]
    assert facts["hy_oas_change_1m_bp"] == pytest.approx((8.5 - base) * 100)


def test_stale_inputs_count_half_and_missing_are_listed():
    parts = market("crisis")
    fresh = classify(make_frames(parts))
    vix = parts["VIXCLS"]
    # the same VIX level, but the series stopped 30 business days ago
    parts["VIXCLS"] = series(vix["date"].to_list()[:-30], [45.0] * (vix.height - 30))
    stale = classify(make_frames(parts))
    assert any("stale input, half weight" in r for r in stale["rationale"])
    assert stale["scores"]["crisis"] < fresh["scores"]["crisis"]
    del parts["DTWEXBGS"]
    assert "dollar_change_3m_pct" in classify(make_frames(parts))["missing_facts"]


def test_softmax_and_empty():
    probs = softmax({"a": 1.0, "b": 1.0})
    assert probs == {"a": 0.5, "b": 0.5}
    empty = classify(make_frames({}))
    assert empty["rationale"] == [] and set(empty["probabilities"]) == set(STATES)
    assert empty["probabilities"]["neutral"] == pytest.approx(0.25) and empty["state"] == "neutral"
