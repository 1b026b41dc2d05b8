from datetime import date

import numpy as np
import pytest
import regime_reference as ref
from builders import check_payload, make_frames, market, stepped_market

from intel.envelope import InsufficientData
from intel.modules import market_intelligence
from intel.registry import modules
from tests.intel.provenance_checks import replay_inputs

# the regime each episode must read, and the side of zero its composite must fall on (risk-off)
EPISODES = {date(2008, 10, 10): "crisis", date(2013, 6, 24): "risk_off", date(2020, 3, 16): "crisis",
            date(2022, 6, 17): "risk_off"}


def test_worked_example_composite_scores_and_risks():
    data = market_intelligence.compute(make_frames(stepped_market()))["data"]
    # each part worked out from stepped_market's values, as COMPOSITE_METHOD states them
    equities = np.mean([(98.5 / ((199 * 100 + 98.5) / 200) - 1) * 100 / 10, -1.5 / 5])  # vs 200-day, 1m move
    volatility = np.mean([(20 - 24) / 10, -(24 / 22 - 1) * 100 / 25])  # VIX level and its 1-week change
    credit = np.mean([(4.5 - 4.6) / 2, -60 / 50])  # HY level and its 1m change in bp
    crypto = np.mean([(21000 / ((180 * 20000 + 20 * 21000) / 200) - 1) * 100 / 20, 5.0 / 15])
    dollar = 1.0 / 2  # up 1% over a month; counts inverted
    regime = 0.08 - 0.592 - 0.049  # P(risk_on) - P(risk_off) - P(crisis), worked in test_market_regime
    scores = {k: data["asset_classes"][k]["score"] for k in ("equities", "volatility", "crypto", "fx")}
    assert scores == {"equities": round(equities, 3), "volatility": round(volatility, 3), "crypto": round(crypto, 3),
                      "fx": 0.5}
    weighted = (0.3 * round(equities, 3) + 0.2 * round(volatility, 3) + 0.2 * credit + 0.1 * round(crypto, 3)
                - 0.1 * dollar + 0.1 * regime)
    assert data["composite_score"] == round(100 * weighted, 1)
    assert data["regime"]["state"] == "risk_off"
    # the dollar up 7.06% in 3 months (severity 7.06 / 10) and HY up 60 bp in a month (60 / 150); VIX 24 is
    # under the 25 that makes volatility a risk, HY at 4.6% under 5%
    assert [(r["risk"], r["severity"]) for r in data["top_risks"]] == [("dollar_surge", 0.71), ("credit_widening", 0.4)]
    assert data["moves_1m"] == {"sp500_change_1m_pct": -1.5, "nasdaq_change_1m_pct": -1.5,
                                "yield_10y_change_1m_bp": 30.0, "vix_change_1m_pts": 8.0, "hy_oas_change_1m_bp": 60.0,
                                "btc_usd_change_1m_pct": 5.0, "broad_dollar_change_1m_pct": 1.0,
                                "wti_usd_change_1m_pct": 0.0}


@pytest.mark.parametrize("day", EPISODES, ids=str)
def test_replayed_episodes_composite_recomputed_from_the_csvs(day):
    module = modules()["market_intelligence"]
    payload = market_intelligence.compute(replay_inputs(module, day)[0])
    assert not any(s["stale"] for s in payload["data_sources"]["series"])  # the reference scores full weights
    history = {sid: ref.replayed(sid, day, module.lookback_days) for sid in module.inputs}
    probs = ref.probabilities(ref.scores(ref.facts(history)))
    parts = ref.asset_scores(history)
    data = payload["data"]
    shown = {k: data["asset_classes"][k]["score"] for k in ("equities", "volatility", "crypto", "fx")}
    assert shown == {k: parts[k] for k in shown}
    assert data["regime"]["state"] == EPISODES[day]
    assert data["composite_score"] == round(ref.composite(parts, probs), 1) < 0


def test_calm_and_crisis_overviews():
    """Labels on the two extremes; the figures are checked against worked and replayed references above."""
    calm = market_intelligence.compute(make_frames(market("calm")))
    crisis = market_intelligence.compute(make_frames(market("crisis")))
    assert set(calm["data"]["asset_classes"]) == {"equities", "bonds", "crypto", "volatility", "fx"}
    assert calm["data"]["composite_score"] > 20 > -20 > crisis["data"]["composite_score"] >= -100
    assert calm["data"]["top_risks"] == []
    risks = {r["risk"] for r in crisis["data"]["top_risks"]}
    assert {"volatility", "credit_widening", "equity_drawdown"} <= risks
    assert crisis["data"]["key_levels"]["vix"] == 45.0
    assert crisis["data"]["moves_1m"]["hy_oas_change_1m_bp"] > 100
    for payload in (calm, crisis):
        check_payload(payload)


def test_registry_and_errors():
    registered = modules()
    for name in ("market_intelligence", "market_regime", "yield_curve", "credit_spreads", "vix", "bitcoin",
                 "fx_overview", "equity_indices", "inflation", "technical_analysis"):
        assert name in registered
    assert registered["market_regime"].tier == "P" and registered["technical_analysis"].takes_ticker
    with pytest.raises(InsufficientData):
        market_intelligence.compute(make_frames({}))


def test_every_module_raises_insufficient_on_empty_frames():
    """With no observations at all a module has nothing to say; the calendar's schedule comes from release
    rules, so it may still list the dates, naming every series it lacks."""
    for name, module in modules().items():
        if module.takes_ticker:
            continue
        if name == "economic_calendar":
            try:
                payload = module.compute(make_frames({}))
            except InsufficientData:
                continue
            assert payload["data_sources"]["missing"] == list(module.inputs) and payload["data_sources"]["series"] == []
            continue
        with pytest.raises(InsufficientData):
            module.compute(make_frames({}))
