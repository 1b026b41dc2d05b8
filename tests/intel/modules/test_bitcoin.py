import math
from datetime import timedelta

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
