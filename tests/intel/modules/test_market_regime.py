import numpy as np
import pytest
from builders import check_payload, make_frames, market

from intel.envelope import InsufficientData
from intel.modules import market_regime


def test_calm_market_is_risk_on_and_crisis_is_crisis():
    calm = market_regime.compute(make_frames(market("calm")))
    crisis = market_regime.compute(make_frames(market("crisis")))
    assert calm["data"]["state"] == "risk_on" and calm["signals"][0]["direction"] == "bullish"
    assert crisis["data"]["state"] == "crisis" and crisis["signals"][0]["urgency"] == "critical"
    for payload in (calm, crisis):
        data = payload["data"]
        scores = np.array([data["scores"][s] for s in ("risk_on", "neutral", "risk_off", "crisis")])
        soft = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        got = [data["probabilities"][s] for s in ("risk_on", "neutral", "risk_off", "crisis")]
        assert got == pytest.approx(soft, abs=0.002) and sum(got) == pytest.approx(1, abs=0.003)
        assert data["facts_used"] == len(data["rationale"]) > 0
        check_payload(payload)
    assert any("VIX at 45.0" in r for r in crisis["data"]["rationale"])


def test_missing_inputs_degrade_and_all_missing_raises():
    parts = market("calm")
    del parts["BAMLH0A0HYM2"], parts["DTWEXBGS"]
    payload = market_regime.compute(make_frames(parts))
    assert {"hy_oas_pct", "dollar_change_3m_pct"} <= set(payload["data"]["missing_facts"])
    full = market_regime.compute(make_frames(market("calm")))
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        market_regime.compute(make_frames({"DGS10": parts["DGS10"]}))
