import math

import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, series

from intel.envelope import InsufficientData
from intel.modules import duration_risk


def _yields(n=1200, seed=8, start=4.0, vol_bp=5.0, tail_vol_bp=None):
    rng = np.random.default_rng(seed)
    moves = rng.normal(0, vol_bp, n)
    if tail_vol_bp is not None:
        moves[-21:] = rng.normal(0, tail_vol_bp, 21)
    return np.round(start + np.cumsum(moves) / 100, 4)


def _price(coupon_pct, yield_pct, years):
    """Independent reference: discount every semiannual cash flow of a bond with face 100."""
    c, y = coupon_pct / 2, yield_pct / 200
    return sum(c / (1 + y) ** k for k in range(1, 2 * years + 1)) + 100 / (1 + y) ** (2 * years)


def test_volatility_duration_and_shock_pnl_match_references():
    dates = bdays(1200)
    ten, thirty = _yields(), _yields(seed=9, start=4.3, vol_bp=4.0)
    payload = duration_risk.compute(make_frames({"DGS10": series(dates, ten), "DGS30": series(dates, thirty)}))
    check_payload(payload)
    d = payload["data"]["10y"]
    moves = np.diff(ten) * 100
    for n in (21, 63, 252):
        assert d[f"realized_vol_{n}d_bp_per_day"] == pytest.approx(round(np.std(moves[-n:], ddof=1), 2))
    sigma = np.std(moves[-63:], ddof=1)
    assert d["realized_vol_63d_bp_annualized"] == pytest.approx(round(sigma * math.sqrt(252), 1))
    rolling = np.array([np.std(moves[i - 21:i], ddof=1) for i in range(21, len(moves) + 1)])
    assert d["vol_21d_percentile_10y"] == pytest.approx(round((rolling <= rolling[-1]).mean() * 100, 1))
    y = ten[-1]
    bond = d["par_bond"]
    assert bond["modified_duration"] == pytest.approx(round((1 - (1 + y / 200) ** -20) / (y / 100), 2))
    for key, bp in (("plus_100bp", 100), ("minus_100bp", -100), ("two_sigma_1m_up", 2 * sigma * math.sqrt(21)),
                    ("two_sigma_1d_down", -2 * sigma)):
        expected = _price(y, y + bp / 100, 10) - 100  # percent of a 100 face par bond
        assert bond["shocks"][key]["pnl_pct"] == pytest.approx(round(expected, 2)), key
    assert bond["carry_breakeven_rise_1y_bp"] == pytest.approx(round(y * 100 / bond["modified_duration"], 1), rel=1e-3)
    # the 30y bond carries about twice the 10y's duration
    assert 1.6 < payload["data"]["30y"]["par_bond"]["modified_duration"] / bond["modified_duration"] < 2.6


def test_volatility_spike_is_bearish_and_calm_bullish():
    dates = bdays(1200)
    spike = duration_risk.compute(make_frames({"DGS10": series(dates, _yields(tail_vol_bp=15.0))}))
    check_payload(spike)
    sig = next(s for s in spike["signals"] if s["name"] == "rate_volatility")
    assert spike["data"]["10y"]["vol_21d_percentile_10y"] >= 95
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    calm = duration_risk.compute(make_frames({"DGS10": series(dates, _yields(tail_vol_bp=1.5))}))
    sig = next(s for s in calm["signals"] if s["name"] == "rate_volatility")
    assert sig["direction"] == "bullish" and sig["urgency"] == "low"
    check_payload(calm)


def test_missing_tenor_and_short_history_degrade():
    dates = bdays(1200)
    parts = {"DGS10": series(dates, _yields()), "DGS30": series(dates, _yields(seed=3, start=4.4))}
    full = duration_risk.compute(make_frames(parts))
    only30 = duration_risk.compute(make_frames({"DGS30": parts["DGS30"]}))
    check_payload(only30)
    assert "10y" not in only30["data"] and only30["data"]["unavailable"]["10y"] == "DGS10 missing"
    assert only30["data_sources"]["missing"] == ["DGS10"] and "30y" in only30["signals"][0]["reason"]
    assert "missing inputs: DGS10" in only30["summary"] and "Not computed: 10y" in only30["summary"]
    # a stale lead costs confidence
    stale = duration_risk.compute(make_frames({"DGS10": parts["DGS10"].head(1180), "DGS30": parts["DGS30"]}))
    check_payload(stale)
    assert "stale inputs: DGS10" in stale["summary"]
    assert stale["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    short = duration_risk.compute(make_frames({k: v.tail(30) for k, v in parts.items()}))
    check_payload(short)
    d = short["data"]["10y"]
    assert d["realized_vol_21d_bp_per_day"] is not None and d["realized_vol_63d_bp_per_day"] is None
    assert "two_sigma_1m_up" not in d["par_bond"]["shocks"] and "plus_100bp" in d["par_bond"]["shocks"]
    assert "10y 2-sigma shocks" in short["data"]["unavailable"]
    with pytest.raises(InsufficientData):
        duration_risk.compute(make_frames({}))
