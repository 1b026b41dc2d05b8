from collections import Counter

import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import volatility_regime as vr

STATES = ["low", "normal", "elevated", "crisis"]


def _state(v):
    return "low" if v < 15 else "normal" if v < 20 else "elevated" if v < 30 else "crisis"


def test_transition_matrices_and_durations_by_hand():
    # blocks: low 40, normal 30, low 50, elevated 20, crisis 10, elevated 25, normal 12 (current, still going)
    blocks = [(12.0, 40), (17.0, 30), (13.0, 50), (25.0, 20), (35.0, 10), (24.0, 25), (18.0, 12)]
    vix = np.concatenate([np.full(n, v) for v, n in blocks])
    dates = bdays(len(vix))
    payload = vr.compute(make_frames({"VIXCLS": series(dates, vix)}))
    d = payload["data"]
    states = [_state(v) for v in vix]
    for step, key in ((1, "transition_next_day"), (21, "transition_21d")):
        pairs = Counter(zip(states[:-step], states[step:]))
        for a in STATES:
            n = sum(c for (x, _), c in pairs.items() if x == a)
            assert d[key][a]["observations"] == n
            for b in STATES:
                expected = round(pairs[(a, b)] / n, 3) if n else None
                assert d[key][a][f"to_{b}"] == expected, (key, a, b)
    cur = d["current_state"]
    assert d["state"] == "normal" and cur["sessions_in_state"] == 12 and cur["since"] == dates[-12].isoformat()
    # completed runs exclude the first (left-censored) and the current one: one normal run of 30
    assert cur["completed_runs"] == 1 and cur["mean_completed_run_sessions"] == 30.0
    assert cur["runs_that_lasted_longer"] == 1 and cur["expected_remaining_sessions"] == 18.0
    p = d["transition_next_day"]["normal"]["to_normal"]
    assert cur["next_day_persistence"] == p
    assert cur["expected_duration_geometric_sessions"] == pytest.approx(round(1 / (1 - 40 / 41), 1))
    row = Counter(b for a, b in zip(states[:-21], states[21:]) if a == "normal")
    n21 = sum(row.values())
    assert d["odds_21d_from_current"]["same_pct"] == pytest.approx(round(row["normal"] / n21 * 100, 1))
    assert d["odds_21d_from_current"]["worse_pct"] == pytest.approx(
        round((row["elevated"] + row["crisis"]) / n21 * 100, 1))
    assert d["thresholds"] == {"low_below": 15.0, "normal_below": 20.0, "elevated_below": 30.0}
    # no S&P 500: the forward returns are unavailable and the summary says so
    assert "sp500" in d["unavailable"] and "S&P 500 is missing" in payload["summary"]
    check_payload(payload)


def test_forward_sp500_returns_by_state_match_pandas():
    dates = bdays(900)
    vix = random_walk(900, 18, 0.06, seed=12)
    spx = random_walk(900, 4000, 0.01, seed=13)
    payload = vr.compute(make_frames({"VIXCLS": series(dates, vix), "SP500": series(dates, spx)}))
    d = payload["data"]
    idx = pd.DatetimeIndex(dates)
    fwd = (pd.Series(spx, index=idx).shift(-21) / pd.Series(spx, index=idx) - 1) * 100
    state = pd.Series([_state(v) for v in vix], index=idx)
    frame = pd.DataFrame({"fwd": fwd, "state": state}).dropna()
    for s in STATES:
        m = frame[frame.state == s].fwd
        got = d["sp500_forward_by_state"][s]
        assert got["observations"] == len(m)
        if len(m):
            assert got["mean_return_next_21d_pct"] == pytest.approx(round(m.mean(), 2))
            assert got["positive_share_pct"] == pytest.approx(round((m > 0).mean() * 100, 1))
    rv = np.log(pd.Series(spx)).diff().iloc[-21:].std() * np.sqrt(252) * 100
    assert d["sp500_realized_vol_21d_pct"] == pytest.approx(round(rv, 2))
    assert d["realized_vol_implied_state"] == _state(rv)
    assert "unavailable" not in d
    check_payload(payload)


def test_crisis_is_bearish_critical_and_calm_is_bullish():
    dates = bdays(400)
    crisis = np.concatenate([random_walk(380, 16, 0.03, seed=2), np.linspace(25, 45, 20)])
    payload = vr.compute(make_frames({"VIXCLS": series(dates, crisis)}))
    sig = payload["signals"][0]
    assert payload["data"]["state"] == "crisis" and sig["direction"] == "bearish" and sig["urgency"] == "critical"
    check_payload(payload)
    calm = np.concatenate([random_walk(380, 16, 0.03, seed=2), np.full(20, 12.0)])
    payload = vr.compute(make_frames({"VIXCLS": series(dates, calm)}))
    assert payload["data"]["state"] == "low" and payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_missing_sp500_lowers_confidence_and_short_history_raises():
    dates = bdays(600)
    vix = random_walk(600, 18, 0.05, seed=30)
    spx = random_walk(600, 4000, 0.01, seed=31)
    both = vr.compute(make_frames({"VIXCLS": series(dates, vix), "SP500": series(dates, spx)}))
    alone = vr.compute(make_frames({"VIXCLS": series(dates, vix)}))
    assert alone["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    assert alone["data"]["transition_21d"] == both["data"]["transition_21d"]
    assert alone["data_sources"]["missing"] == ["SP500"]
    with pytest.raises(InsufficientData):
        vr.compute(make_frames({"VIXCLS": series(dates[:40], vix[:40])}))
    with pytest.raises(InsufficientData):
        vr.compute(make_frames({"SP500": series(dates, spx)}))
