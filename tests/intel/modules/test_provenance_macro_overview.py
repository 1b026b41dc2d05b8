"""Provenance of the macro and overview modules (economic_surprise, consumer, macro_regime, housing, liquidity,
market_regime, market_intelligence, risk_dashboard, market_summary) on a simulated market: key figures name
the right series, observations and operation, and no figure is left on the module's whole input list."""
from datetime import date, timedelta
from functools import lru_cache

import pytest

from intel.frames import Frames
from intel.providers.sim import SimProvider
from intel.registry import modules
from tests.intel.provenance_checks import expanded

NOW = date(2026, 11, 20)
MODULES = ("economic_surprise", "consumer", "macro_regime", "housing", "liquidity", "market_regime",
           "market_intelligence", "risk_dashboard", "market_summary")


@lru_cache(maxsize=16)
def payload(name: str) -> dict:
    module = modules()[name]
    start = NOW - timedelta(days=module.lookback_days)
    return module.compute(Frames.from_long(SimProvider(seed=7).observations(module.inputs, start, NOW), NOW, "sim"))


def entry(name: str, path: str) -> dict:
    return expanded(payload(name)["provenance"])[path]


def series_of(e: dict) -> list[str]:
    return [i["series"] for i in e["inputs"]]


def last_date(name: str, series_id: str) -> str:
    return next(s["last_observation"] for s in payload(name)["data_sources"]["series"] if s["id"] == series_id)


@pytest.mark.parametrize("name", MODULES)
def test_no_figure_rests_on_the_whole_module(name):
    assert [p for p, e in expanded(payload(name)["provenance"]).items() if e["attribution"] == "module"] == []


def test_latest_changes_and_levels_name_their_observations():
    payroll = entry("economic_surprise", "releases.PAYEMS.actual_change_thousands")
    assert payroll["attribution"] == "observation" and series_of(payroll) == ["PAYEMS"]
    assert len(payroll["inputs"][0]["dates"]) == 2 and payroll["recompute"]["kind"] == "difference"
    level = entry("consumer", "sentiment.level_index")
    assert level["attribution"] == "observation"
    assert level["inputs"] == [{"series": "UMCSENT", "dates": [last_date("consumer", "UMCSENT")]}]
    rate = entry("housing", "mortgage_rate_30y.change_1y_bp")
    assert rate["attribution"] == "observation" and rate["recompute"] == {"kind": "difference", "scale": 100.0,
                                                                          "decimals": 0}
    assets = entry("liquidity", "fed_balance_sheet.total_assets_bn")
    assert assets["inputs"] == [{"series": "WALCL", "dates": [last_date("liquidity", "WALCL")]}]
    assert assets["recompute"]["scale"] == pytest.approx(1 / 1000)


def test_composites_rest_on_the_series_they_combine():
    gap = entry("consumer", "inflation_expectations_1y.gap_to_cpi_yoy_pp")
    assert series_of(gap) == ["MICH", "CPIAUCSL"] and gap["attribution"] == "series"
    assert "CPI" in gap["operation"]
    assert series_of(entry("liquidity", "net_liquidity.level_bn")) == ["WALCL", "RRPONTSYD"]
    assert series_of(entry("housing", "affordability.payment_change_1y_pct")) == ["MORTGAGE30US", "CSUSHPINSA"]
    index = entry("economic_surprise", "surprise_index")
    assert set(series_of(index)) == set(payload("economic_surprise")["data"]["releases"])
    assert index["operation"].startswith("mean of the oriented surprise z-scores")
    growth = entry("macro_regime", "growth.score_z")
    assert set(series_of(growth)) <= {"INDPRO", "PAYEMS", "CFNAI"} and series_of(growth)
    assert set(series_of(entry("macro_regime", "probabilities.stagflation"))) == \
        set(series_of(growth)) | set(series_of(entry("macro_regime", "inflation.score_z")))


def test_regime_facts_are_exact_and_probabilities_rest_on_every_scored_series():
    vix = entry("market_regime", "facts.vix")
    assert vix["attribution"] == "observation" and series_of(vix) == ["VIXCLS"]
    curve = entry("market_regime", "facts.curve_2s10s_bp")
    assert curve["attribution"] == "observation" and curve["recompute"]["scale"] == 100.0
    probability = entry("market_regime", "probabilities.risk_on")
    assert probability["operation"] == "softmax of the state scores"
    assert {"SP500", "VIXCLS", "BAMLH0A0HYM2", "DTWEXBGS"} <= set(series_of(probability))
    assert "DGS10" not in series_of(probability) or "T10Y2Y" not in series_of(probability)
    slope = entry("market_intelligence", "asset_classes.bonds.key_figures.slope_2s10s_bp")
    assert slope["attribution"] == "observation" and series_of(slope) == ["DGS10", "DGS2"]
    assert series_of(entry("market_intelligence", "asset_classes.crypto.score")) == ["CBBTCUSD"]
    assert entry("market_intelligence", "key_levels.vix")["attribution"] == "observation"


def test_overview_tables_name_their_closes():
    change = entry("market_summary", "assets.sp500.change_1d_pct")
    assert change["attribution"] == "observation" and change["recompute"]["kind"] == "pct_change"
    assert change["inputs"][0]["dates"][0] == last_date("market_summary", "SP500")
    high = entry("market_summary", "assets.treasury_10y_yield.from_52w_high_bp")
    assert high["attribution"] == "observation" and series_of(high) == ["DGS10"]
    vix = entry("risk_dashboard", "gauges.volatility.components.VIXCLS.level")
    assert vix["attribution"] == "observation" and series_of(vix) == ["VIXCLS"]
    overall = entry("risk_dashboard", "overall.risk_score")
    ranked = [sid for g in payload("risk_dashboard")["data"]["gauges"].values() for sid in g["components"]]
    assert series_of(overall) == ranked
