import numpy as np
import pytest
from builders import NOW, bdays, check_payload, make_frames, month_starts, series

from intel.envelope import InsufficientData
from intel.modules import fed_policy


def _inputs(funds=5.33, two_year=4.33, core_yoy=3.0, unrate=4.0, months=30):
    """Monthly funds/CPI/unemployment dated the 1st (CPI grows at exactly `core_yoy` a year), daily yields."""
    mdates, ddates = month_starts(months), bdays(300)
    cpi = 300 * (1 + core_yoy / 100) ** (np.arange(months) / 12)
    return {"FEDFUNDS": series(mdates, np.full(months, funds)), "CPILFESL": series(mdates, cpi),
            "UNRATE": series(mdates, np.full(months, unrate)), "DGS2": series(ddates, np.full(300, two_year)),
            "DGS3MO": series(ddates, np.full(300, funds + 0.05))}


def test_worked_example_taylor_and_path():
    payload = fed_policy.compute(make_frames(_inputs()))
    check_payload(payload)
    t, path = payload["data"]["taylor_rule"], payload["data"]["implied_path"]
    # Taylor (1993): 2 + 3 + 0.5 (3 - 2) + 0.5 * (-2 * (4.0 - 4.5)) = 6.0
    assert t["core_cpi_yoy_pct"] == pytest.approx(3.0) and t["taylor_rate_pct"] == pytest.approx(6.0)
    assert t["funds_minus_taylor_bp"] == pytest.approx(-67.0) and t["stance"] == "near_rule"
    assert t["real_policy_rate_pct"] == pytest.approx(2.33) and t["unemployment_gap_pp"] == pytest.approx(-0.5)
    # 2y 100 bp under funds: four 25 bp cuts
    assert path["2y"]["minus_funds_bp"] == pytest.approx(-100.0) and path["2y"]["moves_25bp_priced"] == -4.0
    assert path["2y"]["priced"] == "cuts" and path["3m"]["priced"] == "no_change"
    assert payload["data"]["policy"]["change_12m_bp"] == 0.0 and payload["data"]["policy"]["cycle_12m"] == "on_hold"
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["implied_policy_path"]["direction"] == "bullish" and sig["implied_policy_path"]["urgency"] == "high"
    assert sig["taylor_rule_gap"]["direction"] == "neutral"


def test_restrictive_policy_and_hikes_priced_are_bearish():
    payload = fed_policy.compute(make_frames(_inputs(core_yoy=2.0, unrate=5.5, two_year=5.90)))
    check_payload(payload)
    t = payload["data"]["taylor_rule"]
    # 2 + 2 + 0 + 0.5 * (-2 * 1.0) = 3.0, so funds sit 233 bp above the rule
    assert t["taylor_rate_pct"] == pytest.approx(3.0) and t["funds_minus_taylor_bp"] == pytest.approx(233.0)
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["taylor_rule_gap"]["direction"] == "bearish" and sig["taylor_rule_gap"]["urgency"] == "medium"
    assert payload["data"]["implied_path"]["2y"]["priced"] == "hikes"
    assert sig["implied_policy_path"]["direction"] == "bearish"


def test_funds_change_over_a_year():
    parts = _inputs()
    months = parts["FEDFUNDS"]["date"].to_list()
    values = [5.33] * 18 + list(np.linspace(5.33, 4.33, 12))
    parts["FEDFUNDS"] = series(months, values)
    d = fed_policy.compute(make_frames(parts))["data"]["policy"]
    assert d["change_12m_bp"] == pytest.approx(round((values[-1] - values[-13]) * 100))
    assert d["cycle_12m"] == "cutting"


def test_missing_inputs_degrade():
    parts = _inputs()
    full = fed_policy.compute(make_frames(parts))
    no_jobs = fed_policy.compute(make_frames({k: v for k, v in parts.items() if k != "UNRATE"}))
    check_payload(no_jobs)
    assert "taylor_rule" not in no_jobs["data"] and no_jobs["data"]["unavailable"]["taylor_rule"] == "UNRATE missing"
    assert "unavailable" in no_jobs["summary"] and no_jobs["data_sources"]["missing"] == ["UNRATE"]
    assert no_jobs["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    no2 = fed_policy.compute(make_frames({k: v for k, v in parts.items() if k != "DGS2"}))
    check_payload(no2)
    assert "2y" not in no2["data"]["implied_path"] and "The 3m yield" in no2["summary"]
    short_cpi = dict(parts, CPILFESL=parts["CPILFESL"].tail(6))
    p = fed_policy.compute(make_frames(short_cpi))
    check_payload(p)
    assert "shorter than a year" in p["data"]["unavailable"]["taylor_rule"]
    with pytest.raises(InsufficientData):
        fed_policy.compute(make_frames({k: v for k, v in parts.items() if k != "FEDFUNDS"}))
    assert NOW.month == 6  # the monthly series end in May, fresh on this date
    assert not full["data_sources"]["missing"] and "stale" not in full["summary"]
