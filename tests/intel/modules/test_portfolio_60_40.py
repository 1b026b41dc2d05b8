from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, market, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import portfolio_60_40 as p6040

N = 900


def _parts(seed: int = 3):
    rng = np.random.default_rng(seed)
    dates = bdays(N)
    spx = 4000 * np.exp(np.cumsum(rng.normal(0.0004, 0.011, N)))
    dgs10 = 3.5 + np.cumsum(rng.normal(0, 0.05, N))
    return {"SP500": series(dates, spx), "DGS10": series(dates, dgs10)}


def _reference(parts):
    """pandas rebuild: bond total return from yields, daily-rebalanced 60/40."""
    spx = to_pandas(parts["SP500"])
    y = to_pandas(parts["DGS10"])
    prev = y.shift(1) / 100
    duration = (1 - (1 + prev / 2) ** -20) / prev
    bond_ret = (prev * y.index.to_series().diff().dt.days / 365 - duration * y.diff() / 100).fillna(0)
    stock_ret = spx.pct_change().fillna(0)
    port = 100 * (1 + 0.6 * stock_ret + 0.4 * bond_ret).cumprod()
    return port, stock_ret.iloc[1:], bond_ret.iloc[1:]


def _at_or_before(s: pd.Series, days: int) -> float:
    return s[s.index <= s.index[-1] - timedelta(days=days)].iloc[-1]


def test_returns_volatility_drawdown_and_correlation_match_pandas():
    parts = _parts()
    payload = p6040.compute(make_frames(parts))
    d = payload["data"]
    port, rs, rb = _reference(parts)
    for h, days in (("1m", 30), ("3m", 91), ("1y", 365), ("3y", 1095)):
        ret = (port.iloc[-1] / _at_or_before(port, days) - 1) * 100
        assert d["portfolio"][f"return_{h}_pct"] == pytest.approx(round(ret, 2), abs=1e-9)
    r3 = port.iloc[-1] / _at_or_before(port, 1095)
    assert d["portfolio"]["return_3y_annualized_pct"] == pytest.approx(round((r3 ** (1 / 3) - 1) * 100, 2), abs=1e-9)
    rp = port.pct_change().dropna()
    assert d["risk"]["volatility_1y_pct"] == pytest.approx(round(rp.tail(252).std() * np.sqrt(252) * 100, 2), abs=1e-9)
    assert d["risk"]["volatility_63d_pct"] == pytest.approx(round(rp.tail(63).std() * np.sqrt(252) * 100, 2), abs=1e-9)
    year = port[port.index >= port[port.index <= port.index[-1] - timedelta(days=365)].index[-1]]
    assert d["risk"]["max_drawdown_1y_pct"] == pytest.approx(round((year / year.cummax() - 1).min() * 100, 2), abs=1e-9)
    corr_1y = rs.tail(252).corr(rb.tail(252))
    assert d["diversification"]["stock_bond_correlation_1y"] == pytest.approx(round(corr_1y, 3), abs=1e-9)
    y = parts["DGS10"]["value"][-1] / 100
    assert d["bond_leg"]["duration_years"] == pytest.approx(round((1 - (1 + y / 2) ** -20) / y, 2), abs=1e-9)
    assert d["weights"]["equities_pct"] == 60 and d["weights"]["bonds_pct"] == 40
    check_payload(payload)


def test_bond_leg_is_carry_plus_duration_times_yield_change():
    """Flat yields earn only carry; a 1-point jump costs about the duration in percent."""
    dates = bdays(400)
    flat = p6040.compute(make_frames({"SP500": series(dates, np.full(400, 4000.0)),
                                      "DGS10": series(dates, np.full(400, 4.0))}))
    # 4% a year of carry accrued actual/365 and compounded daily: about e^0.04 - 1
    assert flat["data"]["bonds"]["return_1y_pct"] == pytest.approx((np.exp(0.04) - 1) * 100, abs=0.02)
    jump = np.full(400, 4.0)
    jump[-1] = 5.0
    shocked = p6040.compute(make_frames({"SP500": series(dates, np.full(400, 4000.0)), "DGS10": series(dates, jump)}))
    duration = (1 - 1.02 ** -20) / 0.04
    assert shocked["data"]["bonds"]["return_1m_pct"] == pytest.approx(
        ((1 + 0.04 / 365) ** 30 * (1 - duration / 100 + 0.04 / 365) / (1 + 0.04 / 365) - 1) * 100, abs=0.05)


def test_crisis_gives_bearish_high_urgency():
    payload = p6040.compute(make_frames({k: v for k, v in market("crisis").items() if k in ("SP500", "DGS10")}))
    sig = payload["signals"][0]
    assert payload["data"]["risk"]["drawdown_from_high_pct"] <= -15
    assert sig["name"] == "portfolio_trend" and sig["direction"] == "bearish" and sig["urgency"] == "high"
    calm = p6040.compute(make_frames({k: v for k, v in market("calm").items() if k in ("SP500", "DGS10")}))
    assert calm["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_stale_input_and_short_history_degrade():
    parts = _parts()
    fresh = p6040.compute(make_frames(parts))
    stale = p6040.compute(make_frames({"SP500": parts["SP500"], "DGS10": parts["DGS10"].head(N - 12)}))
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"] and "stale" in stale["summary"]
    check_payload(stale)
    short = p6040.compute(make_frames({k: v.tail(120) for k, v in parts.items()}))
    d = short["data"]
    assert d["portfolio"]["return_1y_pct"] is None and d["portfolio"]["return_3y_pct"] is None
    assert "portfolio.return_1y_pct" in d["unavailable"] and d["portfolio"]["return_3m_pct"] is not None
    check_payload(short)
    with pytest.raises(InsufficientData):
        p6040.compute(make_frames({"SP500": parts["SP500"]}, now=NOW))
