from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, cdays, check_payload, make_frames, market, random_walk, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import market_summary

N = 400


def _inputs():
    dates = bdays(N)
    return {"SP500": series(dates, random_walk(N, 4000, 0.01, seed=1)),
            "NASDAQCOM": series(dates, random_walk(N, 15000, 0.012, seed=2)),
            "DGS10": series(dates, 4 + np.cumsum(np.random.default_rng(3).normal(0, 0.05, N))),
            "VIXCLS": series(dates, random_walk(N, 15, 0.05, seed=4)),
            "DTWEXBGS": series(dates, random_walk(N, 120, 0.003, seed=5)),
            "DCOILWTICO": series(dates, random_walk(N, 75, 0.02, seed=6)),
            "CBBTCUSD": series(cdays(560), random_walk(560, 60000, 0.03, seed=7))}


def test_moves_and_standard_deviations_match_pandas():
    parts = _inputs()
    payload = market_summary.compute(make_frames(parts))
    assets = payload["data"]["assets"]
    s, last = to_pandas(parts["SP500"]), pd.Timestamp(NOW)
    sp = assets["sp500"]
    assert sp["change_1d_pct"] == pytest.approx(round((s.iloc[-1] / s.iloc[-2] - 1) * 100, 2))
    assert sp["change_1w_pct"] == pytest.approx(round((s.iloc[-1] / s.asof(last - timedelta(days=7)) - 1) * 100, 2))
    assert sp["change_1m_pct"] == pytest.approx(round((s.iloc[-1] / s.asof(last - timedelta(days=30)) - 1) * 100, 2))
    assert sp["change_ytd_pct"] == pytest.approx(round((s.iloc[-1] / s.asof(pd.Timestamp("2023-12-31")) - 1) * 100, 2))
    year = s[s.index > last - timedelta(days=365)]
    std = (year.pct_change() * 100).std()
    assert sp["move_1d_sd"] == pytest.approx(round(sp["change_1d_pct"] / std, 2), abs=0.011)
    n_month = int((s.index > s[:last - timedelta(days=30)].index[-1]).sum())
    z_month = (s.iloc[-1] / s.asof(last - timedelta(days=30)) - 1) * 100 / (std * np.sqrt(n_month))
    assert sp["move_1m_sd"] == pytest.approx(round(z_month, 2))
    assert sp["high_52w"] == pytest.approx(round(year.max(), 2))
    y = to_pandas(parts["DGS10"])
    ten = assets["treasury_10y_yield"]
    assert ten["change_1m_bp"] == pytest.approx(round((y.iloc[-1] - y.asof(last - timedelta(days=30))) * 100, 2))
    assert ten["change_ytd_bp"] == pytest.approx(round((y.iloc[-1] - y.asof(pd.Timestamp("2023-12-31"))) * 100, 2))
    # biggest movers: ranked by the absolute 1-day move in standard deviations
    zs = {k: abs(v["move_1d_sd"]) for k, v in assets.items()}
    assert [m["asset"] for m in payload["data"]["biggest_movers"]["1d"]] == sorted(zs, key=lambda k: -zs[k])[:3]
    check_payload(payload)


def test_records_and_outsized_moves():
    parts = _inputs()
    spx = parts["SP500"]["value"].to_numpy().copy()
    spx[-1] = spx[-2] * 0.94  # a 6% fall on the day
    vix = parts["VIXCLS"]["value"].to_numpy().copy()
    vix[-1] = vix.max() * 1.2  # the VIX at a 52-week high
    parts["SP500"], parts["VIXCLS"] = series(parts["SP500"]["date"], spx), series(parts["VIXCLS"]["date"], vix)
    payload = market_summary.compute(make_frames(parts))
    records = {(r["asset"], r["record"]) for r in payload["data"]["notable_records"]}
    assert ("vix", "new_52w_high") in records and ("sp500", "largest_daily_move_52w") in records
    sig = {s["name"]: s for s in payload["signals"]}
    assert sig["records"]["direction"] == "bearish" and sig["records"]["urgency"] == "medium"
    assert "sp500" in [m["asset"] for m in payload["data"]["biggest_movers"]["1d"]]
    assert payload["data"]["assets"]["sp500"]["move_1d_sd"] <= -4
    # the top mover (a crashing S&P 500 or a spiking VIX) reads bearish either way
    assert sig["outsized_move"]["direction"] == "bearish" and sig["outsized_move"]["urgency"] == "high"
    assert "52-week high" in payload["summary"]
    check_payload(payload)


def test_crisis_tone_is_bearish():
    payload = market_summary.compute(make_frames(market("crisis")))
    sig = {s["name"]: s for s in payload["signals"]}
    assert payload["data"]["risk_tone_1m_sd"] <= -1
    tone = sig["cross_asset_tone"]
    assert tone["direction"] == "bearish" and tone["urgency"] in ("medium", "high")
    check_payload(payload)


def test_missing_and_short_inputs_degrade_honestly():
    parts = _inputs()
    full = market_summary.compute(make_frames(parts))
    no_btc = market_summary.compute(make_frames({k: v for k, v in parts.items() if k != "CBBTCUSD"}))
    assert no_btc["data_sources"]["missing"] == ["CBBTCUSD"] and "bitcoin" not in no_btc["data"]["assets"]
    assert no_btc["data"]["risk_tone_inputs"] == 4 and "missing inputs: CBBTCUSD" in no_btc["summary"]
    check_payload(no_btc)
    # oil is outside the risk tone: without it the tone is the same, only the confidence drops
    no_oil = market_summary.compute(make_frames({k: v for k, v in parts.items() if k != "DCOILWTICO"}))
    assert no_oil["data"]["risk_tone_1m_sd"] == full["data"]["risk_tone_1m_sd"]
    assert no_oil["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    stale = dict(parts, DCOILWTICO=parts["DCOILWTICO"].head(N - 15))  # three weeks without an oil price
    stale_payload = market_summary.compute(make_frames(stale))
    assert "stale inputs: DCOILWTICO" in stale_payload["summary"]
    assert stale_payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(stale_payload)

    short = market_summary.compute(make_frames({k: v.tail(30) for k, v in parts.items()}))
    sp = short["data"]["assets"]["sp500"]
    assert sp["change_1w_pct"] is not None and sp["change_ytd_pct"] is None and sp["move_1d_sd"] is None
    assert sp["records"] == [] and short["data"]["risk_tone_1m_sd"] is None
    check_payload(short)
    with pytest.raises(InsufficientData):
        market_summary.compute(make_frames({}))
