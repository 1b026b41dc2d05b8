import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import fx_volatility as fv


def _rv(values, n):
    return np.log(pd.Series(values)).diff().iloc[-n:].std() * np.sqrt(252) * 100


def test_vols_and_percentiles_match_pandas():
    n = 700
    eur, jpy = random_walk(n, 1.1, 0.005, seed=1), random_walk(n, 140, 0.006, seed=2)
    dates = bdays(n)
    payload = fv.compute(make_frames({"DEXUSEU": series(dates, eur), "DEXJPUS": series(dates, jpy)}))
    d = payload["data"]
    e = d["pairs"]["EURUSD"]
    assert e["quote"] == "USD per EUR" and d["pairs"]["USDJPY"]["quote"] == "JPY per USD"
    for key, k in (("realized_vol_10d_pct", 10), ("realized_vol_21d_pct", 21), ("realized_vol_63d_pct", 63)):
        assert e[key] == pytest.approx(round(_rv(eur, k), 2))
    roll = np.log(pd.Series(eur)).diff().rolling(21).std().dropna() * np.sqrt(252) * 100
    assert e["vol_21d_percentile_10y"] == pytest.approx(round((roll <= roll.iloc[-1]).mean() * 100, 1))
    avg = np.mean([e["vol_21d_percentile_10y"], d["pairs"]["USDJPY"]["vol_21d_percentile_10y"]])
    assert d["average_vol_21d_percentile_10y"] == pytest.approx(round(avg, 1), abs=0.06)
    assert d["most_volatile_pair"] == max(("EURUSD", "USDJPY"), key=lambda p: d["pairs"][p]["realized_vol_21d_pct"])
    assert "DEXMXUS" in d["unavailable"] and "DEXMXUS" in payload["data_sources"]["missing"]
    check_payload(payload)


def _spiky(seed, n=600):
    rng = np.random.default_rng(seed)
    rets = np.concatenate([rng.normal(0, 0.003, n - 21), rng.normal(0, 0.02, 21)])
    return 100 * np.exp(np.cumsum(rets))


def test_vol_spike_across_pairs_is_bearish():
    dates = bdays(600)
    frames = make_frames({"DEXJPUS": series(dates, _spiky(3)), "DEXSZUS": series(dates, _spiky(4) / 100)})
    payload = fv.compute(frames)
    d = payload["data"]
    assert d["fx_vol_state"] == "high" and d["pairs"]["USDJPY"]["vol_21d_percentile_10y"] == 100.0
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    rising = [p for p, row in d["pairs"].items() if row["vol_ratio_10d_to_63d"] > 1.25]
    assert d["pairs_with_rising_vol"] == sorted(rising) and rising
    check_payload(payload)


def test_calm_after_storm_is_bullish():
    rng = np.random.default_rng(5)
    rets = np.concatenate([rng.normal(0, 0.02, 500), rng.normal(0, 0.002, 60)])
    payload = fv.compute(make_frames({"DEXCAUS": series(bdays(560), 1.3 * np.exp(np.cumsum(rets)))}))
    assert payload["data"]["fx_vol_state"] == "low" and payload["signals"][0]["direction"] == "bullish"


def test_short_and_stale_pairs_degrade():
    dates = bdays(400)
    frames = make_frames({
        "DEXUSEU": series(dates, random_walk(400, 1.1, 0.005, seed=6)),
        "DEXMXUS": series(dates[:10], random_walk(10, 17, 0.008, seed=7)),  # too short
        "DEXCAUS": series(bdays(400, np.busday_offset(NOW, -30).astype(object)), random_walk(400, 1.3, 0.004, seed=8)),
    })
    payload = fv.compute(frames)
    d = payload["data"]
    assert "USDMXN" in d["unavailable"]
    assert d["pairs"]["USDCAD"]["stale"] and d["pairs_in_average"] == ["EURUSD"]
    assert "stale inputs: DEXCAUS" in payload["summary"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        fv.compute(make_frames({"DEXUSEU": series(dates[:5], [1.1, 1.11, 1.12, 1.1, 1.09])}))
