import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import equity_bond_relative as ebr

N = 600


def _price(y: float, n: int = 20, coupon: float | None = None) -> float:
    """Independent reference: price per 1 of face of a semi-annual bond with n coupons at yield y."""
    c = y if coupon is None else coupon
    k = np.arange(1, n + 1)
    return float(np.sum(c / 2 / (1 + y / 2) ** k) + 1 / (1 + y / 2) ** n)


def test_duration_and_convexity_match_finite_differences():
    for y in (0.01, 0.04, 0.07):
        h = 1e-5
        up, mid, down = _price(y + h, coupon=y), _price(y, coupon=y), _price(y - h, coupon=y)
        dur, cvx = ebr.par_duration_convexity(np.array([y]))
        assert mid == pytest.approx(1.0)
        assert dur[0] == pytest.approx(-(up - down) / (2 * h) / mid, rel=1e-5)
        assert cvx[0] == pytest.approx((up - 2 * mid + down) / h ** 2 / mid, rel=1e-3)


def test_relative_returns_and_yield_gap_by_hand():
    dates = bdays(N)
    spx = 3000 * np.exp(0.0004 * np.arange(N))  # +0.04% a day in log terms
    yld = np.full(N, 4.0)
    yld[-10:] = 5.0  # a 100 bp jump ten days ago
    payload = ebr.compute(make_frames({"SP500": series(dates, spx), "DGS10": series(dates, yld)}))
    d = payload["data"]
    # bond leg by hand: carry at 4% every day, and the jump day's duration/convexity loss
    carry = 0.04 / 252
    dur, cvx = ebr.par_duration_convexity(np.array([0.04]))
    jump = 0.04 / 252 - dur[0] * 0.01 + 0.5 * cvx[0] * 0.01 ** 2
    bond_3m = ((1 + carry) ** 53 * (1 + jump) * (1 + 0.05 / 252) ** 9 - 1) * 100
    equity_3m = (np.exp(0.0004 * 63) - 1) * 100
    r3 = d["relative_returns"]["3m"]
    assert r3["bond_return_pct"] == pytest.approx(round(bond_3m, 2))
    assert r3["equity_return_pct"] == pytest.approx(round(equity_3m, 2))
    assert r3["relative_return_pp"] == pytest.approx(round(equity_3m - bond_3m, 2), abs=0.011)
    gap = d["yield_gap_proxy"]
    assert gap["value_pp"] == pytest.approx(round((np.exp(0.0004 * 252) - 1) * 100 - 5.0, 2))
    assert "NOT an earnings yield" in gap["definition"]
    assert "not an earnings yield" in payload["summary"]
    duration = ebr.par_duration_convexity(np.array([0.05]))[0][0]
    assert d["bond_modified_duration_years"] == pytest.approx(round(duration, 2))
    # stocks rising steadily against a falling bond: stocks lead and yields jumped 100 bp
    sig = {s["name"]: s for s in payload["signals"]}
    assert d["relative_trend"]["state"] == "stocks_leading" and sig["relative_trend"]["direction"] == "bullish"
    assert d["yield_change_1m_bp"] == 100.0
    assert sig["rate_pressure"]["direction"] == "bearish" and sig["rate_pressure"]["urgency"] == "high"
    check_payload(payload)


def test_bonds_leading_when_stocks_fall_and_yields_drop():
    dates = bdays(N)
    spx = 3000 * np.exp(-0.0006 * np.arange(N))
    yld = np.linspace(5.0, 3.0, N)
    payload = ebr.compute(make_frames({"SP500": series(dates, spx), "DGS10": series(dates, yld)}))
    d = payload["data"]
    assert d["relative_trend"]["state"] == "bonds_leading"
    assert d["relative_returns"]["1y"]["relative_return_pp"] < 0
    assert {s["name"]: s for s in payload["signals"]}["relative_trend"]["direction"] == "bearish"
    check_payload(payload)


def test_stale_yield_lowers_confidence_and_missing_raises():
    dates = bdays(N)
    spx, yld = random_walk(N, 3000, 0.01, 2, drift=0.0005), 4 + np.cumsum(np.random.default_rng(3).normal(0, 0.03, N))
    fresh = ebr.compute(make_frames({"SP500": series(dates, spx), "DGS10": series(dates, yld)}))
    stale = ebr.compute(make_frames({"SP500": series(dates, spx), "DGS10": series(dates[:-15], yld[:-15])}))
    assert "stale inputs: DGS10" in stale["summary"]
    for name in ("relative_trend", "rate_pressure"):
        assert {s["name"]: s for s in stale["signals"]}[name]["confidence"] < \
            {s["name"]: s for s in fresh["signals"]}[name]["confidence"]
    check_payload(stale)
    with pytest.raises(InsufficientData):
        ebr.compute(make_frames({"SP500": series(dates, spx)}))
    short = ebr.compute(make_frames({"SP500": series(dates[-40:], spx[-40:]), "DGS10": series(dates[-40:], yld[-40:])}))
    assert {"relative_3m", "yield_gap_proxy", "relative_trend"} <= short["data"]["unavailable"].keys()
    assert short["data"]["relative_returns"]["1m"]["relative_return_pp"] is not None
    check_payload(short)
