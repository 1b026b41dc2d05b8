from datetime import timedelta

import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import risk_dashboard

N = 600


def _weekly(n_days=N, end_ramp=None, seed=0):
    """Friday observations with a mild random walk; optionally ramping to `end_ramp` over ten weeks."""
    fridays = [d for d in bdays(n_days) if d.weekday() == 4]
    rng = np.random.default_rng(seed)
    values = -0.5 + np.cumsum(rng.normal(0, 0.03, len(fridays)))
    if end_ramp is not None:
        values[-10:] = np.linspace(values[-11], end_ramp, 10)
    return series(fridays, values)


def _inputs():
    dates = bdays(N)
    rng = np.random.default_rng(2)
    return {"VIXCLS": series(dates, 15 + rng.normal(0, 3, N).clip(-5, 20)),
            "BAMLH0A0HYM2": series(dates, 4 + np.cumsum(rng.normal(0, 0.03, N))),
            "ANFCI": _weekly(seed=3), "STLFSI4": _weekly(seed=4),
            "T10Y2Y": series(dates, 0.5 + np.cumsum(rng.normal(0, 0.02, N))),
            "SP500": series(dates, random_walk(N, 3000, 0.01, seed=6))}


def _pct(values, value):
    """Mid-rank percentile: share below plus half the ties."""
    values = np.asarray(values)
    return float(((values < value).mean() + 0.5 * (values == value).mean()) * 100)


def _month_ago(frame):
    last = frame["date"][-1] - timedelta(days=30)
    return float(frame.filter(frame["date"] <= last)["value"][-1])


def test_percentiles_and_overall_score_by_hand():
    parts = _inputs()
    payload = risk_dashboard.compute(make_frames(parts))
    g, overall = payload["data"]["gauges"], payload["data"]["overall"]
    vix = parts["VIXCLS"]["value"].to_numpy()
    assert g["volatility"]["risk_percentile"] == pytest.approx(round(_pct(vix, vix[-1]), 1))
    assert g["volatility"]["components"]["VIXCLS"]["risk_percentile_1m_ago"] == \
        pytest.approx(round(_pct(vix, _month_ago(parts["VIXCLS"])), 1))
    curve = parts["T10Y2Y"]["value"].to_numpy()
    assert g["curve"]["risk_percentile"] == pytest.approx(round(_pct(-curve, -curve[-1]), 1))
    spx = parts["SP500"]["value"].to_numpy()
    dd = (spx / np.maximum.accumulate(spx) - 1) * 100
    assert g["drawdown"]["components"]["SP500"]["level"] == pytest.approx(round(dd[-1], 2))
    assert g["drawdown"]["risk_percentile"] == pytest.approx(round(_pct(-dd, -dd[-1]), 1))
    anfci, stl = (parts[s]["value"].to_numpy() for s in ("ANFCI", "STLFSI4"))
    liquidity = (round(_pct(anfci, anfci[-1]), 1) + round(_pct(stl, stl[-1]), 1)) / 2
    assert g["liquidity"]["risk_percentile"] == pytest.approx(round(liquidity, 1))
    scores = [g[k]["risk_percentile"] for k in ("volatility", "credit", "liquidity", "curve", "drawdown")]
    assert overall["risk_score"] == pytest.approx(round(np.mean(scores), 1), abs=0.051)
    assert overall["gauges_used"] == 5
    expected_level = "low" if np.mean(scores) < 25 else "moderate" if np.mean(scores) < 50 else "elevated" \
        if np.mean(scores) < 75 else "high" if np.mean(scores) < 90 else "extreme"
    assert overall["risk_level"] == expected_level
    check_payload(payload)


def test_crisis_is_bearish_and_urgent():
    parts = market("crisis")
    parts["ANFCI"], parts["STLFSI4"] = _weekly(800, end_ramp=1.5, seed=3), _weekly(800, end_ramp=4.0, seed=4)
    payload = risk_dashboard.compute(make_frames(parts))
    overall, sig = payload["data"]["overall"], {s["name"]: s for s in payload["signals"]}
    assert overall["risk_level"] in ("high", "extreme") and overall["gauges_at_or_above_80th"] == 4
    assert payload["data"]["gauges"]["curve"]["risk_percentile"] == 50.0  # a flat curve sits mid-history
    assert sig["overall_risk"]["direction"] == "bearish" and sig["overall_risk"]["urgency"] in ("high", "critical")
    check_payload(payload)


def test_sudden_stress_raises_a_risk_trend_signal():
    parts = _inputs()
    k = 10  # the last two weeks: VIX to 40, spreads 3 points wider, equities 15% lower
    for sid, shift in (("VIXCLS", lambda v: np.full(k, 40.0)), ("BAMLH0A0HYM2", lambda v: v + 3),
                       ("SP500", lambda v: v * 0.85)):
        values = parts[sid]["value"].to_numpy().copy()
        values[-k:] = shift(values[-k:])
        parts[sid] = series(parts[sid]["date"], values)
    payload = risk_dashboard.compute(make_frames(parts))
    overall, sig = payload["data"]["overall"], {s["name"]: s for s in payload["signals"]}
    assert overall["change_1m_pts"] >= 15
    assert overall["change_1m_pts"] == pytest.approx(round(overall["risk_score"] - overall["risk_score_1m_ago"], 1),
                                                     abs=0.11)
    assert sig["risk_trend"]["direction"] == "bearish" and sig["risk_trend"]["urgency"] in ("medium", "high")
    check_payload(payload)


def test_calm_is_not_bearish():
    parts = market("calm")
    parts["ANFCI"], parts["STLFSI4"] = _weekly(800, end_ramp=-1.5, seed=3), _weekly(800, end_ramp=-2.0, seed=4)
    payload = risk_dashboard.compute(make_frames(parts))
    assert payload["data"]["overall"]["risk_level"] in ("low", "moderate")
    assert payload["signals"][0]["direction"] == "bullish" and payload["signals"][0]["urgency"] == "low"
    check_payload(payload)


def test_missing_and_short_inputs_degrade_honestly():
    parts = _inputs()
    full = risk_dashboard.compute(make_frames(parts))
    partial = {k: v for k, v in parts.items() if k not in ("ANFCI", "STLFSI4")}
    partial["VIXCLS"] = parts["VIXCLS"].tail(100)  # too short to rank
    payload = risk_dashboard.compute(make_frames(partial))
    d = payload["data"]
    assert set(d["gauges"]) == {"credit", "curve", "drawdown"} and d["overall"]["gauges_used"] == 3
    assert {"gauges.liquidity.ANFCI", "gauges.liquidity.STLFSI4", "gauges.volatility.VIXCLS"} <= set(d["unavailable"])
    assert "less than a year" in d["unavailable"]["gauges.volatility.VIXCLS"]
    assert payload["data_sources"]["missing"] == ["ANFCI", "STLFSI4"]
    assert payload["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    assert "missing inputs: ANFCI, STLFSI4" in payload["summary"]
    check_payload(payload)
    with pytest.raises(InsufficientData):
        risk_dashboard.compute(make_frames({"VIXCLS": parts["VIXCLS"].tail(100)}))
    with pytest.raises(InsufficientData):
        risk_dashboard.compute(make_frames({}))
