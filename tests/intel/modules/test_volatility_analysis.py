import math

import numpy as np
import pandas as pd
import pytest
import ta
from builders import bdays, check_payload, make_frames, ohlcv

from intel.envelope import InsufficientData
from intel.modules import volatility_analysis


def _bars(n=600, seed=3, vols=None, ranges=True):
    rng = np.random.default_rng(seed)
    vols = np.full(n, 0.012) if vols is None else vols
    close = 100 * np.exp(np.cumsum(rng.normal(0, 1, n) * vols))
    wiggle = np.abs(rng.normal(0, 0.6, n)) * vols * close
    return ohlcv(bdays(n), close, wiggle, np.full(n, 1e6), ranges)


def test_figures_match_pandas_and_ta():
    bars = _bars()
    payload = volatility_analysis.compute(make_frames({}), bars, "TEST")
    d = payload["data"]
    close = pd.Series(bars["close"].to_numpy())
    high, low = pd.Series(bars["high"].to_numpy()), pd.Series(bars["low"].to_numpy())
    lr = np.log(close).diff()
    for n in (10, 21, 63, 252):
        ref = lr.tail(n).std(ddof=1) * math.sqrt(252) * 100
        assert d["realized"][f"realized_vol_{n}d_pct"] == pytest.approx(round(ref, 2))
    rolling = lr.rolling(21).std(ddof=1) * math.sqrt(252) * 100
    hist = rolling.dropna()
    assert d["vol_21d_history_bars"] == len(hist)
    assert d["vol_21d_percentile_own_history"] == pytest.approx(round((hist <= hist.iloc[-1]).mean() * 100, 1))
    assert d["vol_21d_zscore_own_history"] == pytest.approx(round((hist.iloc[-1] - hist.mean()) / hist.std(ddof=1), 2),
                                                            abs=0.011)
    atr = ta.volatility.AverageTrueRange(high, low, close, 14).average_true_range().iloc[-1]
    assert d["range_based"]["atr_14"] == pytest.approx(round(atr, 2))
    park = math.sqrt((np.log(high / low).tail(21) ** 2).mean() / (4 * math.log(2)) * 252) * 100
    assert d["range_based"]["parkinson_vol_21d_pct"] == pytest.approx(round(park, 2))
    vol21 = d["realized"]["realized_vol_21d_pct"]
    assert d["expected_move"]["move_1m_pct"] == pytest.approx(round(vol21 * math.sqrt(21 / 252), 2))
    move_1d = close.iloc[-1] * vol21 * math.sqrt(1 / 252) / 100
    assert d["expected_move"]["move_1d_price"] == pytest.approx(round(move_1d, 2))
    down = lr.tail(63)
    semi = math.sqrt((down.clip(upper=0) ** 2).sum() / 63 * 252) * 100
    assert d["realized"]["downside_vol_63d_pct"] == pytest.approx(round(semi, 2))
    check_payload(payload)


def test_volatility_spike_is_bearish_and_urgent_calm_is_not():
    vols = np.concatenate([np.full(590, 0.008), np.full(10, 0.045)])
    payload = volatility_analysis.compute(make_frames({}), _bars(vols=vols), "SPIKE")
    d, sig = payload["data"], payload["signals"][0]
    assert d["regime"] == "extreme" and d["vol_trend"] == "expanding"
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    calm_vols = np.concatenate([np.full(560, 0.02), np.full(40, 0.005)])
    calm = volatility_analysis.compute(make_frames({}), _bars(vols=calm_vols), "CALM")
    assert calm["data"]["regime"] == "low" and calm["signals"][0]["direction"] == "bullish"
    check_payload(payload)
    check_payload(calm)


def test_closes_only_short_and_stale():
    full = volatility_analysis.compute(make_frames({}), _bars(), "T")
    closes = volatility_analysis.compute(make_frames({}), _bars(ranges=False), "T")
    assert {"atr_14", "atr_pct", "parkinson_vol_21d_pct"} <= closes["data"]["unavailable"].keys()
    assert "range_based" not in closes["data"]
    assert closes["data"]["realized"] == full["data"]["realized"]
    assert closes["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "ATR" in closes["summary"] and "not computed" in closes["summary"]
    check_payload(closes)
    short = volatility_analysis.compute(make_frames({}), _bars(40), "T")
    assert short["data"]["realized"]["realized_vol_252d_pct"] is None
    assert "realized_vol_252d_pct" in short["data"]["unavailable"]
    check_payload(short)
    stale = volatility_analysis.compute(make_frames({}), _bars().head(580), "T")
    assert stale["data_sources"]["series"][0]["stale"] and "stale" in stale["summary"]
    with pytest.raises(InsufficientData):
        volatility_analysis.compute(make_frames({}), _bars(20), "T")

