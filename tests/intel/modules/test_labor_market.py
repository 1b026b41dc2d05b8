from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, make_frames, month_starts, series, weekly

from intel.modules import labor_market
from tests.intel.provenance_checks import expanded

NOW = date(2024, 6, 28)


def _market(weak: bool) -> dict:
    n = 36
    if weak:
        unrate = [3.6] * 28 + [3.7, 3.8, 3.9, 4.0, 4.1, 4.2, 4.2, 4.3]
        gains = [180.0] * (n - 4) + [60.0, 20.0, 10.0, -30.0]
        claims = np.concatenate([np.full(80, 210_000.0), np.linspace(210_000, 280_000, 24)])
        openings = np.linspace(10000, 7000, n)
    else:
        unrate = list(np.linspace(4.4, 3.7, n).round(1))
        gains = [220.0] * n
        claims = np.full(104, 215_000.0) + np.tile([3000.0, -3000.0], 52)
        openings = np.linspace(7000, 7600, n)
    payrolls = 150_000 + np.cumsum(gains)
    months = month_starts(n)
    return {"UNRATE": series(months, unrate), "U6RATE": series(months, np.array(unrate) * 1.8 + 0.5),
            "PAYEMS": series(months, payrolls), "ICSA": series(weekly(len(claims), date(2024, 6, 22)), claims),
            "JTSJOL": series(months, openings), "CIVPART": series(months, np.linspace(62.4, 62.7, n))}


def test_figures_against_references():
    parts = _market(weak=True)
    payload = labor_market.compute(make_frames(parts, now=NOW))
    d = payload["data"]
    u = d["unemployment"]
    assert u["period"] == "2024-05" and u["rate_pct"] == 4.3
    assert u["change_3m_pp"] == pytest.approx(0.2) and u["change_12m_pp"] == pytest.approx(0.7)
    assert u["low_12m_pct"] == 3.6 and u["rise_from_12m_low_pp"] == pytest.approx(0.7)
    p = d["payrolls"]
    assert p["change_1m_thousands"] == -30.0
    assert p["avg_change_3m_thousands"] == pytest.approx(round((20 + 10 - 30) / 3, 1))
    assert p["avg_change_12m_thousands"] == pytest.approx(round((8 * 180 + 60 + 20 + 10 - 30) / 12, 1))
    claims = pd.Series(parts["ICSA"]["value"].to_numpy())
    avg4 = claims.rolling(4).mean()
    low = avg4.iloc[-52:].min()
    c = d["initial_claims"]
    assert c["avg_4w"] == round(avg4.iloc[-1]) and c["low_52w_of_avg_4w"] == round(low)
    assert c["rise_from_52w_low_pct"] == pytest.approx(round((avg4.iloc[-1] / low - 1) * 100, 2))
    assert c["change_13w_pct"] == pytest.approx(round((avg4.iloc[-1] / avg4.iloc[-14] - 1) * 100, 2))
    assert c["week_ending"] == "2024-06-22"
    openings = parts["JTSJOL"]["value"].to_numpy()
    assert d["job_openings"]["change_12m_pct"] == pytest.approx(round((openings[-1] / openings[-13] - 1) * 100, 2))
    assert d["u6_unemployment"]["gap_to_u3_pp"] == pytest.approx(round(4.3 * 1.8 + 0.5 - 4.3, 2))
    check_payload(payload)


def test_weak_labour_market_is_bearish():
    payload = labor_market.compute(make_frames(_market(weak=True), now=NOW))
    cond = payload["data"]["conditions"]
    assert cond["state"] == "weakening" and cond["checks_available"] == 5
    assert set(cond["deteriorating"]) == {"unemployment_rising", "payroll_gains_weak", "claims_rising",
                                          "openings_falling", "u6_rising"}
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"  # unemployment 0.7 pp off its low


def test_strong_labour_market_is_bullish():
    payload = labor_market.compute(make_frames(_market(weak=False), now=NOW))
    cond = payload["data"]["conditions"]
    assert cond["state"] == "solid" and cond["checks_deteriorating"] == 0
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_missing_inputs_are_listed_and_cost_confidence():
    parts = _market(weak=True)
    full = labor_market.compute(make_frames(parts, now=NOW))
    part = labor_market.compute(make_frames({k: parts[k] for k in ("UNRATE", "PAYEMS")}, now=NOW))
    d = part["data"]
    assert set(part["data_sources"]["missing"]) == {"ICSA", "JTSJOL", "CIVPART", "U6RATE"}
    assert set(d["unavailable"]) == {"u6_unemployment", "initial_claims", "job_openings", "participation"}
    assert d["conditions"]["checks_available"] == 2
    assert part["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs" in part["summary"]
    check_payload(part)


def test_stale_claims_are_named():
    parts = _market(weak=False)
    parts["ICSA"] = parts["ICSA"].head(parts["ICSA"].height - 6)  # last week six weeks before now
    payload = labor_market.compute(make_frames(parts, now=NOW))
    assert "stale inputs: ICSA" in payload["summary"]
    check_payload(payload)


def test_short_history_gives_none_not_a_crash():
    parts = {k: v.tail(2) for k, v in _market(weak=True).items()}
    payload = labor_market.compute(make_frames(parts, now=NOW))
    d = payload["data"]
    assert d["unemployment"]["change_12m_pp"] is None and d["payrolls"]["avg_change_3m_thousands"] is None
    assert d["initial_claims"]["avg_4w"] is None
    check_payload(payload)


def test_provenance_names_each_series_and_the_checks_inputs():
    prov = expanded(labor_market.compute(make_frames(_market(weak=True), now=NOW))["provenance"])
    change = prov["unemployment.change_12m_pp"]
    assert change["attribution"] == "observation" and change["recompute"]["kind"] == "difference"
    assert change["inputs"] == [{"series": "UNRATE", "dates": ["2024-05-01", "2023-05-01"]}]
    gap = prov["u6_unemployment.gap_to_u3_pp"]
    assert [i["series"] for i in gap["inputs"]] == ["U6RATE", "UNRATE"] and gap["operation"] == "U6RATE - UNRATE, pp"
    assert prov["initial_claims.avg_4w"]["inputs"] == [{"series": "ICSA", "through": "2024-06-22"}]
    share = prov["conditions.deteriorating_share_pct"]
    assert {i["series"] for i in share["inputs"]} == {"UNRATE", "PAYEMS", "ICSA", "JTSJOL", "U6RATE"}
    assert all(entry["attribution"] != "module" for entry in prov.values())
