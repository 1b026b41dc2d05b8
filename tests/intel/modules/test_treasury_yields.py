from datetime import timedelta

import numpy as np
import pandas as pd
import pytest

from builders import NOW, bdays, check_payload, make_frames, series, to_pandas
from intel.catalog import TREASURY_TENORS
from intel.envelope import InsufficientData
from intel.modules import treasury_yields


def _curve(n=900, seed=1, tail_move=0.0):
    """Every tenor as an additive random walk in percent (2 decimals, as published), the 10y optionally
    moved by `tail_move` over the last 20 observations."""
    dates, rng = bdays(n), np.random.default_rng(seed)
    parts = {}
    for i, sid in enumerate(TREASURY_TENORS):
        values = 3.0 + 0.1 * i + np.cumsum(rng.normal(0, 0.04, n))
        if sid == "DGS10":
            values[-20:] += np.linspace(0, tail_move, 20)
        parts[sid] = series(dates, np.round(values, 2))
    return parts


def test_changes_and_percentile_match_pandas():
    parts = _curve()
    payload = treasury_yields.compute(make_frames(parts))
    check_payload(payload)
    s = to_pandas(parts["DGS10"])
    d = payload["data"]["tenors"]["10y"]
    last = s.iloc[-1]
    assert d["yield_pct"] == round(last, 2)
    assert d["change_1d_bp"] == pytest.approx(round((last - s.iloc[-2]) * 100, 1))
    for key, days in (("change_1w_bp", 7), ("change_1m_bp", 30), ("change_3m_bp", 91)):
        base = s.asof(pd.Timestamp(NOW - timedelta(days=days)))
        assert d[key] == pytest.approx(round((last - base) * 100, 1)), key
    decade = s[s.index > pd.Timestamp(NOW - timedelta(days=3653))]
    assert d["percentile_10y"] == pytest.approx(round((decade <= last).mean() * 100, 1))
    assert d["high_10y_pct"] == round(decade.max(), 2) and d["low_10y_pct"] == round(decade.min(), 2)
    # the curve-wide average of 1-month moves
    moves = [t["change_1m_bp"] for t in payload["data"]["tenors"].values()]
    assert payload["data"]["average_change_1m_bp"] == pytest.approx(round(np.mean(moves), 1))
    assert payload["data"]["tenors_available"] == 11 and payload["data"]["lead_tenor"] == "10y"


def test_sharp_rise_is_bearish_and_fall_bullish():
    up = treasury_yields.compute(make_frames(_curve(tail_move=0.9)))
    sig = next(s for s in up["signals"] if s["name"] == "rates_momentum")
    assert up["data"]["tenors"]["10y"]["change_1m_bp"] >= 50
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    down = treasury_yields.compute(make_frames(_curve(tail_move=-0.9)))
    sig = next(s for s in down["signals"] if s["name"] == "rates_momentum")
    assert sig["direction"] == "bullish" and sig["urgency"] == "high"
    check_payload(up)
    check_payload(down)


def test_missing_tenors_and_stale_lead_degrade():
    full = _curve()
    base = treasury_yields.compute(make_frames(full))
    part = {k: full[k] for k in ("DGS2", "DGS10")}
    payload = treasury_yields.compute(make_frames(part))
    check_payload(payload)
    assert len(payload["data_sources"]["missing"]) == 9
    assert set(payload["data"]["unavailable"]) == {"1m", "3m", "6m", "1y", "3y", "5y", "7y", "20y", "30y"}
    conf = lambda p: next(s["confidence"] for s in p["signals"] if s["name"] == "rates_momentum")  # noqa: E731
    assert conf(payload) < conf(base)
    assert "missing inputs" in payload["summary"]
    # the 10y stops 20 business days before today: stale, says so, lower confidence
    stale = dict(full, DGS10=full["DGS10"].head(full["DGS10"].height - 20))
    p = treasury_yields.compute(make_frames(stale))
    check_payload(p)
    assert "stale inputs: DGS10" in p["summary"] and conf(p) < conf(base)


def test_short_history_and_nothing_at_all():
    dates = bdays(30)
    values = np.linspace(4, 4.2, 30)
    payload = treasury_yields.compute(make_frames({"DGS10": series(dates, values)}))
    d = payload["data"]["tenors"]["10y"]
    base = values[max(i for i, t in enumerate(dates) if t <= NOW - timedelta(days=30))]
    assert d["change_3m_bp"] is None and d["change_1m_bp"] == pytest.approx(round((values[-1] - base) * 100, 1))
    assert payload["data"]["tenors"]["10y"]["history_years_used"] == 0.1
    check_payload(payload)
    with pytest.raises(InsufficientData):
        treasury_yields.compute(make_frames({}))
