import math

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, cdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import crypto_volatility


def calm_then(n, tail_vol, seed=3, days=60):
    """Bitcoin at 2% a day, then `tail_vol` a day over the last `days` days."""
    rng = np.random.default_rng(seed)
    rets = np.concatenate([rng.normal(0, 0.02, n - days), rng.normal(0, tail_vol, days)])
    return 30000 * np.exp(np.cumsum(rets))


def test_vols_cone_and_ratio_match_pandas():
    btc_dates, spx_dates = cdays(900), bdays(640)
    btc, spx = random_walk(900, 30000, 0.03, 5), random_walk(640, 4000, 0.01, 6)
    payload = crypto_volatility.compute(make_frames({"CBBTCUSD": series(btc_dates, btc),
                                                     "SP500": series(spx_dates, spx)}))
    d = payload["data"]
    r = pd.Series(np.log(btc)).diff()
    assert d["realized_vol_90d_pct"] == pytest.approx(round(r.tail(90).std() * math.sqrt(365) * 100, 2))
    roll30 = r.rolling(30).std() * math.sqrt(365) * 100
    hist = roll30.dropna().to_numpy()
    assert d["percentile_30d_history"] == pytest.approx(round((hist <= hist[-1]).mean() * 100, 1))
    assert d["vol_cone_30d"]["p50_pct"] == pytest.approx(round(np.median(hist), 2))
    neg = np.minimum(r.tail(90).to_numpy(), 0)
    assert d["downside_vol_90d_pct"] == pytest.approx(round(np.sqrt((neg ** 2).mean()) * math.sqrt(365) * 100, 2))
    spx_vol = pd.Series(np.log(spx)).diff().tail(21).std() * math.sqrt(252) * 100
    assert d["btc_vs_spx"]["spx_realized_vol_21d_pct"] == pytest.approx(round(spx_vol, 2))
    # ratio on the last common date (NOW is a Friday: both series end there)
    assert d["btc_vs_spx"]["btc_spx_vol_ratio"] == pytest.approx(round(roll30.iloc[-1] / spx_vol, 2))
    assert d["btc_vs_spx"]["as_of"] == NOW.isoformat()
    check_payload(payload)


def test_volatility_spike_is_extreme_and_bearish():
    payload = crypto_volatility.compute(make_frames({"CBBTCUSD": series(cdays(800), calm_then(800, 0.08, days=30))}))
    d, sig = payload["data"], payload["signals"][0]
    assert d["vol_regime"] == "extreme" and d["vol_trend"] == "rising"
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    quiet = crypto_volatility.compute(make_frames({"CBBTCUSD": series(cdays(800), calm_then(800, 0.004))}))
    assert quiet["data"]["vol_regime"] == "low" and quiet["signals"][0]["direction"] == "neutral"
    for p in (payload, quiet):
        check_payload(p)


def test_missing_spx_and_short_history_degrade():
    btc = series(cdays(800), random_walk(800, 30000, 0.03, 9))
    with_spx = crypto_volatility.compute(make_frames({"CBBTCUSD": btc,
                                                      "SP500": series(bdays(560), random_walk(560, 4000, 0.01, 2))}))
    alone = crypto_volatility.compute(make_frames({"CBBTCUSD": btc}))
    assert "btc_vs_spx" not in alone["data"] and alone["data"]["unavailable"]["btc_vs_spx"] == "SP500 missing"
    assert "not available (SP500 missing)" in alone["summary"] and "missing inputs: SP500" in alone["summary"]
    assert alone["signals"][0]["confidence"] < with_spx["signals"][0]["confidence"]
    short = crypto_volatility.compute(make_frames({"CBBTCUSD": series(cdays(40), random_walk(40, 30000, 0.03, 1))}))
    assert short["data"]["vol_regime"] is None and short["data"]["realized_vol_365d_pct"] is None
    assert short["data"]["realized_vol_30d_pct"] is not None and "vol_cone_30d" in short["data"]["unavailable"]
    for p in (alone, short):
        check_payload(p)
    with pytest.raises(InsufficientData):
        crypto_volatility.compute(make_frames({"SP500": series(bdays(300), random_walk(300, 4000, 0.01, 2))}))
