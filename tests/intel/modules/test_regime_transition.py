from collections import Counter
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import regime_transition as rt
from intel.modules._regime_history import STATES, daily_regime


def _vix_state(v):
    return "crisis" if v >= 40 else "risk_off" if v >= 20 else "neutral" if v >= 15 else "risk_on"


def test_matrix_durations_and_odds_by_hand_on_vix_only():
    blocks = [(12.0, 100), (25.0, 50), (12.0, 80), (45.0, 20), (25.0, 30), (17.0, 40), (12.0, 60), (17.0, 25)]
    vix = np.concatenate([np.full(n, v) for v, n in blocks])
    dates = bdays(len(vix))
    payload = rt.compute(make_frames({"VIXCLS": series(dates, vix)}))
    d = payload["data"]
    states = [_vix_state(v) for v in vix]
    pairs = Counter(zip(states[:-1], states[1:]))
    for a in STATES:
        n = sum(c for (x, _), c in pairs.items() if x == a)
        assert d["transition_next_day"][a]["observations"] == n
        for b in STATES:
            assert d["transition_next_day"][a][f"to_{b}"] == (round(pairs[(a, b)] / n, 3) if n else None)
    assert d["state"] == "neutral" and d["sessions_in_state"] == 25 and d["since"] == dates[-25].isoformat()
    # completed neutral runs: one of 40 sessions (the current run of 25 is still going)
    dur = d["expected_duration"]["neutral"]
    assert dur["completed_runs"] == 1 and dur["mean_completed_run_sessions"] == 40.0
    # next-day pairs from neutral: 39 stays + 1 exit in the 40-run, 24 stays in the current run
    assert dur["next_day_persistence"] == round(63 / 64, 3)
    assert dur["expected_duration_geometric_sessions"] == pytest.approx(round(1 / (1 - 63 / 64), 1))
    ahead = Counter(b for a, b in zip(states[:-21], states[21:]) if a == "neutral")
    n21 = sum(ahead.values())
    m = d["odds_of_change"]["1m"]
    assert m["observations"] == n21
    assert m["change_pct"] == pytest.approx(round((n21 - ahead["neutral"]) / n21 * 100, 1))
    assert m["worse_pct"] == pytest.approx(round((ahead["risk_off"] + ahead["crisis"]) / n21 * 100, 1))
    assert m["better_pct"] == pytest.approx(round(ahead["risk_on"] / n21 * 100, 1))
    # age-aware: the one completed neutral run (40) had reached 25 sessions and ended within 21 more
    assert m["runs_that_reached_age"] == 1 and m["run_ends_given_age_pct"] == 100.0
    assert d["odds_of_change"]["1w"]["run_ends_given_age_pct"] == 0.0
    assert {"sp500_rules", "credit_rules"} <= set(d["unavailable"])
    assert d["regime_changes"] == len(blocks) - 1
    check_payload(payload)


def _scalar_state(dist, dd, vix, hy, hy_chg):
    """The stated rules, one day at a time (the reference for the vectorised history)."""
    pts = dict.fromkeys(STATES, 0.0)
    pts["crisis" if dist < -15 else "risk_off" if dist < -2 else "neutral" if dist <= 2 else "risk_on"] += \
        0.5 if -2 <= dist <= 2 else 1.0
    pts["crisis" if dd <= -20 else "risk_off" if dd <= -10 else "neutral" if dd <= -5 else "risk_on"] += \
        1.0 if dd <= -10 else 0.5
    if vix >= 40:
        pts["crisis"] += 2
    elif vix >= 30:
        pts["risk_off"] += 1.5
    elif vix >= 20:
        pts["risk_off"] += 1
    else:
        pts["neutral" if vix >= 15 else "risk_on"] += 1
    pts["crisis" if hy >= 7 else "risk_off" if hy >= 5 else "neutral" if hy >= 3.5 else "risk_on"] += \
        1.5 if hy >= 7 else 1.0
    if hy_chg > 100:
        pts["crisis"] += 1
    elif hy_chg > 40:
        pts["risk_off"] += 0.5
    elif hy_chg < -25:
        pts["risk_on"] += 0.5
    best = max(pts.values())
    return "neutral" if pts["neutral"] == best else next(s for s in STATES if pts[s] == best)


def test_vectorised_history_matches_scalar_rules():
    n = 700
    dates = bdays(n)
    spx = random_walk(n, 4000, 0.015, seed=21)
    vix = 12 + 30 * np.abs(np.sin(np.arange(n) / 40)) + np.random.default_rng(1).normal(0, 1, n)
    hy = 3 + 4 * np.abs(np.sin(np.arange(n) / 55))
    frames = make_frames({"SP500": series(dates, spx), "VIXCLS": series(dates, vix), "BAMLH0A0HYM2": series(dates, hy)})
    hist = daily_regime(frames)
    idx = pd.to_datetime(dates)
    close = pd.Series(spx, index=idx)
    dist = (close / close.rolling(200).mean() - 1) * 100
    dd = (close / close.rolling(252, min_periods=1).max() - 1) * 100
    hys = pd.Series(hy, index=idx)
    expected = []
    for i in range(199, n):
        ago = hys[hys.index <= idx[i] - timedelta(days=30)]
        chg = (hy[i] - ago.iloc[-1]) * 100
        expected.append(_scalar_state(dist.iloc[i], dd.iloc[i], vix[i], hy[i], chg))
    got = [STATES[c] for c in hist["codes"]]
    assert len(got) == n - 199 and got == expected


def test_crisis_market_is_bearish():
    payload = rt.compute(make_frames(market("crisis")))
    d = payload["data"]
    assert d["state"] == "crisis"
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    calm = rt.compute(make_frames(market("calm")))
    assert calm["data"]["state"] == "risk_on" and calm["signals"][0]["direction"] == "bullish"
    check_payload(payload)
    check_payload(calm)


def test_missing_credit_and_short_history_degrade():
    parts = market("calm")
    full = rt.compute(make_frames(parts))
    del parts["BAMLH0A0HYM2"]
    payload = rt.compute(make_frames(parts))
    assert "credit_rules" in payload["data"]["unavailable"]
    assert payload["data"]["sample"]["inputs_used"] == ["SP500", "VIXCLS"]
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs: BAMLH0A0HYM2" in payload["summary"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        rt.compute(make_frames({"VIXCLS": series(bdays(40), np.full(40, 14.0))}))
