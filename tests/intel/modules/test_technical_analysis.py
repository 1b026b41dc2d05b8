import numpy as np
import pandas as pd
import pytest
import ta
from builders import bdays, check_payload, make_frames, ohlcv

from intel.envelope import InsufficientData
from intel.modules import technical_analysis


def _bars(n=504, seed=3, ranges=True):
    rng = np.random.default_rng(seed)
    close = 100 * np.exp(np.cumsum(rng.normal(0.0005, 0.015, n)))
    wiggle = np.abs(rng.normal(0, 0.01, n)) * close
    return ohlcv(bdays(n), close, wiggle, np.full(n, 1e6), ranges)


def test_indicators_match_ta():
    bars = _bars()
    payload = technical_analysis.compute(make_frames({}), bars, "TEST")
    d = payload["data"]
    high, low, close = (pd.Series(bars[k].to_numpy()) for k in ("high", "low", "close"))
    assert d["rsi_14"] == pytest.approx(round(ta.momentum.RSIIndicator(close).rsi().iloc[-1], 2), abs=0.011)
    macd = ta.trend.MACD(close)
    assert d["macd_12_26_9"]["histogram"] == pytest.approx(round(macd.macd_diff().iloc[-1], 4))
    bb = ta.volatility.BollingerBands(close)
    assert d["bollinger_20_2"]["upper"] == pytest.approx(round(bb.bollinger_hband().iloc[-1], 2))
    assert d["adx_14"] == pytest.approx(round(ta.trend.ADXIndicator(high, low, close).adx().iloc[-1], 2))
    atr = ta.volatility.AverageTrueRange(high, low, close).average_true_range().iloc[-1]
    assert d["atr_14"] == pytest.approx(round(atr, 2))
    ema_50 = ta.trend.EMAIndicator(close, 50).ema_indicator().iloc[-1]
    assert d["moving_averages"]["ema_50"] == pytest.approx(round(ema_50, 2))
    assert d["support_resistance"]["support_20d"] == pytest.approx(round(low.iloc[-20:].min(), 2))
    assert "unavailable" not in d
    check_payload(payload)


def test_closes_only_lists_unavailable_and_lowers_confidence():
    full = technical_analysis.compute(make_frames({}), _bars(), "TEST")
    closes = technical_analysis.compute(make_frames({}), _bars(ranges=False), "TEST")
    assert {"adx_14", "atr_14"} <= closes["data"]["unavailable"].keys()
    assert "adx_14" not in closes["data"] and closes["data"]["rsi_14"] == full["data"]["rsi_14"]
    assert closes["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(closes)


def test_too_few_bars():
    with pytest.raises(InsufficientData):
        technical_analysis.compute(make_frames({}), _bars(20), "TEST")

