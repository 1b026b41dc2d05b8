import pytest
from builders import check_payload, make_frames, market

from intel.envelope import InsufficientData
from intel.modules import market_intelligence
from intel.registry import modules


def test_calm_and_crisis_overviews():
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
