import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, month_starts, random_walk, series, to_pandas

from intel import catalog
from intel.envelope import InsufficientData
from intel.modules import copper_gold_ratio as mod


def inputs(copper=None, ten=None, n_months=40, n_days=900):
    copper = random_walk(n_months, 8000, 0.04, 5) if copper is None else copper
    ten = 3 + np.cumsum(np.random.default_rng(6).normal(0, 0.05, n_days)) if ten is None else ten
    return {"PCOPPUSDM": series(month_starts(len(copper)), copper), "DGS10": series(bdays(len(ten)), ten)}


def test_no_gold_series_in_the_catalog_and_said_so():
    assert not [s for s in catalog.CATALOG.values() if "gold" in s.name.lower() or "GOLD" in s.id]
    payload = mod.compute(make_frames(inputs()))
    check_payload(payload)
    d = payload["data"]
    assert d["ratio_available"] is False and d["gold_series"] is None
    assert "no gold price series" in d["unavailable"]["copper_gold_ratio"]
    assert payload["summary"].startswith("The copper/gold ratio is unavailable because the data provider has no gold")


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
    assert "10-year yield is missing" in alone["summary"] and "missing inputs: DGS10" in alone["summary"]
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
