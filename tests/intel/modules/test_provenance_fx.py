"""Provenance of the FX and commodities modules: key figures name the right observations or series and say
how they were made; nothing falls back to the module's whole input list."""
import numpy as np
import pytest
from builders import bdays, make_frames, month_starts, random_walk, series

from intel.modules import (
    commodities_overview,
    copper_gold_ratio,
    dollar_strength,
    em_fx_stress,
    fx_carry,
    fx_overview,
    fx_volatility,
    oil,
    safe_havens,
)
from tests.intel.provenance_checks import expanded

N = 900
DATES = bdays(N)


def _daily(seed, start, step=0.005):
    return series(DATES, random_walk(N, start, step, seed))


def _fx_parts():
    return {"DEXUSEU": _daily(1, 1.1), "DEXJPUS": _daily(2, 140), "DEXMXUS": _daily(3, 18),
            "DEXCHUS": _daily(4, 7.1, 0.002), "DTWEXBGS": _daily(5, 120, 0.003),
            "DGS3MO": series(DATES, 4 + np.cumsum(np.random.default_rng(6).normal(0, 0.01, N))),
            "DGS10": series(DATES, 4 + np.cumsum(np.random.default_rng(7).normal(0, 0.03, N))),
            "DEXSZUS": _daily(8, 0.9), "SP500": _daily(9, 4000, 0.01),
            "FEDFUNDS": series(month_starts(40), np.linspace(5.3, 4.3, 40))}


def _no_fallback(payload):
    assert expanded(payload["provenance"]), "a payload with figures has provenance"
    fallback = [k for k, v in expanded(payload["provenance"]).items() if v["attribution"] == "module"]
    assert not fallback, f"figures attributed to the whole module: {fallback}"


def _named(entry):
    return {i["series"] for i in entry["inputs"]}


def test_dollar_strength_level_and_changes_name_their_observations():
    parts = _fx_parts()
    payload = dollar_strength.compute(make_frames({"DTWEXBGS": parts["DTWEXBGS"]}))
    prov, last = expanded(payload["provenance"]), DATES[-1].isoformat()
    assert prov["level"]["inputs"] == [{"series": "DTWEXBGS", "dates": [last]}]
    assert prov["level"]["attribution"] == "observation"
    change = prov["change_1d_pct"]
    assert change["recompute"]["kind"] == "pct_change" and change["inputs"][0]["dates"] == [last, DATES[-2].isoformat()]
    values = parts["DTWEXBGS"]["value"].to_numpy()
    assert payload["data"]["momentum"]["return_3m_pct"] == pytest.approx(round((values[-1] / values[-64] - 1) * 100, 2))
    assert prov["momentum.return_3m_pct"]["inputs"][0]["dates"] == [last, DATES[-64].isoformat()]
    assert prov["trend.sma_200"]["attribution"] == "series" and _named(prov["trend.sma_200"]) == {"DTWEXBGS"}
    # a threshold is a setting: it rests on no observation
    assert prov["trend_band_pct"]["inputs"] == [] and "setting" in prov["trend_band_pct"]["operation"]
    _no_fallback(payload)


def test_fx_overview_dollar_move_is_the_exact_inverse_of_named_quotes():
    parts = _fx_parts()
    payload = fx_overview.compute(make_frames({k: parts[k] for k in ("DEXUSEU", "DEXJPUS", "DTWEXBGS")}))
    prov = expanded(payload["provenance"])
    eur = prov["pairs.EURUSD.usd_change_1m_pct"]
    assert eur["attribution"] == "observation" and eur["recompute"]["kind"] == "pct_change"
    then, last = eur["inputs"][0]["dates"]
    assert then < last == DATES[-1].isoformat()  # the earlier quote over the last: the dollar's move
    assert prov["pairs.USDJPY.level"]["inputs"] == [{"series": "DEXJPUS", "dates": [DATES[-1].isoformat()]}]
    assert _named(prov["usd_vs_fresh_pairs_avg_change_1m_pct"]) == {"DEXUSEU", "DEXJPUS"}
    _no_fallback(payload)


def test_fx_overview_says_flat_for_a_zero_move():
    flat = series(DATES, np.full(N, 120.0))
    payload = fx_overview.compute(make_frames({"DTWEXBGS": flat, "DEXUSEU": series(DATES, np.full(N, 1.1))}))
    assert payload["data"]["broad_dollar"]["change_1m_pct"] == 0
    assert "flat over a month" in payload["summary"] and "0.0%" not in payload["signals"][0]["reason"]


