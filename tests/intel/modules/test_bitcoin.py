import math
from datetime import UTC, timedelta

import numpy as np
import pytest
from builders import NOW, cdays, check_payload, make_frames, series

from intel.modules import bitcoin


def test_drawdown_from_known_peak_and_vol():
    dates = cdays(400)
    up, down = np.linspace(20000, 60000, 300), np.linspace(60000, 30000, 101)[1:]
    prices = np.concatenate([up, down])
    payload = bitcoin.compute(make_frames({"CBBTCUSD": series(dates, prices)}))
    d = payload["data"]
    assert d["high"] == 60000.0 and d["high_date"] == dates[299].isoformat()
    assert d["drawdown_from_high_pct"] == -50.0 and d["days_since_high"] == 100
    rets = np.diff(np.log(prices))[-30:]
    assert d["realized_vol_30d_pct"] == pytest.approx(round(rets.std(ddof=1) * math.sqrt(365) * 100, 2))
    month_ago = prices[dates.index(NOW - timedelta(days=30))]
    assert d["change_1m_pct"] == pytest.approx(round((prices[-1] / month_ago - 1) * 100, 2))
    names = {s["name"]: s for s in payload["signals"]}
    assert names["btc_drawdown"]["direction"] == "bearish" and names["btc_drawdown"]["urgency"] == "high"
    check_payload(payload)


def test_stale_bitcoin_lowers_confidence():
    fresh = bitcoin.compute(make_frames({"CBBTCUSD": series(cdays(400), np.linspace(20000, 60000, 400))}))
    old_end = NOW - timedelta(days=40)
    stale = bitcoin.compute(make_frames({"CBBTCUSD": series(cdays(400, old_end), np.linspace(20000, 60000, 400))}))
    assert stale["data_sources"]["series"][0]["stale"] and not fresh["data_sources"]["series"][0]["stale"]
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: CBBTCUSD" in stale["summary"]
    check_payload(stale)


def hourly_frames(closes, data_source: str = "live"):
    """Daily history plus hourly candles closing on the hour up to 23:00 UTC of NOW."""
    from dataclasses import replace
    from datetime import datetime

    import polars as pl

    last = datetime(NOW.year, NOW.month, NOW.day, 23, tzinfo=UTC)
    ts = [last - timedelta(hours=len(closes) - 1 - k) for k in range(len(closes))]
    candles = pl.DataFrame({"ts": ts, "open": closes, "high": [c * 1.01 for c in closes],
                            "low": [c * 0.98 for c in closes], "close": closes, "volume": [1.0] * len(closes)})
    daily = make_frames({"CBBTCUSD": series(cdays(400), np.linspace(20000, 60000, 400))})
    return replace(daily, data_source=data_source, intraday={"CBBTCUSD": candles.with_columns(
        pl.col("ts").cast(pl.Datetime("us", "UTC")))}), ts


def test_intraday_figures_match_a_hand_computation():
    closes = [float(c) for c in np.round(60000 * np.exp(np.cumsum(np.random.default_rng(3).normal(0, 0.004, 49))), 2)]
    frames, ts = hourly_frames(closes)
    payload = bitcoin.compute(frames)
    block = payload["data"]["intraday"]
    assert block["last_close_usd"] == closes[-1] and block["last_close_ts"] == ts[-1].isoformat()
    assert block["change_24h_pct"] == round((closes[-1] / closes[-25] - 1) * 100, 2)  # the close 24h earlier
    assert block["high_24h"] == round(max(c * 1.01 for c in closes[-24:]), 2)  # the 24 candles of the last day
    assert block["low_24h"] == round(min(c * 0.98 for c in closes[-24:]), 2)
    rets = np.diff(np.log(closes[-25:]))  # 24 hourly returns
    assert len(rets) == 24 and block["candles_24h"] == 24
    assert block["realized_vol_24h_pct"] == round(rets.std(ddof=1) * math.sqrt(24 * 365) * 100, 2)
    assert "intraday" not in payload["data"].get("unavailable", {})
    assert f"{block['last_close_usd']} USD" in payload["summary"] and "hourly" in payload["methodology"]
    check_payload(payload)


def test_a_short_intraday_history_gives_no_24h_change_rather_than_a_wrong_one():
    frames, _ = hourly_frames([100.0, 101.0, 102.0])
    block = bitcoin.compute(frames)["data"]["intraday"]
    assert block["change_24h_pct"] is None and block["last_close_usd"] == 102.0
    assert block["realized_vol_24h_pct"] is not None and block["candles_24h"] == 3


def test_with_sim_intraday_is_unavailable_not_invented():
    from dataclasses import replace

    frames = replace(make_frames({"CBBTCUSD": series(cdays(400), np.linspace(20000, 60000, 400))}), data_source="sim")
    payload = bitcoin.compute(frames)
    assert "intraday" not in payload["data"]
    assert payload["data"]["unavailable"]["intraday"] == "the sim provider has no intraday candles"
    assert "hourly" not in payload["summary"].lower()
    check_payload(payload)
    live = bitcoin.compute(replace(frames, data_source="live"))  # live but nothing stored in the window
    assert "no hourly CBBTCUSD candles" in live["data"]["unavailable"]["intraday"]
