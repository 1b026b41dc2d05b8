import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, month_starts, random_walk, series, to_pandas

from intel import catalog
from intel.envelope import InsufficientData
from intel.modules import copper_gold_ratio as mod
from intel.registry import REGISTRY


def inputs(copper=None, ten=None, n_months=40, n_days=900, gold=None):
    copper = random_walk(n_months, 8000, 0.04, 5) if copper is None else copper
    ten = 3 + np.cumsum(np.random.default_rng(6).normal(0, 0.05, n_days)) if ten is None else ten
    out = {"PCOPPUSDM": series(month_starts(len(copper)), copper), "DGS10": series(bdays(len(ten)), ten)}
    if gold is not None:
        out["GOLD_MONTHLY"] = series(month_starts(len(gold)), gold)
    return out


def test_the_catalog_has_the_monthly_gold_the_ratio_needs():
    gold = catalog.get("GOLD_MONTHLY")
    assert gold.frequency == catalog.get("PCOPPUSDM").frequency == "monthly"
    assert gold.unit == "usd_per_troy_ounce" and "GOLD_MONTHLY" in REGISTRY[mod.NAME].inputs


def test_without_gold_copper_is_read_alone_and_said_so():
    payload = mod.compute(make_frames(inputs()))
    check_payload(payload)
    d = payload["data"]
    assert d["ratio_available"] is False and d["gold_series"] is None and "ratio" not in d
    assert "no gold observations (GOLD_MONTHLY)" in d["unavailable"]["copper_gold_ratio"]
    assert payload["summary"].startswith("The copper/gold ratio is unavailable because there are no gold observations")
    assert "copper alone" in payload["signals"][0]["reason"]


def test_the_ratio_and_its_yield_comparison_match_pandas():
    """Copper (USD per tonne, 40 months) and gold (USD per troy ounce, 38 months, ending the same month): the
    ratio is copper per pound over gold, month by month, and the yield figures are computed on the ratio."""
    p = inputs(gold=random_walk(40, 2000, 0.03, 8))
    p["GOLD_MONTHLY"] = p["GOLD_MONTHLY"].tail(38)
    payload = mod.compute(make_frames(p))
    check_payload(payload)
    d = payload["data"]
    copper = pd.Series(p["PCOPPUSDM"]["value"].to_list(), index=pd.PeriodIndex(p["PCOPPUSDM"]["date"].to_list(),
                                                                                freq="M"))
    gold = pd.Series(p["GOLD_MONTHLY"]["value"].to_list(), index=pd.PeriodIndex(p["GOLD_MONTHLY"]["date"].to_list(),
                                                                                 freq="M"))
    ratio = (copper / 2204.62262 / gold).dropna()
    assert len(ratio) == 38 and d["ratio_available"] is True and d["gold_series"] == "GOLD_MONTHLY"
    assert d["ratio"]["value"] == pytest.approx(round(ratio.iloc[-1], 7))
    assert d["ratio"]["change_12m_pct"] == pytest.approx(round((ratio.iloc[-1] / ratio.iloc[-13] - 1) * 100, 2))
    assert d["ratio"]["period"] == str(ratio.index[-1])
    assert d["gold"]["price_usd_per_troy_ounce"] == pytest.approx(round(gold.iloc[-1], 2))
    ten = to_pandas(p["DGS10"])
    monthly = ten.groupby(ten.index.to_period("M")).mean()
    common = ratio.index.intersection(monthly.index)
    dr = (np.log(ratio[common]).diff() * 100).dropna().to_numpy()
    dy = (monthly[common].diff() * 100).dropna().to_numpy()
    assert d["ten_year"]["correlation_monthly_changes_24m"] == pytest.approx(
        round(np.corrcoef(dr[-24:], dy[-24:])[0, 1], 2))
    assert d["ten_year"]["pairs_60m"] == len(dr)
    assert "copper_gold_ratio" not in (d.get("unavailable") or {})
    assert payload["summary"].startswith("The copper/gold ratio was ")
    assert "copper alone" not in payload["signals"][0]["reason"]
    assert "the copper/gold ratio" in payload["signals"][0]["reason"]