def test_fx_carry_rate_leg_and_spot_returns_name_their_observations():
    payload = fx_carry.compute(make_frames(_fx_parts()))
    prov = expanded(payload["provenance"])
    spread = prov["us_leg.bill_minus_fed_funds_bp"]
    assert spread["attribution"] == "observation" and spread["operation"] == "DGS3MO - FEDFUNDS in bp"
    assert _named(spread) == {"DGS3MO", "FEDFUNDS"}
    jpy = prov["pairs.USDJPY.spot_return_1y_pct"]
    assert _named(jpy) == {"DEXJPUS"} and "JPY per USD" in jpy["operation"]
    assert _named(prov["pairs.USDJPY.breakeven_foreign_rate_1y_pct"]) == {"DGS3MO", "DEXJPUS"}
    assert _named(prov["best_spot_1y_pct"]) == {"DEXUSEU", "DEXJPUS", "DEXMXUS", "DEXCHUS", "DEXSZUS"}
    _no_fallback(payload)


def test_fx_volatility_maximum_names_every_pair_it_was_taken_among():
    parts = _fx_parts()
    payload = fx_volatility.compute(make_frames({k: parts[k] for k in ("DEXUSEU", "DEXJPUS", "DEXMXUS")}))
    prov = expanded(payload["provenance"])
    assert _named(prov["most_volatile_vol_21d_pct"]) == {"DEXUSEU", "DEXJPUS", "DEXMXUS"}
    assert _named(prov["pairs.USDJPY.realized_vol_21d_pct"]) == {"DEXJPUS"}
    _no_fallback(payload)


def test_em_fx_stress_score_rests_on_its_components():
    parts = _fx_parts()
    payload = em_fx_stress.compute(make_frames({k: parts[k] for k in ("DEXMXUS", "DEXCHUS", "DTWEXBGS")}))
    prov = expanded(payload["provenance"])
    assert _named(prov["stress_score_z"]) == {"DEXMXUS", "DEXCHUS", "DTWEXBGS"}
    assert "z-scores" in prov["stress_score_z"]["operation"]
    assert _named(prov["components.cny_move_1m.zscore_10y"]) == {"DEXCHUS"}
    _no_fallback(payload)


def test_safe_havens_treasury_move_is_a_difference_of_named_yields():
    parts = _fx_parts()
    payload = safe_havens.compute(make_frames({k: parts[k] for k in ("DEXJPUS", "DEXSZUS", "DGS10", "SP500")}))
    prov = expanded(payload["provenance"])
    move = prov["havens.ust10y.haven_move_1m_bp"]
    assert move["recompute"] == {"kind": "difference", "scale": 100.0, "decimals": 2}
    assert move["inputs"][0]["dates"] == [DATES[-22].isoformat(), DATES[-1].isoformat()]
    assert _named(prov["havens.jpy.on_risk_off_days.hit_rate_risk_off_pct"]) == {"DEXJPUS", "SP500"}
    assert _named(prov["haven_demand_score_z"]) == {"DEXJPUS", "DEXSZUS", "DGS10"}
    _no_fallback(payload)


def test_oil_spread_names_both_closes_of_the_last_common_day():
    wti, brent = random_walk(N, 80, 0.02, 1), random_walk(N, 84, 0.02, 2)
    # Brent misses the last day: the spread is taken on the last day both printed
    payload = oil.compute(make_frames({"DCOILWTICO": series(DATES, wti),
                                       "DCOILBRENTEU": series(DATES[:-1], brent[:-1])}))
    level = expanded(payload["provenance"])["spread_brent_wti.level_usd"]
    day = DATES[-2].isoformat()
    assert level["attribution"] == "observation"
    assert level["inputs"] == [{"series": "DCOILBRENTEU", "dates": [day]}, {"series": "DCOILWTICO", "dates": [day]}]
    assert payload["data"]["spread_brent_wti"]["level_usd"] == pytest.approx(round(brent[-2] - wti[-2], 2))
    _no_fallback(payload)


def test_monthly_commodity_changes_name_the_matched_months():
    months = month_starts(30)
    copper = random_walk(30, 9000, 0.04, 3)
    payload = copper_gold_ratio.compute(make_frames({"PCOPPUSDM": series(months, copper),
                                                     "DGS10": _fx_parts()["DGS10"]}))
    prov = expanded(payload["provenance"])
    assert prov["copper.change_3m_pct"]["inputs"][0]["dates"] == [months[-1].isoformat(), months[-4].isoformat()]
    assert _named(prov["ten_year.beta_60m_bp_per_pct"]) == {"PCOPPUSDM", "DGS10"}
    _no_fallback(payload)
    overview = commodities_overview.compute(make_frames({"PCOPPUSDM": series(months, copper),
                                                         "DCOILWTICO": _daily(4, 80, 0.02)}))
    assert expanded(overview["provenance"])["copper.change_12m_pct"]["attribution"] == "observation"
    assert _named(expanded(overview["provenance"])["average_momentum_3m_pct"]) == {"PCOPPUSDM", "DCOILWTICO"}
    _no_fallback(overview)
