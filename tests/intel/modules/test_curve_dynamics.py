from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, series, to_pandas

from intel.envelope import InsufficientData
from intel.modules import curve_dynamics
from intel.modules.curve_dynamics import classify


@pytest.mark.parametrize("d_short, d_long, expected", [
    (-30, -10, "bull_steepening"), (10, 30, "bear_steepening"), (-10, -30, "bull_flattening"),
    (30, 10, "bear_flattening"), (-10, 10, "steepening_twist"), (10, -10, "flattening_twist"),
    (-20, -18, "bull_parallel"), (20, 22, "bear_parallel"), (2, 3, "unchanged"), (0, -12, "bull_flattening"),
])
def test_classification_rule(d_short, d_long, expected):
    assert str(classify(d_short, d_long)) == expected


def _legs(n, short_move, long_move, long30_move=0.0, seed=3):
    """Flat-ish history, then the legs move linearly over the last 20 observations (percent)."""
    dates, rng = bdays(n), np.random.default_rng(seed)
    ramp = lambda m: np.concatenate([np.zeros(n - 20), np.linspace(0, m, 20)])  # noqa: E731
    noise = lambda: np.round(rng.normal(0, 0.01, n), 2)  # noqa: E731
    return {"DGS2": series(dates, 4.0 + noise() + ramp(short_move)),
            "DGS10": series(dates, 4.3 + noise() + ramp(long_move)),
            "DGS30": series(dates, 4.5 + noise() + ramp(long30_move))}


def test_bull_steepening_changes_match_pandas():
    parts = _legs(700, -0.45, -0.10)
    payload = curve_dynamics.compute(make_frames(parts))
    check_payload(payload)
    seg = payload["data"]["segments"]["2s10s"]
    two, ten = to_pandas(parts["DGS2"]), to_pandas(parts["DGS10"])
    base = pd.Timestamp(NOW - timedelta(days=30))
    ds, dl = (two.iloc[-1] - two.asof(base)) * 100, (ten.iloc[-1] - ten.asof(base)) * 100
    month = seg["horizons"]["1m"]
    assert month["short_change_bp"] == pytest.approx(round(ds, 1))
    assert month["long_change_bp"] == pytest.approx(round(dl, 1))
    assert month["slope_change_bp"] == pytest.approx(round(dl - ds, 1))
    assert month["regime"] == "bull_steepening"
    assert seg["slope_bp"] == pytest.approx(round((ten.iloc[-1] - two.iloc[-1]) * 100, 1))
    # z-score of today's 30-day slope change among all 30-day changes of the history (independent pandas)
    slope = (ten - two) * 100
    prior = pd.Series([slope.asof(t - pd.Timedelta(days=30)) for t in slope.index], index=slope.index)
    changes = (slope - prior)[slope.index - pd.Timedelta(days=30) >= slope.index[0]]
    assert seg["slope_change_1m_zscore_10y"] == pytest.approx(
        round((changes.iloc[-1] - changes.mean()) / changes.std(ddof=1), 2))
    sig = next(s for s in payload["signals"] if s["name"] == "2s10s_regime_1m")
    assert sig["direction"] == "bullish" and sig["urgency"] == "medium"


def test_bear_flattening_is_bearish():
    payload = curve_dynamics.compute(make_frames(_legs(400, 0.70, 0.20, 0.10)))
    check_payload(payload)
    seg = payload["data"]["segments"]["2s10s"]
    assert seg["horizons"]["1m"]["regime"] == "bear_flattening"
    sig = next(s for s in payload["signals"] if s["name"] == "2s10s_regime_1m")
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    assert payload["data"]["segments"]["10s30s"]["horizons"]["1m"]["regime"] == "bear_flattening"


def test_missing_legs_degrade_and_short_history():
    parts = _legs(400, -0.3, 0.2)
    full = curve_dynamics.compute(make_frames(parts))
    no30 = curve_dynamics.compute(make_frames({k: parts[k] for k in ("DGS2", "DGS10")}))
    check_payload(no30)
    assert set(no30["data"]["segments"]) == {"2s10s"} and "10s30s" in no30["data"]["unavailable"]
    assert no30["data_sources"]["missing"] == ["DGS30"]
    assert no30["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    no10 = curve_dynamics.compute(make_frames({k: parts[k] for k in ("DGS2", "DGS30")}))
    check_payload(no10)
    assert set(no10["data"]["segments"]) == {"2s30s"} and no10["data"]["primary_segment"] == "2s30s"
    assert no10["data"]["segments"]["2s30s"]["horizons"]["1m"]["regime"] == "steepening_twist"
    with pytest.raises(InsufficientData):
        curve_dynamics.compute(make_frames({"DGS10": parts["DGS10"]}))
    short = curve_dynamics.compute(make_frames({k: v.tail(30) for k, v in parts.items()}))
    check_payload(short)
    assert short["data"]["segments"]["2s10s"]["horizons"]["3m"] is None
    assert short["data"]["segments"]["2s10s"]["horizons"]["1w"] is not None
