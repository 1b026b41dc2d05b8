import math
from datetime import date, timedelta

import numpy as np
import pytest
from builders import check_payload, make_frames, series

from intel.envelope import InsufficientData
from intel.modules import halving_cycle as hc

START = date(2014, 12, 1)  # the first Coinbase bitcoin close in the catalog


def days_between(a, b):
    return [a + timedelta(days=k) for k in range((b - a).days + 1)]


def growth(now, rate=0.001, start=START):
    dates = days_between(start, now)
    return make_frames({"CBBTCUSD": series(dates, 300 * np.exp(rate * np.arange(len(dates))))}, now=now)


def test_dates_estimates_and_phase_returns_worked_example():
    now = date(2026, 1, 15)
    payload = hc.compute(growth(now))
    d = payload["data"]
    assert d["last_halving"] == "2024-04-20" and d["days_since_halving"] == (now - date(2024, 4, 20)).days
    # 210,000 blocks x 10 minutes = 1458.3 days after the last halving; at the last cycle's pace 1440 days
    assert d["next_halving_estimate"] == "2028-04-17" and d["next_halving_at_last_cycle_pace"] == "2028-03-30"
    assert d["days_until_next_halving_estimate"] == (date(2028, 4, 17) - now).days
    assert d["next_halving_block_height"] == 1_050_000 and "estimate" in d["next_halving_estimate_method"]
    assert d["phase"] == 2 and d["cycle_progress_pct"] == round(635 / 1458 * 100, 1)
    table = {row["phase"]: row for row in d["phase_performance"]}
    # only phases the history covers whole: the 2012 cycle's last quarter (from 2015-08-14), none before
    assert [c["cycle_start"] for c in table[4]["by_cycle"]] == ["2012-11-28", "2016-07-09", "2020-05-11"]
    assert [c["cycle_start"] for c in table[1]["by_cycle"]] == ["2016-07-09", "2020-05-11", "2024-04-20"]
    assert table[3]["cycles_observed"] == 2
    q4 = table[4]["by_cycle"][0]
    assert (q4["from"], q4["to"]) == ("2015-08-14", "2016-07-09")
    q4_days = (date(2016, 7, 9) - date(2015, 8, 14)).days
    assert q4["return_pct"] == pytest.approx(round(math.expm1(0.001 * q4_days) * 100, 2))
    # same point of earlier covered cycles: 635 days after the 2016 and 2020 halvings
    span = (now - date(2024, 4, 20)).days
    assert [s["cycle_start"] for s in d["same_day_prior_cycles"]] == ["2016-07-09", "2020-05-11"]
    assert d["return_since_halving_pct"] == pytest.approx(round(math.expm1(0.001 * span) * 100, 2))
    full = {c["cycle_start"]: c for c in d["full_cycle_returns"]}
    assert full["2016-07-09"]["days"] == 1402 and "2012-11-28" not in full
    assert d["sample"]["history_start"] == START.isoformat()
    check_payload(payload)


def phased(now):
    """Log price rising in the first half of each cycle, falling in the third quarter, flat in the fourth."""
    dates = days_between(START, now)
    halvings = list(hc.HALVINGS) + [date(2028, 4, 17)]
    drift = []
    for d in dates:
        i = max(k for k, h in enumerate(halvings) if h <= d)
        frac = (d - halvings[i]).days / (halvings[i + 1] - halvings[i]).days
        drift.append(0.003 if frac < 0.5 else -0.003 if frac < 0.75 else 0.0)
    return make_frames({"CBBTCUSD": series(dates, 300 * np.exp(np.cumsum(drift)))}, now=now)


def test_phase_signal_follows_the_covered_cycles():
    payload = hc.compute(phased(date(2026, 12, 1)))
    sig = payload["signals"][0]
    row = payload["data"]["phase_performance"][2]
    assert payload["data"]["phase"] == 3 and row["positive_cycles"] == 0 and row["cycles_observed"] == 2
    assert sig["name"] == "halving_cycle_phase" and sig["direction"] == "bearish" and sig["confidence"] <= 0.5
    early = hc.compute(phased(date(2024, 9, 1)))
    assert early["data"]["phase"] == 1 and early["signals"][0]["direction"] == "bullish"
    for p in (payload, early):
        check_payload(p)


def test_approaching_halving_and_point_in_time_estimate():
    near = hc.compute(growth(date(2028, 1, 1), rate=0.0003))
    names = {s["name"]: s for s in near["signals"]}
    assert names["halving_approaching"]["urgency"] == "medium"
    assert near["data"]["days_until_next_halving_estimate"] == (date(2028, 4, 17) - date(2028, 1, 1)).days
    check_payload(near)
    # before the 2024 halving happened, the module only knows its estimate
    before = hc.compute(growth(date(2023, 6, 1)))
    assert before["data"]["last_halving"] == "2020-05-11"
    assert before["data"]["next_halving_estimate"] == (date(2020, 5, 11) + timedelta(days=1458)).isoformat()
    assert before["data"]["next_halving_at_last_cycle_pace"] == "2024-03-13"
    check_payload(before)


def test_degrades_with_stale_or_short_history():
    now = date(2026, 1, 15)
    fresh = hc.compute(growth(now))
    dates = days_between(START, now - timedelta(days=30))
    stale = hc.compute(make_frames({"CBBTCUSD": series(dates, 300 * np.exp(0.001 * np.arange(len(dates))))}, now=now))
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: CBBTCUSD" in stale["summary"]
    check_payload(stale)
    short = hc.compute(growth(now, start=date(2025, 1, 1)))
    assert short["data"]["return_since_halving_pct"] is None
    assert "return_since_halving_pct" in short["data"]["unavailable"]
    assert short["data"]["same_day_prior_cycles"] == [] and short["signals"][0]["direction"] == "neutral"
    check_payload(short)
    with pytest.raises(InsufficientData):
        hc.compute(make_frames({}, now=now))
