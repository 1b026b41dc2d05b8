"""Provenance of the crypto modules: the key figures name the right series, observations and operation, and no
figure falls back to the module's whole input list."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest
from builders import NOW, bdays, cdays, make_frames, random_walk, series
from test_bitcoin import hourly_frames

from intel.modules import (
    bitcoin,
    btc_macro_correlation,
    crypto_market,
    crypto_momentum,
    crypto_risk,
    crypto_volatility,
    ethereum,
    halving_cycle,
)
from tests.intel.provenance_checks import expanded

BTC, ETH = "CBBTCUSD", "CBETHUSD"
DAYS = cdays(900)
BUS = [d for d in bdays(700) if d >= DAYS[0]]


def market() -> dict:
    return {BTC: series(DAYS, random_walk(len(DAYS), 30000, 0.03, 1)),
            ETH: series(DAYS, random_walk(len(DAYS), 2000, 0.04, 2)),
            "SP500": series(BUS, random_walk(len(BUS), 4000, 0.01, 3)),
            "NASDAQCOM": series(BUS, random_walk(len(BUS), 15000, 0.012, 4)),
            "DTWEXBGS": series(BUS, random_walk(len(BUS), 120, 0.003, 5)),
            "DGS10": series(BUS, 4 + np.cumsum(np.random.default_rng(6).normal(0, 0.05, len(BUS)))),
            "T10YIE": series(BUS, 2.3 + np.cumsum(np.random.default_rng(7).normal(0, 0.02, len(BUS))))}


def named(entry: dict) -> dict[str, list[str]]:
    """series -> the dates an entry names (its `through` date when it rests on a stretch of history)."""
    return {i["series"]: i.get("dates") or [i["through"]] for i in entry["inputs"]}


def iso(d: date) -> str:
    return d.isoformat()


@pytest.mark.parametrize("module", [bitcoin, ethereum, crypto_market, crypto_volatility, crypto_momentum,
                                    btc_macro_correlation, crypto_risk, halving_cycle])
def test_no_figure_falls_back_to_the_module_inputs(module):
    payload = module.compute(make_frames(market()))
    fallback = [k for k, v in expanded(payload["provenance"]).items() if v["attribution"] == "module"]
    assert not fallback


def test_bitcoin_price_returns_and_drawdown_name_their_closes():
    frames = make_frames(market())
    payload = bitcoin.compute(frames)
    prov, data = expanded(payload["provenance"]), payload["data"]
    assert prov["price_usd"]["attribution"] == "observation" and named(prov["price_usd"]) == {BTC: [iso(NOW)]}
    assert prov["price_usd"]["recompute"] == {"kind": "level", "scale": 1.0, "decimals": 2}
    month = prov["change_1m_pct"]
    assert named(month) == {BTC: [iso(NOW), iso(NOW - timedelta(days=30))]} and month["attribution"] == "observation"
    assert month["recompute"]["kind"] == "pct_change"
    close = frames.get(BTC)["value"].to_numpy()
    peak = DAYS[int(np.argmax(close))]
    assert named(prov["drawdown_from_high_pct"]) == {BTC: [iso(NOW), iso(peak)]}
    assert data["drawdown_from_high_pct"] == round((close[-1] / close.max() - 1) * 100, 2)
    assert named(prov["high"]) == {BTC: [iso(peak)]}
    assert prov["realized_vol_30d_pct"]["attribution"] == "series"
    assert "30 daily log returns" in prov["realized_vol_30d_pct"]["operation"]


def test_bitcoin_intraday_figures_name_the_candle_series_and_days():
    closes = [60000.0 + 10 * k for k in range(49)]
    frames, ts = hourly_frames(closes)
    prov = expanded(bitcoin.compute(frames)["provenance"])
    assert prov["intraday.last_close_usd"]["inputs"] == [{"series": BTC, "dates": [iso(ts[-1].date())]}]
    days = sorted({iso(t.date()) for t in (ts[-25], ts[-1])})
    assert prov["intraday.change_24h_pct"]["inputs"] == [{"series": BTC, "dates": days}]
    assert all(prov[f"intraday.{k}"]["attribution"] == "series" and "hourly" in prov[f"intraday.{k}"]["operation"]
               for k in ("high_24h", "low_24h", "realized_vol_24h_pct", "candles_24h"))


def test_ethereum_ratio_names_both_closes_of_the_last_common_date():
    prov = expanded(ethereum.compute(make_frames(market()))["provenance"])
    ratio = prov["eth_btc.eth_btc_ratio"]
    assert ratio["attribution"] == "observation" and named(ratio) == {ETH: [iso(NOW)], BTC: [iso(NOW)]}
    assert ratio["recompute"]["kind"] == "ratio"
    assert set(named(prov["eth_btc.correlation_90d"])) == {ETH, BTC}
    assert named(prov["change_1d_pct"]) == {ETH: [iso(NOW), iso(NOW - timedelta(days=1))]}  # ether's own closes
    assert prov["eth_btc.co_window_days"]["inputs"] == []  # a parameter rests on no observation


def test_crypto_market_coin_figures_name_their_coin_and_cross_figures_both():
    prov = expanded(crypto_market.compute(make_frames(market()))["provenance"])
    assert set(named(prov["coins.ETH.distance_to_sma200_pct"])) == {ETH}
    assert set(named(prov["coins.BTC.position_in_1y_range_pct"])) == {BTC}
    assert named(prov["cross.eth_btc_price_ratio"]) == {ETH: [iso(NOW)], BTC: [iso(NOW)]}
    assert set(named(prov["cross.eth_minus_btc_3m_pp"])) == {ETH, BTC}
    assert set(named(prov["coins_in_uptrend"])) == {ETH, BTC}


def test_crypto_volatility_spx_leg_names_the_sp500_only():
    prov = expanded(crypto_volatility.compute(make_frames(market()))["provenance"])
    assert set(named(prov["btc_vs_spx.spx_realized_vol_21d_pct"])) == {"SP500"}
    assert set(named(prov["btc_vs_spx.btc_spx_vol_ratio"])) == {BTC, "SP500"}
    assert set(named(prov["vol_cone_30d.p50_pct"])) == {BTC}
    assert prov["vol_cone_30d.p50_pct"]["operation"].startswith("50th percentile of the rolling 30-day")


def test_crypto_momentum_12_1_is_the_change_between_two_named_closes():
    prov = expanded(crypto_momentum.compute(make_frames(market()))["provenance"])
    entry = prov["ETH.momentum_12_1_pct"]
    assert entry["attribution"] == "observation"
    assert named(entry) == {ETH: [iso(NOW - timedelta(days=30)), iso(NOW - timedelta(days=365))]}
    assert set(named(prov["BTC.rsi_14d"])) == {BTC} and "RSI" in prov["BTC.rsi_14d"]["operation"]
    assert set(named(prov["combined_momentum_score"])) == {BTC, ETH}


def test_btc_macro_correlation_names_bitcoin_and_the_driver_through_their_last_common_date():
    payload = btc_macro_correlation.compute(make_frames(market()))
    prov = expanded(payload["provenance"])
    end = payload["data"]["DGS10"]["sample_end"]
    assert named(prov["DGS10.correlation_63d"]) == {BTC: [end], "DGS10": [end]}
    move = prov["DGS10.driver_change_1m_bp"]
    assert move["attribution"] == "observation" and move["recompute"] == {"kind": "difference", "scale": 100.0,
                                                                          "decimals": 2}
    assert list(named(move)) == ["DGS10"]
    assert set(named(prov["mean_abs_correlation_63d"])) == {BTC, "NASDAQCOM", "DTWEXBGS", "DGS10", "T10YIE"}
    assert prov["window_short_days"]["inputs"] == []


def test_crypto_risk_high_and_shortfall_provenance_and_new_high_wording():
    rising = {BTC: series(DAYS, np.linspace(20000, 60000, len(DAYS))),
              ETH: series(DAYS, random_walk(len(DAYS), 2000, 0.04, 2))}
    payload = crypto_risk.compute(make_frames(rising))
    prov = expanded(payload["provenance"])
    assert named(prov["BTC.high"]) == {BTC: [iso(NOW)]} and prov["BTC.high"]["attribution"] == "observation"
    assert "expected shortfall" in prov["BTC.expected_shortfall_95_1d_pct"]["operation"]
    assert prov["shortfall_confidence_level_pct"]["inputs"] == []
    assert set(named(prov["crypto_risk_score"])) == {BTC, ETH}
    # at a new high the summary says so rather than "0.0% below"
    assert f"BTC is at its {iso(NOW)} high" in payload["summary"] and "0.0% below" not in payload["summary"]


def test_halving_cycle_returns_name_the_halving_day_close_and_calendar_figures_no_input():
    now = date(2026, 1, 15)
    dates = [date(2014, 12, 1) + timedelta(days=k) for k in range((now - date(2014, 12, 1)).days + 1)]
    payload = halving_cycle.compute(make_frames({BTC: series(dates, 300 * np.exp(0.001 * np.arange(len(dates))))},
                                                now=now))
    prov = expanded(payload["provenance"])
    assert named(prov["return_since_halving_pct"]) == {BTC: [iso(now), "2024-04-20"]}
    assert prov["return_since_halving_pct"]["attribution"] == "observation"
    assert prov["days_since_halving"]["inputs"] == [] and "as-of date" in prov["days_since_halving"]["operation"]
    first = prov["phase_performance.0.by_cycle.0.return_pct"]
    assert first["attribution"] == "observation" and list(named(first)) == [BTC]
    assert set(named(prov["phase_performance.0.mean_return_pct"])) == {BTC}
    # counts are published as floats but quoted as integers
    assert f"{payload['data']['days_since_halving']:.0f} days ago" in payload["summary"]
