import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, random_walk, series

from intel.catalog import SECTORS
from intel.envelope import InsufficientData
from intel.modules import market_breadth

N = 600


def _sectors(drifts, n=N, seed=1, vol=0.01):
    dates = bdays(n)
    return {sid: series(dates, random_walk(n, 50 + k, vol, seed + k, drift=drifts[k]))
            for k, sid in enumerate(SECTORS)}


def test_shares_and_new_highs_match_pandas():
    drifts = [0.002, -0.002, 0.001, -0.001, 0.0, 0.003, -0.003, 0.0005, -0.0005, 0.0015, -0.0015]
    parts = _sectors(drifts, seed=4)
    payload = market_breadth.compute(make_frames(parts))
    d = payload["data"]
    frame = pd.DataFrame({sid: f["value"].to_numpy() for sid, f in parts.items()})
    sma50, sma200 = frame.rolling(50).mean().iloc[-1], frame.rolling(200).mean().iloc[-1]
    last = frame.iloc[-1]
    assert d["share_above_sma50_pct"] == pytest.approx(round((last > sma50).mean() * 100, 1))
    assert d["share_above_sma200_pct"] == pytest.approx(round((last > sma200).mean() * 100, 1))
    year = frame.tail(252)
    assert d["new_52w_highs"] == int((last >= year.max()).sum())
    assert d["new_52w_lows"] == int((last <= year.min()).sum())
    for sid in SECTORS:
        distance = (last[sid] / sma200[sid] - 1) * 100
        assert d["sectors"][sid]["distance_to_sma200_pct"] == pytest.approx(round(distance, 2))
        assert d["sectors"][sid]["above_sma50"] == bool(last[sid] > sma50[sid])
    change = frame.diff()
    adv = (change > 0).sum(axis=1) / change.notna().sum(axis=1)
    adv.iloc[0] = 0.5  # the module seeds the first day (no change yet) as neutral
    ema = adv.ewm(span=10, adjust=False).mean()
    assert d["advance_share_ema10_pct"] == pytest.approx(round(ema.iloc[-1] * 100, 1))
    assert d["advancing_today"] == int((change.iloc[-1] > 0).sum())
    check_payload(payload)


def test_zweig_thrust_fires_after_a_washout():
    """All sectors fall for 15 days, then all rise: the 10-day EMA of the advance share crosses 61.5% from
    below 40% within ten days; the same rise lifts every sector above its 50-day average."""
    n = 300
    base = np.concatenate([np.full(n - 30, 0.0005), np.full(15, -0.02), np.full(15, 0.03)])
    dates = bdays(n)
    parts = {sid: series(dates, (40 + k) * np.exp(np.cumsum(base + 0.0001 * k))) for k, sid in enumerate(SECTORS)}
    payload = market_breadth.compute(make_frames(parts))
    t = payload["data"]["thrusts"]
    adv = pd.Series(np.concatenate([[0.5], (np.diff(np.cumsum(base)) > 0).astype(float)]))
    ema = adv.ewm(span=10, adjust=False).mean()
    crossed = [i for i in range(1, n) if ema[i] > 0.615 >= ema[i - 1] and ema[max(0, i - 10):i].min() < 0.40]
    assert t["zweig_last_date"] == dates[crossed[-1]].isoformat() and t["zweig_active"]
    assert payload["data"]["share_above_sma50_pct"] == 100.0
    names = {s["name"]: s for s in payload["signals"]}
    assert names["breadth_thrust"]["direction"] == "bullish" and names["breadth_thrust"]["urgency"] == "medium"
    check_payload(payload)


def test_broad_downtrend_with_new_lows_is_bearish_and_urgent():
    parts = _sectors([-0.004] * 11, seed=8, vol=0.004)
    payload = market_breadth.compute(make_frames(parts))
    d, sig = payload["data"], payload["signals"][0]
    assert d["share_above_sma200_pct"] <= 30 and d["new_52w_lows"] >= 4
    assert sig["name"] == "breadth_state" and sig["direction"] == "bearish" and sig["urgency"] == "high"
    up = market_breadth.compute(make_frames(_sectors([0.003] * 11, seed=8, vol=0.004)))
    assert up["signals"][0]["direction"] == "bullish"
    check_payload(payload)
    check_payload(up)


def test_missing_and_stale_sectors_and_short_history():
    parts = _sectors([0.003] * 11, seed=2, vol=0.004)
    full = market_breadth.compute(make_frames(parts))
    fewer = {k: v for k, v in parts.items() if k not in ("XLC", "XLRE")}
    fewer["XLE"] = fewer["XLE"].head(N - 20)
    part = market_breadth.compute(make_frames(fewer))
    assert part["data"]["sectors_covered"] == 9 and set(part["data_sources"]["missing"]) == {"XLC", "XLRE"}
    assert "stale inputs: XLE" in part["summary"] and "missing inputs: XLC, XLRE" in part["summary"]
    assert part["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(part)
    short = market_breadth.compute(make_frames({k: v.tail(80) for k, v in parts.items()}))
    d = short["data"]
    assert d["share_above_sma200_pct"] is None and "share_above_sma200_pct" in d["unavailable"]
    assert d["share_above_sma50_pct"] is not None and "new_52w_highs_lows" in d["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        market_breadth.compute(make_frames({}))
