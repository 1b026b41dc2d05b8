import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import dollar_strength as ds


def _payload(values, end=NOW, now=NOW):
    return ds.compute(make_frames({"DTWEXBGS": series(bdays(len(values), end), values)}, now=now))


def test_figures_match_pandas_and_numpy():
    values = random_walk(900, 110, 0.003, seed=4)
    payload = _payload(values)
    d = payload["data"]
    s = pd.Series(values)
    assert d["level"] == pytest.approx(round(values[-1], 2))
    sma200 = s.rolling(200).mean().iloc[-1]
    assert d["trend"]["distance_to_sma200_pct"] == pytest.approx(round((values[-1] / sma200 - 1) * 100, 2))
    rv = np.log(s).diff().iloc[-21:].std() * np.sqrt(252) * 100
    assert d["realized_vol_21d_pct"] == pytest.approx(round(rv, 2))
    assert d["momentum"]["momentum_12_1_pct"] == pytest.approx(round((values[-22] / values[-253] - 1) * 100, 2))
    assert d["momentum"]["return_3m_pct"] == pytest.approx(round((values[-1] / values[-64] - 1) * 100, 2))
    # 900 business days are under ten years: the 10y percentile ranks against the whole series
    assert d["percentile_10y"] == pytest.approx(round((values <= values[-1]).mean() * 100, 1))
    z = (values[-1] - values.mean()) / values.std(ddof=1)
    assert d["zscore_10y"] == pytest.approx(round(z, 2))
    assert "percentile_10y" in d["unavailable"]  # under five years of history, said so
    check_payload(payload)


def test_rising_dollar_is_bullish_and_falling_is_bearish():
    up = 100 * np.exp(np.linspace(0, 0.12, 400))
    payload = _payload(up)
    sig = payload["signals"][0]
    assert sig["name"] == "usd_trend" and sig["direction"] == "bullish"
    assert payload["data"]["trend"]["trend_state"] == "uptrend"
    down = 100 * np.exp(np.linspace(0, -0.12, 400))
    payload = _payload(down)
    assert payload["signals"][0]["direction"] == "bearish"
    assert payload["data"]["trend"]["trend_state"] == "downtrend"
    check_payload(payload)


def test_flat_dollar_is_neutral():
    values = 100 + 0.05 * np.sin(np.arange(400) / 5)
    payload = _payload(values)
    assert payload["signals"][0]["direction"] == "neutral"


def test_short_history_and_stale_series_degrade_honestly():
    values = random_walk(60, 110, 0.003, seed=8)
    payload = _payload(values)
    d = payload["data"]
    assert d["trend"]["sma_200"] is None and d["momentum"]["momentum_12_1_pct"] is None
    assert {"trend_200d", "momentum_12_1_pct"} <= set(d["unavailable"])
    check_payload(payload)
    fresh = _payload(random_walk(400, 110, 0.003, seed=9))
    stale = _payload(random_walk(400, 110, 0.003, seed=9), end=np.busday_offset(NOW, -20).astype(object))
    assert stale["data_sources"]["series"][0]["stale"]
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: DTWEXBGS" in stale["summary"]
    check_payload(stale)
    with pytest.raises(InsufficientData):
        ds.compute(make_frames({}))
