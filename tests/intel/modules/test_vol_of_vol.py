from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import vol_of_vol


def test_matches_pandas_rolling_std_of_log_changes():
    dates = bdays(900)
    vix = random_walk(900, 18, 0.06, seed=21)
    payload = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, vix)}))
    d = payload["data"]
    logs = np.log(pd.Series(vix, index=pd.DatetimeIndex(dates))).diff()
    for n in (21, 63):
        path = (logs.rolling(n).std() * np.sqrt(252) * 100).dropna()
        assert d[f"vol_of_vol_{n}d_pct"] == pytest.approx(round(path.iloc[-1], 2))
        assert d[f"percentile_{n}d_10y"] == pytest.approx(round((path <= path.iloc[-1]).mean() * 100, 1))
        year = path[path.index > pd.Timestamp(NOW - timedelta(days=365))]
        assert d[f"percentile_{n}d_1y"] == pytest.approx(round((year <= path.iloc[-1]).mean() * 100, 1))
    recent = logs.iloc[-21:]
    worst = recent.abs().idxmax()
    assert d["largest_move_21d_date"] == worst.date().isoformat()
    assert d["largest_move_21d_pct"] == pytest.approx(round((np.exp(recent[worst]) - 1) * 100, 2))
    assert d["ratio_21d_63d"] == pytest.approx(round(d["vol_of_vol_21d_pct"] / d["vol_of_vol_63d_pct"], 2), abs=0.011)
    check_payload(payload)


def test_wild_last_month_is_extreme_rising_and_bearish():
    dates = bdays(800)
    calm = random_walk(779, 15, 0.02, seed=1)
    wild = calm[-1] * np.exp(np.cumsum(np.random.default_rng(2).choice([-0.25, 0.25], 21)))
    payload = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, np.concatenate([calm, wild]))}))
    d, sig = payload["data"], payload["signals"][0]
    assert d["percentile_21d_10y"] == 100.0 and d["regime"] == "extreme" and d["trend"] == "rising"
    assert sig["direction"] == "bearish" and sig["urgency"] in ("high", "critical")
    check_payload(payload)


def test_steady_vix_is_calm_and_bullish():
    dates = bdays(800)
    noisy = random_walk(779, 15, 0.08, seed=4)
    steady = noisy[-1] * np.exp(np.cumsum(np.random.default_rng(5).normal(0, 0.005, 21)))
    payload = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, np.concatenate([noisy, steady]))}))
    assert payload["data"]["regime"] == "calm" and payload["data"]["trend"] == "falling"
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_short_history_marks_63d_unavailable_and_too_short_raises():
    dates = bdays(40)
    vix = random_walk(40, 18, 0.05, seed=8)
    payload = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, vix)}))
    d = payload["data"]
    assert d["vol_of_vol_21d_pct"] is not None and d["vol_of_vol_63d_pct"] is None
    assert "vol_of_vol_63d_pct" in d["unavailable"] and d["trend"] == "unknown"
    # a short history makes the percentile less telling: confidence scales with the years behind it
    pct, years = d["percentile_21d_10y"], d["history_years"]
    expected = (0.45 + abs(pct - 50) / 125) * (0.6 + 0.4 * min(1.0, years / 5))
    assert years < 0.2 and payload["signals"][0]["confidence"] == pytest.approx(round(expected, 2))
    check_payload(payload)
    with pytest.raises(InsufficientData):
        vol_of_vol.compute(make_frames({"VIXCLS": series(dates[:15], vix[:15])}))
    with pytest.raises(InsufficientData):
        vol_of_vol.compute(make_frames({}))


def test_stale_vix_is_flagged():
    dates = bdays(400)
    vix = random_walk(400, 18, 0.05, seed=9)
    fresh = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, vix)}))
    stale = vol_of_vol.compute(make_frames({"VIXCLS": series(dates, vix)}, now=NOW + timedelta(days=20)))
    assert "stale inputs: VIXCLS" in stale["summary"]
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    check_payload(stale)
