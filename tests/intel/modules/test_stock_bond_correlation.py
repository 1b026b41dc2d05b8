import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import stock_bond_correlation as sbc

N = 600


def _market(flip_at: int = N - 100, seed: int = 5):
    """Yields rise with stocks (bonds hedge) until `flip_at`, then fall with them (inflation regime)."""
    rng = np.random.default_rng(seed)
    ret = rng.normal(0.0003, 0.01, N)
    sign = np.where(np.arange(N) < flip_at, 1.0, -1.0)
    dy = sign * ret * 5 + rng.normal(0, 0.03, N)  # yield changes in percentage points
    dates = bdays(N)
    return dates, {"SP500": series(dates, 4000 * np.exp(np.cumsum(ret))), "DGS10": series(dates, 4 + np.cumsum(dy))}


def _reference(parts):
    """Independent pandas rebuild: bond return = carry + modified duration of a 10y par bond x yield change."""
    spx = to_pandas(parts["SP500"])
    y = to_pandas(parts["DGS10"])
    prev = y.shift(1) / 100
    duration = (1 - (1 + prev / 2) ** -20) / prev
    dt = y.index.to_series().diff().dt.days / 365
    bond = prev * dt - duration * y.diff() / 100
    stock = np.log(spx).diff()
    return stock.iloc[1:], np.log1p(bond).iloc[1:]


def test_correlations_regime_and_sign_date_match_pandas():
    _, parts = _market()
    payload = sbc.compute(make_frames(parts))
    d = payload["data"]
    stock, bond = _reference(parts)
    roll = stock.rolling(63).corr(bond)
    assert d["correlation_63d"] == pytest.approx(round(roll.iloc[-1], 3), abs=1e-9)
    assert d["correlation_21d"] == pytest.approx(round(stock.tail(21).corr(bond.tail(21)), 3), abs=1e-9)
    assert d["correlation_252d"] == pytest.approx(round(stock.tail(252).corr(bond.tail(252)), 3), abs=1e-9)
    assert d["regime"] == "positive" and d["correlation_63d"] > 0.5
    assert d["correlation_with_yield_changes_63d"] < -0.5
    positive = (roll.dropna() > 0)
    start = len(positive) - 1
    while positive.iloc[start - 1]:
        start -= 1
    assert d["sign_since"] == positive.index[start].date().isoformat()
    assert d["sign_days"] == len(positive) - start
    hist = roll.dropna()
    assert d["percentile_10y"] == pytest.approx(round((hist <= roll.iloc[-1]).mean() * 100, 1), abs=1e-9)
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    check_payload(payload)


def test_negative_correlation_is_a_hedge_and_a_fresh_flip_is_flagged():
    _, parts = _market(flip_at=N + 1)
    payload = sbc.compute(make_frames(parts))
    assert payload["data"]["regime"] == "negative" and payload["signals"][0]["direction"] == "bullish"
    assert len(payload["signals"]) == 1
    _, parts = _market(flip_at=N - 40)
    payload = sbc.compute(make_frames(parts))
    names = [s["name"] for s in payload["signals"]]
    assert payload["data"]["sign_days"] <= 21 and "correlation_flip" in names
    check_payload(payload)


def test_stale_bonds_short_history_and_missing_input():
    _, parts = _market()
    fresh = sbc.compute(make_frames(parts))
    stale = sbc.compute(make_frames({"SP500": parts["SP500"], "DGS10": parts["DGS10"].head(N - 15)}))
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    assert "stale inputs: DGS10" in stale["summary"]
    check_payload(stale)
    short = sbc.compute(make_frames({k: v.tail(150) for k, v in parts.items()}))
    assert short["data"]["correlation_252d"] is None and "percentile_10y" in short["data"]["unavailable"]
    check_payload(short)
    with pytest.raises(InsufficientData):
        sbc.compute(make_frames({"SP500": parts["SP500"]}))
    with pytest.raises(InsufficientData):
        sbc.compute(make_frames({k: v.tail(40) for k, v in parts.items()}))
