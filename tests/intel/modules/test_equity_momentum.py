import numpy as np
import pandas as pd
import pytest
import ta
from builders import bdays, check_payload, make_frames, random_walk, series

from intel.catalog import SECTORS
from intel.envelope import InsufficientData
from intel.modules import equity_momentum

N = 1500


def _sectors(dates, drifts, vol=0.008):
    return {sid: series(dates, random_walk(len(dates), 50, vol, seed=40 + i, drift=drifts[i]))
            for i, sid in enumerate(SECTORS)}


def test_momentum_and_adx_match_pandas_and_ta():
    dates, close = bdays(N), random_walk(N, 3000, 0.01, seed=4, drift=0.0004)
    payload = equity_momentum.compute(make_frames({"SP500": series(dates, close)}))
    d = payload["data"]["SP500"]
    s = pd.Series(close)
    for key, n in (("1m", 21), ("3m", 63), ("6m", 126), ("12m", 252)):
        assert d[f"momentum_{key}_pct"] == pytest.approx(round(s.pct_change(n).iloc[-1] * 100, 2))
    twelve_one = (s.shift(21) / s.shift(252) - 1) * 100
    assert d["momentum_12_1_pct"] == pytest.approx(round(twelve_one.iloc[-1], 2))
    hist = twelve_one.dropna()
    assert d["momentum_12_1_percentile"] == pytest.approx(round((hist <= twelve_one.iloc[-1]).mean() * 100, 1))
    adx = ta.trend.ADXIndicator(s, s, s, 14)
    assert d["adx_14_close"] == pytest.approx(round(adx.adx().iloc[-1], 2))
    assert d["plus_di_14"] == pytest.approx(round(adx.adx_pos().iloc[-1], 2))
    assert d["minus_di_14"] == pytest.approx(round(adx.adx_neg().iloc[-1], 2))
    past = adx.adx().iloc[27:]  # ta fills the warm-up with zeros: the first ADX is at bar 2n-1
    assert d["adx_percentile"] == pytest.approx(round((past <= adx.adx().iloc[-1]).mean() * 100, 1))
    check_payload(payload)


def test_sector_ranking_and_breadth():
    dates = bdays(N)
    drifts = np.linspace(0.002, -0.002, len(SECTORS))  # XLB strongest ... XLY weakest
    parts = {"SP500": series(dates, random_walk(N, 3000, 0.01, seed=4)), **_sectors(dates, drifts, vol=0.002)}
    payload = equity_momentum.compute(make_frames(parts))
    sec = payload["data"]["sectors"]
    values = {sid: sec["by_sector"][sid]["momentum_12_1_pct"] for sid in SECTORS}
    assert sec["ranked_12_1"] == sorted(SECTORS, key=lambda s: -values[s])
    assert sec["leaders"][0] == "XLB" and sec["laggards"][0] == "XLY"
    assert sec["share_positive_12_1_pct"] == pytest.approx(round(sum(v > 0 for v in values.values()) / 11 * 100, 1))
    xlk = parts["XLK"]["value"].to_numpy()
    assert values["XLK"] == pytest.approx(round((xlk[-22] / xlk[-253] - 1) * 100, 2))
    check_payload(payload)


def test_uptrend_bullish_and_crash_bearish():
    dates = bdays(N)
    up = random_walk(N, 3000, 0.006, seed=9, drift=0.0015)
    rising = equity_momentum.compute(make_frames({"SP500": series(dates, up), **_sectors(dates, [0.002] * 11)}))
    sig = {s["name"]: s for s in rising["signals"]}
    assert sig["sp500_momentum"]["direction"] == "bullish"
    assert sig["sector_momentum_breadth"]["direction"] == "bullish"
    check_payload(rising)
    down = up.copy()
    down[-300:] = down[-301] * np.exp(np.cumsum(np.full(300, -0.003)))  # a steady year-long slide
    falling = equity_momentum.compute(make_frames({"SP500": series(dates, down),
                                                   **_sectors(dates, [-0.003] * 11)}))
    sig = {s["name"]: s for s in falling["signals"]}
    d = falling["data"]["SP500"]
    assert sig["sp500_momentum"]["direction"] == "bearish" and d["momentum_12_1_percentile"] < 5
    assert d["trend_strength"] == "strong" and d["trend_direction"] == "down"
    assert sig["sp500_momentum"]["urgency"] == "medium"
    assert sig["sector_momentum_breadth"]["direction"] == "bearish"
    check_payload(falling)


def test_missing_sectors_and_short_history_degrade_honestly():
    dates = bdays(N)
    close = random_walk(N, 3000, 0.01, seed=4, drift=0.0004)
    full = equity_momentum.compute(make_frames({"SP500": series(dates, close), "NASDAQCOM": series(dates, close),
                                                **_sectors(dates, [0.0005] * 11)}))
    bare = equity_momentum.compute(make_frames({"SP500": series(dates, close)}))
    assert set(bare["data_sources"]["missing"]) == {"NASDAQCOM", *SECTORS}
    assert bare["data"]["sectors"]["by_sector"] == {} and "sectors.ranking" in bare["data"]["unavailable"]
    assert bare["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs" in bare["summary"]
    check_payload(bare)

    short = equity_momentum.compute(make_frames({"SP500": series(dates[-100:], close[-100:]),
                                                 "XLK": series(dates[-100:], close[-100:])}))
    d = short["data"]["SP500"]
    assert d["momentum_3m_pct"] is not None and d["momentum_12_1_pct"] is None and d["momentum_12m_pct"] is None
    assert d["momentum_12_1_percentile"] is None and d["trend_strength"] is None
    assert short["signals"][0]["direction"] == "neutral"
    assert "XLK" in short["data"]["unavailable"]["sectors.momentum_12_1_pct"]
    check_payload(short)

    with pytest.raises(InsufficientData):
        equity_momentum.compute(make_frames({"XLK": series(dates, close)}))
