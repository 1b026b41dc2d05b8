from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import real_yields


def _market(n=800, seed=5, real_move=0.0, be5_level=None):
    """Nominal 10y = real + breakeven; the real part optionally rises by `real_move` over 20 days."""
    dates, rng = bdays(n), np.random.default_rng(seed)
    be10 = np.round(2.3 + np.cumsum(rng.normal(0, 0.01, n)), 2)
    real = 1.8 + np.cumsum(rng.normal(0, 0.03, n)) + np.concatenate([np.zeros(n - 20), np.linspace(0, real_move, 20)])
    be5 = np.round(be10 + 0.15 + rng.normal(0, 0.02, n), 2) if be5_level is None else np.full(n, be5_level)
    return {"DGS10": series(dates, np.round(real + be10, 2)), "T10YIE": series(dates, be10),
            "T5YIE": series(dates, be5)}


def test_real_yield_and_forward_match_hand_computation():
    parts = _market()
    payload = real_yields.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    nominal, be10, be5 = to_pandas(parts["DGS10"]), to_pandas(parts["T10YIE"]), to_pandas(parts["T5YIE"])
    real = nominal - be10
    assert d["real_10y"]["real_10y_pct"] == pytest.approx(round(real.iloc[-1], 2))
    base = pd.Timestamp(NOW - timedelta(days=30))
    assert d["real_10y"]["change_1m_bp"] == pytest.approx(round((real.iloc[-1] - real.asof(base)) * 100, 1))
    assert d["real_10y"]["percentile_10y"] == pytest.approx(round((real <= real.iloc[-1]).mean() * 100, 1))
    assert d["real_10y"]["zscore_10y"] == pytest.approx(round((real.iloc[-1] - real.mean()) / real.std(ddof=1), 2))
    b10, b5 = be10.iloc[-1] / 100, be5.iloc[-1] / 100
    compounded = (((1 + b10) ** 10 / (1 + b5) ** 5) ** 0.2 - 1) * 100
    assert d["forward_5y5y"]["breakeven_5y5y_pct"] == pytest.approx(round(compounded, 2))
    assert d["forward_5y5y"]["linear_approximation_pct"] == pytest.approx(round(2 * be10.iloc[-1] - be5.iloc[-1], 2))
    # the nominal move splits exactly into its real and breakeven parts
    dec = d["nominal_10y_change_1m_decomposition"]
    assert dec["real_part_bp"] + dec["breakeven_part_bp"] == pytest.approx(dec["nominal_change_1m_bp"], abs=0.11)
    assert dec["breakeven_part_bp"] == pytest.approx(round((be10.iloc[-1] - be10.asof(base)) * 100, 1))


def test_real_yield_surge_is_bearish_and_unanchored_breakevens_flagged():
    payload = real_yields.compute(make_frames(_market(real_move=0.8, be5_level=1.2)))
    check_payload(payload)
    sig = {s["name"]: s for s in payload["signals"]}
    assert payload["data"]["real_10y"]["change_1m_bp"] >= 50
    assert sig["real_rate_pressure"]["direction"] == "bearish" and sig["real_rate_pressure"]["urgency"] == "high"
    # a 5y breakeven far under the 10y puts the 5y5y forward well above the band
    assert payload["data"]["forward_5y5y"]["anchoring"] == "above_band"
    assert sig["inflation_expectations"]["direction"] == "bearish"
    calm = real_yields.compute(make_frames(_market(real_move=-0.8)))
    assert next(s for s in calm["signals"] if s["name"] == "real_rate_pressure")["direction"] == "bullish"


def test_missing_inputs_degrade():
    parts = _market()
    full = real_yields.compute(make_frames(parts))
    no5 = real_yields.compute(make_frames({k: parts[k] for k in ("DGS10", "T10YIE")}))
    check_payload(no5)
    assert "forward_5y5y" not in no5["data"] and "forward_5y5y" in no5["data"]["unavailable"]
    assert no5["data_sources"]["missing"] == ["T5YIE"] and "5y5y forward is unavailable" in no5["summary"]
    assert no5["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    no10 = real_yields.compute(make_frames({k: parts[k] for k in ("T10YIE", "T5YIE")}))
    check_payload(no10)
    assert "real_10y" in no10["data"]["unavailable"] and "cannot be computed" in no10["summary"]
    with pytest.raises(InsufficientData):
        real_yields.compute(make_frames({k: parts[k] for k in ("DGS10", "T5YIE")}))
    short = real_yields.compute(make_frames({k: v.tail(3) for k, v in parts.items()}))
    check_payload(short)
    assert short["data"]["real_10y"]["change_1m_bp"] is None
