from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
import ta
from builders import NOW, cdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import crypto_momentum


def test_score_returns_rsi_and_macd_match_references():
    n = 900
    dates = cdays(n)
    btc = random_walk(n, 20000, 0.03, 21, drift=0.001)
    payload = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, btc)}))
    b = payload["data"]["BTC"]
    at = lambda days: btc[dates.index(NOW - timedelta(days=days))]  # noqa: E731
    assert b["return_90d_pct"] == pytest.approx(round((btc[-1] / at(90) - 1) * 100, 2))
    assert b["momentum_12_1_pct"] == pytest.approx(round((at(30) / at(365) - 1) * 100, 2))
    # worked score: log return / (1y daily std x sqrt(h)), capped at +/-2, averaged, scaled to 100
    sd = np.diff(np.log(btc))[-365:].std(ddof=1)
    t = [np.clip(np.log(btc[-1] / at(h)) / (sd * np.sqrt(h)), -2, 2) for h in (30, 90, 182, 365)]
    assert b["momentum_score"] == pytest.approx(round(np.mean(t) / 2 * 100, 1))
    scaled_90d = np.log(btc[-1] / at(90)) / (sd * np.sqrt(90))
    assert b["vol_scaled_return_by_horizon"]["90d"] == pytest.approx(round(scaled_90d, 2))
    close = pd.Series(btc)
    assert b["rsi_14d"] == pytest.approx(round(ta.momentum.RSIIndicator(close, 14).rsi().iloc[-1], 1), abs=0.05)
    hist = ta.trend.MACD(close, 26, 12, 9).macd_diff().iloc[-1]
    assert b["macd_histogram_pct_of_price"] == pytest.approx(round(hist / btc[-1] * 100, 3), abs=2e-3)
    r90 = np.log(btc[90:] / btc[:-90])
    assert b["return_90d_percentile_history"] == round((r90 <= r90[-1]).mean() * 100, 1)
    assert b["positive_horizons"] == sum(btc[-1] > at(h) for h in (7, 30, 90, 182, 365))
    check_payload(payload)


def trend(n, slope, seed, noise=0.01):
    return 1000 * np.exp(slope * np.arange(n) + np.random.default_rng(seed).normal(0, noise, n))


def test_strong_trends_give_directional_signals():
    dates = cdays(600)
    up = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, trend(600, 0.004, 1) * 30),
                                              "CBETHUSD": series(dates, trend(600, 0.004, 2))}))
    down = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, trend(600, -0.004, 3) * 30),
                                                "CBETHUSD": series(dates, trend(600, -0.004, 4))}))
    su, sd = ({s["name"]: s for s in p["signals"]} for p in (up, down))
    assert su["btc_momentum"]["direction"] == "bullish" and su["eth_momentum"]["direction"] == "bullish"
    assert sd["btc_momentum"]["direction"] == "bearish" and sd["btc_momentum"]["urgency"] == "medium"
    assert up["data"]["combined_momentum_score"] >= 60 and down["data"]["combined_momentum_score"] <= -60
    for p in (up, down):
        check_payload(p)
    smooth = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, trend(600, 0.004, 1, 0.002))}))
    rsi = {s["name"]: s for s in smooth["signals"]}["btc_rsi_extreme"]
    assert smooth["data"]["BTC"]["rsi_14d"] >= 75 and rsi["direction"] == "bearish"  # overbought
    check_payload(smooth)


def test_missing_or_stale_coin_degrades():
    dates = cdays(600)
    btc, eth = trend(600, 0.002, 5) * 30, trend(600, 0.002, 6)
    both = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, btc), "CBETHUSD": series(dates, eth)}))
    only = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, btc)}))
    assert only["data"]["unavailable"]["ETH"] == "CBETHUSD missing" and "ETH" not in only["data"]
    assert only["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    stale = crypto_momentum.compute(make_frames({"CBBTCUSD": series(cdays(600, NOW - timedelta(days=20)), btc),
                                                 "CBETHUSD": series(dates, eth)}))
    assert stale["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    assert "stale inputs: CBBTCUSD" in stale["summary"]
    for p in (only, stale):
        check_payload(p)
    with pytest.raises(InsufficientData):
        crypto_momentum.compute(make_frames({}))


def test_short_history_is_unscored_not_invented():
    dates = cdays(40)
    payload = crypto_momentum.compute(make_frames({"CBBTCUSD": series(dates, trend(40, 0.01, 7))}))
    b = payload["data"]["BTC"]
    assert b["momentum_score"] is None and b["return_365d_pct"] is None and b["return_30d_pct"] is not None
    assert payload["signals"][0]["direction"] == "neutral" and "BTC.momentum_score" in payload["data"]["unavailable"]
    check_payload(payload)
