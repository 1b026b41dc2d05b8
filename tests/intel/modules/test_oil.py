import math
import statistics
from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.modules import oil


def market(n=700, wti=None, brent=None):
    dates = bdays(n)
    wti = random_walk(n, 70, 0.02, 1) if wti is None else wti
    brent = wti + 3 + np.random.default_rng(2).normal(0, 0.5, n) if brent is None else brent
    return dates, wti, brent


def test_levels_returns_vol_and_spread_against_pandas():
    dates, wti, brent = market()
    payload = oil.compute(make_frames({"DCOILWTICO": series(dates, wti), "DCOILBRENTEU": series(dates, brent)}))
    check_payload(payload)
    d = payload["data"]
    s = pd.Series(wti, index=pd.to_datetime(dates))
    assert d["wti"]["price_usd_per_barrel"] == round(wti[-1], 2)
    base = s[s.index <= pd.Timestamp(NOW - timedelta(days=30))].iloc[-1]
    assert d["wti"]["change_1m_pct"] == pytest.approx(round((wti[-1] / base - 1) * 100, 2))
    rets = s.pct_change().dropna()
    assert d["wti"]["realized_vol_21d_pct"] == pytest.approx(round(rets.iloc[-21:].std() * math.sqrt(252) * 100, 2))
    assert d["wti"]["realized_vol_63d_pct"] == pytest.approx(round(rets.iloc[-63:].std() * math.sqrt(252) * 100, 2))
    assert d["wti"]["sma_200"] == pytest.approx(round(s.iloc[-200:].mean(), 2))
    spread = pd.Series(brent - wti, index=s.index)
    year = spread[spread.index > pd.Timestamp(NOW - timedelta(days=365))]
    assert d["spread_brent_wti"]["level_usd"] == pytest.approx(round(brent[-1] - wti[-1], 2))
    z = (spread.iloc[-1] - statistics.mean(year)) / statistics.stdev(year)
    assert d["spread_brent_wti"]["zscore_1y"] == pytest.approx(round(z, 2))
    assert d["lead_benchmark"] == "wti" and "Brent-WTI spread" in payload["summary"]


def test_oil_shock_is_flagged_with_high_urgency():
    n = 400
    rng = np.random.default_rng(8)
    # a calm year (0.5% daily moves), then a month of large daily moves that add up to about +30%
    moves = np.concatenate([rng.normal(0, 0.005, n - 22), np.tile([0.05, -0.03], 11) + 0.0125])
    wti = 60 * np.exp(np.cumsum(moves))
    dates, wti, brent = market(n, wti=wti)
    payload = oil.compute(make_frames({"DCOILWTICO": series(dates, wti), "DCOILBRENTEU": series(dates, brent)}))
    check_payload(payload)
    sig = {s["name"]: s for s in payload["signals"]}
    assert payload["data"]["wti"]["change_1m_pct"] >= 20
    assert sig["oil_shock"]["direction"] == "bullish" and sig["oil_shock"]["urgency"] == "high"
    assert sig["oil_trend"]["direction"] == "bullish"
    assert sig["oil_volatility"]["urgency"] == "medium"  # a calm year then a jump: vol at its 1-year high


def test_falling_oil_is_a_bearish_trend():
    n = 400
    dates, wti, brent = market(n, wti=np.linspace(90, 60, n) + np.random.default_rng(4).normal(0, 0.2, n))
    payload = oil.compute(make_frames({"DCOILWTICO": series(dates, wti), "DCOILBRENTEU": series(dates, brent)}))
    sig = payload["signals"][0]
    assert payload["data"]["wti"]["trend_state"] == "downtrend"
    assert sig["name"] == "oil_trend" and sig["direction"] == "bearish"


def test_brent_missing_spread_unavailable_and_confidence_lower():
    dates, wti, brent = market()
    both = oil.compute(make_frames({"DCOILWTICO": series(dates, wti), "DCOILBRENTEU": series(dates, brent)}))
    alone = oil.compute(make_frames({"DCOILWTICO": series(dates, wti)}))
    check_payload(alone)
    assert "spread_brent_wti" not in alone["data"] and "spread_brent_wti" in alone["data"]["unavailable"]
    assert alone["data_sources"]["missing"] == ["DCOILBRENTEU"]
    assert "missing inputs: DCOILBRENTEU" in alone["summary"] and "unavailable" in alone["summary"]
    assert alone["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    # Brent alone leads when WTI is absent
    only_brent = oil.compute(make_frames({"DCOILBRENTEU": series(dates, brent)}))
    check_payload(only_brent)
    assert only_brent["data"]["lead_benchmark"] == "brent" and only_brent["summary"].startswith("Brent")


def test_stale_wti_lowers_confidence():
    dates, wti, brent = market()
    fresh = oil.compute(make_frames({"DCOILWTICO": series(dates, wti), "DCOILBRENTEU": series(dates, brent)}))
    stale = oil.compute(make_frames({"DCOILWTICO": series(dates[:-20], wti[:-20]),
                                     "DCOILBRENTEU": series(dates, brent)}))
    check_payload(stale)
    assert "stale inputs: DCOILWTICO" in stale["summary"]
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]


def test_short_history_and_negative_print_do_not_crash():
    dates, wti, brent = market(30)
    payload = oil.compute(make_frames({"DCOILWTICO": series(dates, wti), "DCOILBRENTEU": series(dates, brent)}))
    check_payload(payload)
    assert payload["data"]["wti"]["change_1y_pct"] is None and payload["data"]["wti"]["realized_vol_63d_pct"] is None
    assert payload["data"]["wti"]["realized_vol_21d_pct"] is not None
    # April 2020: WTI printed below zero; returns off a non-positive base are skipped, not NaN
    wti = np.full(300, 20.0) + np.random.default_rng(1).normal(0, 0.5, 300)
    wti[-10] = -37.63
    dates = bdays(300)
    payload = oil.compute(make_frames({"DCOILWTICO": series(dates, wti)}))
    check_payload(payload)
    assert payload["data"]["wti"]["realized_vol_21d_pct"] > 100
