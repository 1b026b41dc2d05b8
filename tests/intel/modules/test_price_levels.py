from datetime import date

import numpy as np
import pandas as pd
import polars as pl
import pytest
from builders import bdays, check_payload, make_frames, ohlcv

from intel.envelope import InsufficientData
from intel.modules import price_levels


def _bars(n=300, seed=3, drift=0.0, end=None, ranges=True):
    rng = np.random.default_rng(seed)
    close = 100 * np.exp(np.cumsum(rng.normal(drift, 0.015, n)))
    wiggle = np.abs(rng.normal(0, 0.01, n)) * close
    volume = rng.uniform(1e5, 1e6, n)
    return ohlcv(bdays(n, end) if end else bdays(n), close, wiggle, volume, ranges)


def _pandas(bars: pl.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: bars[c].to_list() for c in bars.columns})


def _floor(high, low, close):
    p = (high + low + close) / 3
    return {"pivot": p, "r1": 2 * p - low, "s1": 2 * p - high, "r2": p + high - low, "s2": p - (high - low),
            "r3": high + 2 * (p - low), "s3": low - 2 * (high - p)}


def test_levels_match_hand_and_pandas():
    bars = _bars()
    payload = price_levels.compute(make_frames({}), bars, "TEST")
    d = payload["data"]
    df = _pandas(bars)
    high, low, close = df["high"].iloc[-1], df["low"].iloc[-1], df["close"].iloc[-1]
    for k, v in _floor(high, low, close).items():
        assert d["pivots_daily"][k] == pytest.approx(round(v, 2))
    # NOW is Friday 2024-06-28 with its bar in: the week of June 24 is complete
    week = df[df["date"] >= date(2024, 6, 24)]
    assert d["pivots_weekly"]["from_week_starting"] == "2024-06-24"
    ref = _floor(week["high"].max(), week["low"].min(), week["close"].iloc[-1])
    assert d["pivots_weekly"]["pivot"] == pytest.approx(round(ref["pivot"], 2))
    year = df.tail(252)
    hi, lo = year["high"].max(), year["low"].min()
    assert (d["range_52w"]["high"] == pytest.approx(round(hi, 2))
            and d["range_52w"]["low"] == pytest.approx(round(lo, 2)))
    assert d["range_52w"]["position_in_range_pct"] == pytest.approx(round((close - lo) / (hi - lo) * 100, 1))
    up = year["high"].idxmax() >= year["low"].idxmin()
    assert d["fibonacci"]["swing"] == ("up" if up else "down")
    level_618 = hi - 0.618 * (hi - lo) if up else lo + 0.618 * (hi - lo)
    assert d["fibonacci"]["levels"]["retracement_61_8"] == pytest.approx(round(level_618, 2))
    tp = (df["high"] + df["low"] + df["close"]) / 3
    vwap20 = (tp * df["volume"]).tail(20).sum() / df["volume"].tail(20).sum()
    assert d["vwap"]["vwap_20d"] == pytest.approx(round(vwap20, 2))
    assert d["vwap"]["distance_to_vwap_20d_pct"] == pytest.approx(round((close / vwap20 - 1) * 100, 2))
    sup, res = d["nearest_support"], d["nearest_resistance"]
    assert sup["price"] < close < res["price"]
    assert "unavailable" not in d
    check_payload(payload)


def test_mid_week_uses_the_previous_week():
    bars = _bars(end=date(2024, 6, 26))
    payload = price_levels.compute(make_frames({}, now=date(2024, 6, 26)), bars, "TEST")
    df = _pandas(bars)
    week = df[(df["date"] >= date(2024, 6, 17)) & (df["date"] <= date(2024, 6, 21))]
    assert payload["data"]["pivots_weekly"]["from_week_starting"] == "2024-06-17"
    ref = _floor(week["high"].max(), week["low"].min(), week["close"].iloc[-1])
    assert payload["data"]["pivots_weekly"]["r1"] == pytest.approx(round(ref["r1"], 2))
    check_payload(payload)


def test_near_high_is_bullish_and_closes_only_degrades():
    rising = _bars(drift=0.004, seed=9)
    payload = price_levels.compute(make_frames({}), rising, "UP")
    sig = payload["signals"][0]
    assert payload["data"]["range_52w"]["distance_from_high_pct"] >= -2
    assert sig["direction"] == "bullish" and sig["urgency"] == "medium"
    falling = price_levels.compute(make_frames({}), _bars(drift=-0.01, seed=9), "DOWN")
    assert falling["signals"][0]["direction"] == "bearish"
    closes = price_levels.compute(make_frames({}), _bars(drift=0.004, seed=9, ranges=False), "UP")
    d = closes["data"]
    assert {"pivots", "vwap"} <= d["unavailable"].keys() and "pivots_daily" not in d
    assert d["range_52w"]["basis"].startswith("closes")
    assert closes["signals"][0]["confidence"] < sig["confidence"]
    assert "unavailable" in closes["summary"]
    check_payload(payload)
    check_payload(falling)
    check_payload(closes)


def test_short_history_and_stale():
    with pytest.raises(InsufficientData):
        price_levels.compute(make_frames({}), _bars(15), "TEST")
    short = price_levels.compute(make_frames({}), _bars(60), "TEST")
    assert short["data"]["range_52w"]["bars_used"] == 60 and "full_52w_range" in short["data"]["unavailable"]
    check_payload(short)
    stale = price_levels.compute(make_frames({}), _bars().head(285), "TEST")
    assert stale["data_sources"]["series"][0]["stale"] and "stale" in stale["summary"]
