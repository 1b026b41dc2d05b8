import math
from datetime import date

import pytest
import regime_reference as ref
from builders import check_payload, make_frames, market, stepped_market

from intel.envelope import InsufficientData
from intel.modules import market_regime
from intel.registry import modules
from tests.intel.provenance_checks import replay_inputs

# the state each episode must read (the S&P 500 history starts in 2016: the first two rest on VIX, credit,
# the curve and the dollar): Lehman's aftermath, the taper tantrum, the Covid crash, the 2022 bear market
EPISODES = {date(2008, 10, 10): "crisis", date(2013, 6, 24): "risk_off", date(2020, 3, 16): "crisis",
            date(2022, 6, 17): "risk_off"}


def test_worked_example_scores_probabilities_and_margin():
    data = market_regime.compute(make_frames(stepped_market()))["data"]
    sma200 = (199 * 100 + 98.5) / 200
    assert data["facts"] == {"sp500_vs_sma200_pct": round((98.5 / sma200 - 1) * 100, 2), "sp500_drawdown_1y_pct": -1.5,
                             "vix": 24.0, "vix_percentile_1y": 100.0, "hy_oas_pct": 4.6, "hy_oas_change_1m_bp": 60.0,
                             "curve_2s10s_bp": 50.0, "yield_10y_change_1m_bp": 30.0, "yield_2y_change_1m_bp": 0.0,
                             "dollar_change_3m_pct": 7.06,
                             # no shock: the VIX 28% above its 20-close average (under 50%), the spread flat in a week
                             "vix_vs_20d_avg_pct": 28.34, "hy_oas_change_1w_bp": 0.0}
    scores = {"risk_on": 0.5,  # S&P 500 1.5% off its 1-year high (within 5%)
              "neutral": 0.5 + 1.0 + 0.25,  # S&P within 2% of its average; HY at 4.6%; curve +50 bp
              "risk_off": 1.0 + 0.5 + 0.5 + 0.5,  # VIX 24; VIX atop its year; HY +60 bp; dollar +7.06% in 3m
              "crisis": 0.0}
    assert data["scores"] == scores and data["facts_used"] == 8
    total = sum(math.exp(v) for v in scores.values())
    probs = {s: round(math.exp(v) / total, 3) for s, v in scores.items()}
    assert data["probabilities"] == probs == {"risk_on": 0.08, "neutral": 0.28, "risk_off": 0.592, "crisis": 0.049}
    assert (data["state"], data["runner_up"]) == ("risk_off", "neutral")
    assert data["margin_over_runner_up"] == round(0.592 - 0.28, 3)
    assert data["rationale"][0] == "VIX at 24.0, elevated (20 to 30) -> risk_off"  # the heaviest rule first


@pytest.mark.parametrize("day", EPISODES, ids=str)
def test_replayed_episodes_match_the_rules_recomputed_from_the_csvs(day):
    module = modules()["market_regime"]
    payload = market_regime.compute(replay_inputs(module, day)[0])
    assert not any(s["stale"] for s in payload["data_sources"]["series"])  # the reference scores full weights
    facts = ref.facts({sid: ref.replayed(sid, day, module.lookback_days) for sid in module.inputs})
    data = payload["data"]
    assert {k: v for k, v in data["facts"].items() if k in ref.BANDS} == pytest.approx(facts, abs=0.0051)
    scores = ref.scores(facts)
    probs = ref.probabilities(scores)
    assert data["scores"] == {s: round(v, 2) for s, v in scores.items()}
    assert data["probabilities"] == {s: round(p, 3) for s, p in probs.items()}
    assert data["state"] == max(probs, key=probs.get) == EPISODES[day]
    assert payload["signals"][0]["direction"] == "bearish"


def test_calm_market_is_risk_on_and_crisis_is_crisis():
    calm = market_regime.compute(make_frames(market("calm")))
    crisis = market_regime.compute(make_frames(market("crisis")))
    assert calm["data"]["state"] == "risk_on" and calm["signals"][0]["direction"] == "bullish"
    assert crisis["data"]["state"] == "crisis" and crisis["signals"][0]["urgency"] == "critical"
    for payload in (calm, crisis):
        check_payload(payload)
    assert any("VIX at 45.0" in r for r in crisis["data"]["rationale"])


def test_missing_inputs_degrade_and_all_missing_raises():
    parts = market("calm")
    del parts["BAMLH0A0HYM2"], parts["DTWEXBGS"]
    payload = market_regime.compute(make_frames(parts))
    assert {"hy_oas_pct", "dollar_change_3m_pct"} <= set(payload["data"]["missing_facts"])
    # an essential input missing costs a quarter of the confidence, a supporting one a twentieth
    state = payload["data"]["state"]
    assert payload["signals"][0]["confidence"] == round(payload["data"]["probabilities"][state] * (1 - 0.25 - 0.05), 2)
    check_payload(payload)
    with pytest.raises(InsufficientData):
        market_regime.compute(make_frames({"DGS10": parts["DGS10"]}))
