from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import volatility_risk_premium as vrp


def _frames(n=900, spx_vol=0.01, vix_level=18.0, seed=5, vix_end=None):
    dates = bdays(n)
    spx = random_walk(n, 4000, spx_vol, seed)
    vix = vix_level + np.random.default_rng(seed + 1).normal(0, 1.5, n)
    if vix_end is not None:
        vix[-1] = vix_end
    return dates, spx, vix, make_frames({"SP500": series(dates, spx), "VIXCLS": series(dates, vix)})


def test_trailing_and_forward_premium_match_pandas():
    dates, spx, vix, frames = _frames()
    payload = vrp.compute(frames)
    d = payload["data"]
    idx = pd.DatetimeIndex(dates)
    rv = np.log(pd.Series(spx, index=idx)).diff().rolling(21).std() * np.sqrt(252) * 100
    prem = (pd.Series(vix, index=idx) - rv).dropna()
    assert d["realized_vol_21d_pct"] == pytest.approx(round(rv.iloc[-1], 2))
    assert d["trailing"]["vrp_21d_pts"] == pytest.approx(round(vix[-1] - rv.iloc[-1], 2))
    assert d["trailing"]["percentile_10y"] == pytest.approx(round((prem <= prem.iloc[-1]).mean() * 100, 1))
    year = prem[prem.index > pd.Timestamp(NOW - timedelta(days=365))]
    assert d["trailing"]["percentile_1y"] == pytest.approx(round((year <= prem.iloc[-1]).mean() * 100, 1))
    # forward: VIX on a date against the realized volatility of the next 21 sessions
    fwd = rv.shift(-21)
    fprem = (pd.Series(vix, index=idx) - fwd)[rv.notna() & fwd.notna()]
    f = d["forward"]
    assert f["last_complete_date"] == dates[-22].isoformat()
    assert f["realized_vol_next_21d_pct"] == pytest.approx(round(rv.iloc[-1], 2))
    assert f["vrp_21d_pts"] == pytest.approx(round(vix[-22] - rv.iloc[-1], 2))
    assert f["observations"] == len(fprem) and f["sample_start"] == fprem.index[0].date().isoformat()
    assert f["mean_10y_pts"] == pytest.approx(round(fprem.mean(), 2))
    assert f["implied_above_realized_share_pct"] == pytest.approx(round((fprem > 0).mean() * 100, 1))
    check_payload(payload)


def test_realized_above_implied_is_bearish():
    *_, frames = _frames(spx_vol=0.04, vix_level=20.0)  # about 63% realized against VIX near 20
    payload = vrp.compute(frames)
    sig = payload["signals"][0]
    assert payload["data"]["trailing"]["vrp_21d_pts"] < -5
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_rich_premium_is_bullish():
    *_, frames = _frames(spx_vol=0.006, vix_level=16.0, vix_end=30.0)
    payload = vrp.compute(frames)
    assert payload["data"]["trailing"]["percentile_10y"] == 100.0
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_short_history_has_no_forward_premium_and_too_short_raises():
    dates, spx, vix, _ = _frames(n=30)
    payload = vrp.compute(make_frames({"SP500": series(dates, spx), "VIXCLS": series(dates, vix)}))
    assert "forward" not in payload["data"] and "forward" in payload["data"]["unavailable"]
    assert "Too little history" in payload["summary"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        vrp.compute(make_frames({"SP500": series(dates[:15], spx[:15]), "VIXCLS": series(dates, vix)}))
    with pytest.raises(InsufficientData):
        vrp.compute(make_frames({"SP500": series(dates, spx)}))


def test_stale_vix_lowers_confidence():
    dates, spx, vix, frames = _frames()
    stale = vrp.compute(make_frames({"SP500": series(dates, spx), "VIXCLS": series(dates[:-15], vix[:-15])}))
    fresh = vrp.compute(frames)
    assert stale["data"]["date"] == dates[-16].isoformat()
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: VIXCLS" in stale["summary"]
    check_payload(stale)
