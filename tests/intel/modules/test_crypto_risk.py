import math

import numpy as np
import pandas as pd
import pytest
from builders import cdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import crypto_risk


def test_components_and_score_match_references():
    n = 1200
    dates = cdays(n)
    btc, eth = random_walk(n, 20000, 0.03, 31), random_walk(n, 1500, 0.04, 32)
    payload = crypto_risk.compute(make_frames({"CBBTCUSD": series(dates, btc), "CBETHUSD": series(dates, eth)}))
    b = payload["data"]["BTC"]
    dd = (btc / np.maximum.accumulate(btc) - 1) * 100
    assert b["drawdown_from_high_pct"] == pytest.approx(round(dd[-1], 2))
    assert b["drawdown_depth_percentile"] == pytest.approx(round((dd > dd[-1]).mean() * 100, 1))
    vol = (pd.Series(np.log(btc)).diff().rolling(21).std() * math.sqrt(365) * 100).to_numpy()
    year = vol[-365:]
    assert b["realized_vol_21d_pct"] == pytest.approx(round(vol[-1], 2))
    assert b["vol_21d_percentile_1y"] == pytest.approx(round((year <= vol[-1]).mean() * 100, 1))
    hist = vol[np.isfinite(vol)]
    assert b["vol_21d_percentile_history"] == pytest.approx(round((hist <= vol[-1]).mean() * 100, 1))
    simple = (btc[1:] / btc[:-1] - 1)[-365:] * 100
    q = np.percentile(simple, 5)
    assert b["var_95_1d_pct"] == pytest.approx(round(-q, 2))
    assert b["expected_shortfall_95_1d_pct"] == pytest.approx(round(-simple[simple <= q].mean(), 2))
    assert b["risk_score"] == pytest.approx(round(np.mean([b["drawdown_depth_percentile"], b["vol_21d_percentile_1y"],
                                                           b["vol_21d_percentile_history"]]), 1), abs=0.051)
    scores = [payload["data"][c]["risk_score"] for c in ("BTC", "ETH")]
    assert payload["data"]["crypto_risk_score"] == pytest.approx(np.mean(scores), abs=0.051)
    check_payload(payload)


def crash(n=900, seed=2):
    """2% daily moves, then a month of 8% moves trending down to well over half off the high."""
    rng = np.random.default_rng(seed)
    calm = rng.normal(0.001, 0.02, n - 30)
    storm = rng.normal(-0.035, 0.08, 30)
    return 30000 * np.exp(np.cumsum(np.concatenate([calm, storm])))


def test_crash_with_volatility_spike_is_a_crisis():
    dates = cdays(900)
    btc = crash()
    eth = crash(seed=3) / 20
    payload = crypto_risk.compute(make_frames({"CBBTCUSD": series(dates, btc), "CBETHUSD": series(dates, eth)}))
    d = payload["data"]
    assert d["BTC"]["drawdown_from_high_pct"] <= -50 and d["BTC"]["vol_spike"]
    assert d["crypto_regime"] == "crisis"
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["crypto_risk_regime"]["direction"] == "bearish" and sig["crypto_risk_regime"]["urgency"] == "critical"
    assert sig["btc_volatility_spike"]["urgency"] == "high" and d["coins_with_vol_spike"] == 2
    check_payload(payload)


def test_quiet_rise_is_calm():
    n = 900
    dates = cdays(n)
    rng = np.random.default_rng(4)
    vols = np.concatenate([np.full(n - 60, 0.03), np.full(60, 0.008)])  # volatility has died down
    btc = 30000 * np.exp(np.cumsum(np.abs(rng.normal(0.002, 1, n)) * vols * 0.3 + 0.001))  # at its high
    payload = crypto_risk.compute(make_frames({"CBBTCUSD": series(dates, btc), "CBETHUSD": series(dates, btc / 15)}))
    assert payload["data"]["crypto_regime"] == "calm"
    assert payload["signals"][0]["direction"] == "bullish" and payload["signals"][0]["urgency"] == "low"
    check_payload(payload)


def test_missing_coin_and_short_history_degrade():
    dates = cdays(900)
    btc, eth = crash(), crash(seed=3) / 20
    both = crypto_risk.compute(make_frames({"CBBTCUSD": series(dates, btc), "CBETHUSD": series(dates, eth)}))
    only = crypto_risk.compute(make_frames({"CBBTCUSD": series(dates, btc)}))
    assert "ETH" not in only["data"] and only["data"]["unavailable"]["ETH"] == "CBETHUSD missing"
    assert "missing inputs: CBETHUSD" in only["summary"]
    assert only["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    check_payload(only)
    short = crypto_risk.compute(make_frames({"CBETHUSD": series(cdays(60), random_walk(60, 2000, 0.03, 8))}))
    e = short["data"]["ETH"]
    assert e["vol_21d_percentile_1y"] is None and e["risk_score"] is None and e["realized_vol_21d_pct"] is not None
    assert "ETH.risk_score" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        crypto_risk.compute(make_frames({}))