def test_copper_against_yields_matches_pandas():
    p = inputs()
    d = mod.compute(make_frames(p))["data"]
    copper = pd.Series(p["PCOPPUSDM"]["value"].to_list(),
                       index=pd.PeriodIndex(p["PCOPPUSDM"]["date"].to_list(), freq="M"))
    ten = to_pandas(p["DGS10"])
    monthly = ten.groupby(ten.index.to_period("M")).mean()
    assert d["copper"]["change_6m_pct"] == pytest.approx(round((copper.iloc[-1] / copper.iloc[-7] - 1) * 100, 2))
    last = copper.index[-1]
    assert d["ten_year"]["average_in_copper_month_pct"] == pytest.approx(round(monthly[last], 3))
    assert d["ten_year"]["change_6m_bp"] == pytest.approx(round((monthly[last] - monthly[last - 6]) * 100, 1))
    common = copper.index.intersection(monthly.index)
    dc = (np.log(copper[common]).diff() * 100).dropna().to_numpy()
    dy = (monthly[common].diff() * 100).dropna().to_numpy()
    assert d["ten_year"]["correlation_monthly_changes_24m"] == pytest.approx(
        round(np.corrcoef(dc[-24:], dy[-24:])[0, 1], 2))
    beta = np.cov(dc[-60:], dy[-60:])[0, 1] / np.var(dc[-60:], ddof=1)
    assert d["ten_year"]["beta_60m_bp_per_pct"] == pytest.approx(round(beta, 2))
    assert d["ten_year"]["pairs_60m"] == len(dc)
    implied = beta * np.log(copper.iloc[-1] / copper.iloc[-7]) * 100
    assert d["ten_year"]["implied_change_6m_bp"] == pytest.approx(round(implied, 1))
    actual = (monthly[last] - monthly[last - 6]) * 100
    assert d["ten_year"]["gap_to_implied_6m_bp"] == pytest.approx(round(actual - implied, 1), abs=0.11)


def test_copper_rally_with_falling_yields_is_a_divergence():
    rng = np.random.default_rng(9)
    steps = rng.normal(0, 0.04, 40)
    steps[-6:] = 0.05  # copper up about 35% in six months
    copper = 8000 * np.exp(np.cumsum(steps))
    # yields follow copper month by month (1 bp per 1% move) until the last six months, when they fall
    months = month_starts(40)
    days = bdays(900)
    log_level = dict(zip([(m.year, m.month) for m in months], np.log(copper) * 100))
    ten = np.array([3 + log_level.get((d.year, d.month), np.log(8000) * 100) / 100 - np.log(8000) for d in days])
    fall_start = (months[-6].year, months[-6].month)
    ten = ten - np.array([1.0 if (d.year, d.month) >= fall_start else 0.0 for d in days])
    payload = mod.compute(make_frames(inputs(copper=copper, ten=ten)))
    check_payload(payload)
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["copper_growth_momentum"]["direction"] == "bullish"
    assert sig["copper_growth_momentum"]["urgency"] == "medium"
    assert payload["data"]["ten_year"]["gap_to_implied_6m_bp"] < -50
    assert sig["copper_yield_divergence"]["urgency"] == "medium"


def test_falling_copper_is_bearish():
    copper = np.linspace(10000, 7000, 40)
    payload = mod.compute(make_frames(inputs(copper=copper)))
    assert payload["signals"][0]["direction"] == "bearish"


def test_missing_ten_year_and_short_history():
    full = mod.compute(make_frames(inputs()))
    alone = mod.compute(make_frames({"PCOPPUSDM": inputs()["PCOPPUSDM"]}))
    check_payload(alone)
    assert "ten_year" not in alone["data"] and "ten_year" in alone["data"]["unavailable"]
    assert [s["name"] for s in alone["signals"]] == ["copper_growth_momentum"]
    assert "10-year yield is missing" in alone["summary"] and "missing inputs: GOLD_MONTHLY, DGS10" in alone["summary"]
    assert alone["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    short = mod.compute(make_frames(inputs(n_months=2, n_days=30)))
    check_payload(short)
    assert short["data"]["copper"]["change_6m_pct"] is None
    assert short["data"]["ten_year"]["correlation_monthly_changes_24m"] is None
    with pytest.raises(InsufficientData):
        mod.compute(make_frames({"DGS10": inputs()["DGS10"]}))


def test_a_yield_that_stops_before_coppers_last_month_gives_no_gap_instead_of_failing():
    """DGS10 ending about two months before copper's last monthly print (a stale series): the figures that need
    the yield in copper's month are None, the rest are computed."""
    p = inputs()
    p["DGS10"] = p["DGS10"].head(p["DGS10"].height - 45)
    payload = mod.compute(make_frames(p))
    check_payload(payload)
    d = payload["data"]["ten_year"]
    assert d["average_in_copper_month_pct"] is None and d["gap_to_implied_6m_bp"] is None
    assert d["implied_change_6m_bp"] is None and d["last_pct"] is not None
