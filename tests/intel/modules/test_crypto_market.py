from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, cdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import crypto_market


def two_coins(n=500, seed=8, btc_drift=0.0, eth_drift=0.0):
    dates = cdays(n)
    btc = random_walk(n, 30000, 0.03, seed, drift=btc_drift)
    eth = (btc / 30000) * random_walk(n, 2000, 0.02, seed + 1, drift=eth_drift)
    return dates, btc, eth


def frames(dates, btc, eth):
    return make_frames({"CBBTCUSD": series(dates, btc), "CBETHUSD": series(dates, eth)})


def test_cross_figures_match_a_hand_computation():
    dates, btc, eth = two_coins()
    payload = crypto_market.compute(frames(dates, btc, eth))
    d, cross = payload["data"], payload["data"]["cross"]
    ago = dates.index(NOW - timedelta(days=91))
    b3, e3 = (btc[-1] / btc[ago] - 1) * 100, (eth[-1] / eth[ago] - 1) * 100
    assert cross["eth_minus_btc_3m_pp"] == pytest.approx(round(round(e3, 2) - round(b3, 2), 2))
    # equal weight at the start of the horizon: the basket's buy-and-hold return is the average return
    basket = (0.5 * btc[-1] / btc[ago] + 0.5 * eth[-1] / eth[ago] - 1) * 100
    assert cross["equal_weight_basket_change_3m_pct"] == pytest.approx(basket, abs=0.011)
    assert cross["eth_btc_price_ratio"] == round(eth[-1] / btc[-1], 6)
    r = pd.DataFrame({"b": np.log(btc), "e": np.log(eth)}).diff().tail(90)
    assert cross["correlation_90d"] == pytest.approx(round(r["b"].corr(r["e"]), 3), abs=1e-3)
    year = btc[-365:]
    assert d["coins"]["BTC"]["position_in_1y_range_pct"] == pytest.approx(
        round((btc[-1] - year.min()) / (year.max() - year.min()) * 100, 1))
    ytd_base = btc[dates.index(date(2023, 12, 31))]
    assert d["coins"]["BTC"]["change_ytd_pct"] == pytest.approx(round((btc[-1] / ytd_base - 1) * 100, 2))
    assert d["coins_count"] == 2 and d["coins_covered"] == "BTC, ETH"
    check_payload(payload)


def test_no_dominance_figure_is_invented():
    dates, btc, eth = two_coins()
    payload = crypto_market.compute(frames(dates, btc, eth))
    assert "market_cap_dominance" in payload["data"]["unavailable"]
    keys = " ".join(k for k in payload["data"] if k != "unavailable") + " ".join(payload["data"]["cross"])
    assert "dominance" not in keys
    assert "not market-cap dominance" in payload["methodology"]


def test_trend_signal_follows_both_coins():
    n = 400
    dates = cdays(n)
    up = np.linspace(100, 300, n) * (1 + 0.01 * np.sin(np.arange(n)))
    down = up[::-1]
    bull = crypto_market.compute(frames(dates, up * 200, up * 10))
    bear = crypto_market.compute(frames(dates, down * 200, down * 10))
    mixed = crypto_market.compute(frames(dates, up * 200, down * 10))
    assert bull["signals"][0]["direction"] == "bullish" and bull["data"]["coins_in_uptrend"] == 2
    assert bear["signals"][0]["direction"] == "bearish" and bear["data"]["coins_in_downtrend"] == 2
    assert mixed["signals"][0]["direction"] == "neutral"
    appetite = {s["name"]: s for s in mixed["signals"]}["crypto_risk_appetite"]
    assert appetite["direction"] == "bearish"  # ether far behind bitcoin over three months
    assert mixed["data"]["leader_1m"] == "BTC"
    for p in (bull, bear, mixed):
        check_payload(p)


def test_one_coin_missing_degrades():
    dates, btc, eth = two_coins()
    both = crypto_market.compute(frames(dates, btc, eth))
    only = crypto_market.compute(make_frames({"CBBTCUSD": series(dates, btc)}))
    assert only["data"]["coins_count"] == 1 and "cross" not in only["data"]
    assert only["data"]["unavailable"]["coins.ETH"] == "CBETHUSD missing"
    assert "missing inputs: CBETHUSD" in only["summary"]
    assert only["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    assert only["data"]["coins"]["BTC"] == both["data"]["coins"]["BTC"]
    check_payload(only)
    with pytest.raises(InsufficientData):
        crypto_market.compute(make_frames({}))


def test_short_history_computes():
    dates, btc, eth = two_coins(20)
    payload = crypto_market.compute(frames(dates, btc, eth))
    assert payload["data"]["cross"]["correlation_90d"] is None
    assert payload["data"]["coins"]["ETH"]["change_1y_pct"] is None
    check_payload(payload)
