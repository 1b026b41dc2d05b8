import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import equity_volatility


def _vol_regime_path(n=1500, burst=0, seed=3):
    """Daily returns at 1% vol; the last `burst` days at 4%."""
    rng = np.random.default_rng(seed)
    rets = rng.normal(0, 0.01, n)
    if burst:
        rets[-burst:] = rng.normal(0, 0.04, burst)
    return 3000 * np.exp(np.cumsum(rets))


def test_realized_vols_and_cone_match_pandas():
    dates, close = bdays(1500), random_walk(1500, 3000, 0.012, seed=5)
    payload = equity_volatility.compute(make_frames({"SP500": series(dates, close)}))
    d = payload["data"]
    logret = np.log(pd.Series(close)).diff()
    for n in (10, 21, 63):
        rolling = logret.rolling(n).std() * np.sqrt(252) * 100
        assert d[f"realized_vol_{n}d_pct"] == pytest.approx(round(rolling.iloc[-1], 2))
        past = rolling.dropna().to_numpy()
        cone = d["vol_cone"][f"{n}d"]
        assert cone["observations"] == len(past)
        assert cone["p50_pct"] == pytest.approx(round(np.median(past), 2))
        assert cone["p90_pct"] == pytest.approx(round(np.percentile(past, 90), 2))
        assert cone["max_pct"] == pytest.approx(round(past.max(), 2))
        assert cone["percentile"] == pytest.approx(round((past <= rolling.iloc[-1]).mean() * 100, 1))
    ratio = (logret.rolling(10).std() / logret.rolling(63).std()).iloc[-1]
    assert d["vol_ratio_10d_63d"] == pytest.approx(round(ratio, 2))
    assert d["realized_vol_21d_1m_ago_pct"] == pytest.approx(
        round((logret.rolling(21).std() * np.sqrt(252) * 100).iloc[-22], 2))
    check_payload(payload)


def test_volatility_burst_is_bearish_and_urgent():
    dates = bdays(1500)
    payload = equity_volatility.compute(make_frames({"SP500": series(dates, _vol_regime_path(burst=15))}))
    d, sig = payload["data"], payload["signals"][0]
    assert d["vol_regime"] == "high" and d["vol_trend"] == "rising"
    assert d["vol_cone"]["21d"]["percentile"] >= 90
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_calm_after_a_volatile_past_is_bullish():
    rng = np.random.default_rng(8)
    rets = np.concatenate([rng.normal(0, 0.02, 1300), rng.normal(0, 0.004, 200)])
    payload = equity_volatility.compute(make_frames({"SP500": series(bdays(1500), 3000 * np.exp(np.cumsum(rets)))}))
    assert payload["data"]["vol_regime"] == "low"
    assert payload["signals"][0]["direction"] == "bullish" and payload["signals"][0]["urgency"] == "low"
    check_payload(payload)


def test_stale_and_short_history_degrade_honestly():
    close = _vol_regime_path()
    fresh = equity_volatility.compute(make_frames({"SP500": series(bdays(1500), close)}))
    stale_dates = bdays(1500, end=bdays(21)[0])  # the last close is 20 business days old
    stale = equity_volatility.compute(make_frames({"SP500": series(stale_dates, close)}))
    assert stale["data_sources"]["series"][0]["stale"]
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: SP500" in stale["summary"]
    check_payload(stale)

    short = equity_volatility.compute(make_frames({"SP500": series(bdays(30), close[:30])}))
    d = short["data"]
    assert d["realized_vol_10d_pct"] is not None and d["realized_vol_63d_pct"] is None
    assert d["vol_regime"] is None and "vol_cone.21d" in d["unavailable"]
    assert short["signals"][0]["direction"] == "neutral"
    check_payload(short)

    with pytest.raises(InsufficientData):
        equity_volatility.compute(make_frames({"SP500": series(bdays(5), close[:5])}))
    with pytest.raises(InsufficientData):
        equity_volatility.compute(make_frames({}))
