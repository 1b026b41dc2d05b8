from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import check_payload, make_frames, month_starts, series

from intel.envelope import InsufficientData
from intel.modules import sahm_rule
from tests.intel.provenance_checks import expanded

NOW = date(2024, 6, 20)


def _payload(values, end=(2024, 5), now=NOW):
    return sahm_rule.compute(make_frames({"UNRATE": series(month_starts(len(values), date(*end, 1)), values)}, now=now))


def test_worked_example_by_hand():
    # 14 months at 3.5%, then 3.7, 3.9, 4.2 (last month 2024-05).
    # 3-month average now: (3.7 + 3.9 + 4.2) / 3 = 3.9333.
    # 3-month averages of the previous 12 months: ten at 3.5, then (3.5+3.5+3.7)/3 = 3.5667 and
    # (3.5+3.7+3.9)/3 = 3.7: the low is 3.5, so the indicator is 0.4333 pp, 0.0667 pp short of 0.50.
    # Three months earlier (2024-02) the average was 3.5 against a low of 3.5: 0.
    payload = _payload([3.5] * 14 + [3.7, 3.9, 4.2])
    d = payload["data"]
    assert d["period"] == "2024-05"
    assert d["avg_3m_pct"] == 3.93 and d["low_of_avg_3m_prior_12m_pct"] == 3.5
    assert d["sahm_indicator_pp"] == 0.43 and d["distance_to_trigger_pp"] == 0.07
    assert not d["triggered"] and d["state"] == "warning"
    assert d["indicator_3m_ago_pp"] == 0.0 and d["indicator_change_3m_pp"] == 0.43
    assert d["last_trigger_month"] is None and d["triggers_in_history"] == 0
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"  # warning zone and rising fast
    check_payload(payload)


def test_worked_example_triggers_next_month():
    # one more month at 4.4: (3.9 + 4.2 + 4.4) / 3 = 4.1667 against the same 3.5 low: 0.6667 pp, triggered
    payload = _payload([3.5] * 14 + [3.7, 3.9, 4.2, 4.4], end=(2024, 6), now=date(2024, 7, 20))
    d = payload["data"]
    assert d["sahm_indicator_pp"] == 0.67 and d["triggered"] and d["state"] == "triggered"
    assert d["distance_to_trigger_pp"] == -0.17
    assert d["last_trigger_month"] == "2024-06" and d["months_since_last_trigger"] == 0
    assert d["triggers_in_history"] == 1
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "critical"
    assert "triggered" in payload["summary"]
    check_payload(payload)


def test_exactly_half_a_point_triggers_despite_float_rounding():
    # averages of 3.6 then 4.1: 4.1 - 3.6 is 0.4999999999999996 in floating point, the rule must still fire
    payload = _payload([3.6] * 15 + [4.1] * 3)
    assert payload["data"]["sahm_indicator_pp"] == 0.5 and payload["data"]["triggered"]


def test_matches_pandas_reference_on_a_cycle():
    rng = np.random.default_rng(3)
    # a full cycle: falling unemployment, a trough, a recession-style rise, a slow recovery
    path = np.concatenate([np.linspace(6, 4, 40), np.full(10, 4.0), np.linspace(4, 7, 15), np.linspace(7, 5.5, 35)])
    values = np.round(path + rng.normal(0, 0.08, len(path)), 1)
    payload = _payload(list(values))
    s = pd.Series(values)
    ma3 = s.rolling(3).mean()
    low = ma3.shift(1).rolling(12, min_periods=6).min()
    sahm = ma3 - low
    d = payload["data"]
    assert d["sahm_indicator_pp"] == pytest.approx(round(sahm.iloc[-1], 2), abs=1e-9)
    assert d["indicator_3m_ago_pp"] == pytest.approx(round(sahm.iloc[-4], 2), abs=1e-9)
    assert d["indicator_high_12m_pp"] == pytest.approx(round(sahm.iloc[-12:].max(), 2), abs=1e-9)
    fired = ((sahm.round(6) >= 0.5) & (sahm.shift(1).round(6) < 0.5)).sum()
    assert d["triggers_in_history"] == fired >= 1
    assert d["state"] == "normal" and not d["triggered"]
    check_payload(payload)


def test_missing_month_uses_the_months_present_and_says_so():
    dates, values = month_starts(20), [4.0] * 17 + [4.3, 4.6, 4.9]
    del dates[18], values[18]  # 2024-04 not published
    payload = sahm_rule.compute(make_frames({"UNRATE": series(dates, values)}, now=NOW))
    d = payload["data"]
    # 3-month average over 2024-03..05 uses the two months present: (4.3 + 4.9) / 2 = 4.6; low 4.0
    assert d["avg_3m_pct"] == 4.6 and d["sahm_indicator_pp"] == 0.6
    assert d["months_missing_last_15m"] == 1 and "missing" in payload["summary"]
    full = _payload([4.0] * 17 + [4.3, 4.6, 4.9])
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(payload)


def test_falling_unemployment_is_bullish():
    payload = _payload(list(np.linspace(5.0, 3.8, 30).round(1)))
    d = payload["data"]
    assert d["sahm_indicator_pp"] <= 0 and d["state"] == "normal"
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_stale_series_lowers_confidence_and_is_named():
    values = [3.5] * 14 + [3.7, 3.9, 4.2]
    fresh = _payload(values)
    stale = _payload(values, now=date(2024, 10, 20))  # last observation 2024-05: over 70 days old
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: UNRATE" in stale["summary"]
    check_payload(stale)


def test_short_or_absent_history_raises_insufficient_data():
    with pytest.raises(InsufficientData):
        _payload([4.0] * 10)
    with pytest.raises(InsufficientData):
        sahm_rule.compute(make_frames({}, now=NOW))


def test_provenance_names_unrate_and_the_operations():
    payload = _payload([3.5] * 14 + [3.7, 3.9, 4.2])
    prov = expanded(payload["provenance"])
    assert prov["unemployment_rate_pct"]["attribution"] == "observation"
    assert prov["unemployment_rate_pct"]["inputs"] == [{"series": "UNRATE", "dates": ["2024-05-01"]}]
    sahm = prov["sahm_indicator_pp"]
    assert sahm["attribution"] == "series" and sahm["inputs"] == [{"series": "UNRATE", "through": "2024-05-01"}]
    assert "low of the previous 12 months" in sahm["operation"]
    assert prov["trigger_pp"]["inputs"] == [] and prov["trigger_pp"]["operation"].startswith("fixed parameter")
    assert all(entry["attribution"] != "module" for entry in prov.values())
