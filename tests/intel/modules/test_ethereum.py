import math
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, cdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import ethereum


def coins(n=400, seed=4):
    """BTC a random walk; ETH = BTC^1.1 times its own noise, so the two co-move imperfectly."""
    dates = cdays(n)
    btc = random_walk(n, 30000, 0.03, seed)
    eth = (btc / 30000) ** 1.1 * random_walk(n, 2000, 0.02, seed + 1)
    return dates, btc, eth


def test_ratio_correlation_and_beta_match_references():
    dates, btc, eth = coins()
    payload = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth), "CBBTCUSD": series(dates, btc)}))
    d, rb = payload["data"], payload["data"]["eth_btc"]
    ratio = eth / btc
    assert rb["eth_btc_ratio"] == round(ratio[-1], 6)
    month_ago = dates.index(NOW - timedelta(days=30))
    assert rb["change_1m_pct"] == pytest.approx(round((ratio[-1] / ratio[month_ago] - 1) * 100, 2))
    assert rb["sma_200"] == pytest.approx(round(ratio[-200:].mean(), 6))
    assert rb["percentile_1y"] == round((ratio[-365:] <= ratio[-1]).mean() * 100, 1)
    r = pd.DataFrame({"e": np.log(eth), "b": np.log(btc)}).diff().tail(90)
    assert rb["correlation_90d"] == pytest.approx(round(r["e"].corr(r["b"]), 3), abs=1e-3)
    assert rb["beta_to_btc_90d"] == pytest.approx(round(np.polyfit(r["b"], r["e"], 1)[0], 3), abs=1e-3)
    # ether's own figures follow bitcoin's conventions: 365-day annualisation of daily log returns
    rets = np.diff(np.log(eth))[-30:]
    assert d["realized_vol_30d_pct"] == pytest.approx(round(rets.std(ddof=1) * math.sqrt(365) * 100, 2))
    assert d["high"] == round(eth.max(), 2) and d["drawdown_from_high_pct"] == pytest.approx(
        round((eth[-1] / eth.max() - 1) * 100, 2))
    check_payload(payload)


@pytest.mark.parametrize("slope, direction", [(0.002, "bullish"), (-0.002, "bearish")])
def test_eth_btc_relative_trend_signal(slope, direction):
    dates = cdays(400)
    btc = np.full(400, 40000.0) * np.exp(np.sin(np.arange(400) / 9) * 0.01)
    eth = btc * 0.05 * np.exp(slope * np.arange(400))
    payload = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth), "CBBTCUSD": series(dates, btc)}))
    rel = {s["name"]: s for s in payload["signals"]}["eth_btc_relative_trend"]
    assert rel["direction"] == direction
    assert payload["data"]["eth_btc"]["trend_state"] == ("uptrend" if slope > 0 else "downtrend")
    check_payload(payload)


def test_deep_drawdown_is_bearish_high_urgency():
    dates = cdays(400)
    eth = np.concatenate([np.linspace(1000, 4000, 250), np.linspace(4000, 1200, 151)[1:]])
    payload = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth),
                                            "CBBTCUSD": series(dates, np.linspace(20000, 30000, 400))}))
    sig = {s["name"]: s for s in payload["signals"]}["eth_drawdown"]
    assert payload["data"]["drawdown_from_high_pct"] == -70.0
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_missing_bitcoin_degrades_honestly():
    dates, btc, eth = coins()
    full = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth), "CBBTCUSD": series(dates, btc)}))
    alone = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth)}))
    assert "eth_btc" not in alone["data"] and alone["data"]["unavailable"]["eth_btc"] == "CBBTCUSD missing"
    assert alone["data_sources"]["missing"] == ["CBBTCUSD"]
    assert "missing inputs: CBBTCUSD" in alone["summary"]
    assert alone["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert alone["data"]["price_usd"] == full["data"]["price_usd"]
    check_payload(alone)


def test_stale_ether_lowers_confidence_and_no_ether_is_insufficient():
    dates, btc, eth = coins()
    old = cdays(400, NOW - timedelta(days=30))
    stale = ethereum.compute(make_frames({"CBETHUSD": series(old, eth), "CBBTCUSD": series(dates, btc)}))
    fresh = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth), "CBBTCUSD": series(dates, btc)}))
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: CBETHUSD" in stale["summary"]
    check_payload(stale)
    with pytest.raises(InsufficientData):
        ethereum.compute(make_frames({"CBBTCUSD": series(dates, btc)}))


def test_short_history_gives_short_figures_only():
    dates, btc, eth = coins(30)
    payload = ethereum.compute(make_frames({"CBETHUSD": series(dates, eth), "CBBTCUSD": series(dates, btc)}))
    d = payload["data"]
    assert d["change_1y_pct"] is None and d["sma_200"] is None and d["realized_vol_90d_pct"] is None
    assert d["eth_btc"]["correlation_90d"] is None and d["eth_btc"]["trend_state"] == "insufficient_history"
    assert "eth_btc.correlation" in d["unavailable"]
    check_payload(payload)
