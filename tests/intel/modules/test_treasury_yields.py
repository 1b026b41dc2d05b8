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


YEAR_AGO = NOW - timedelta(days=365)


def _stopped_a_year_ago(frame, tail_move=0.0):
    """The same values dated so that the series ends a year before the clock (optionally with a last-month
    move of `tail_move` percentage points, so a stale series would win any 'biggest mover' ranking)."""
    values = frame["value"].to_numpy().copy()
    values[-20:] += np.linspace(0, tail_move, 20)
    return series(bdays(len(values), YEAR_AGO), np.round(values, 2))


def test_a_tenor_that_stopped_a_year_ago_is_left_out_of_the_curve_wide_figures():
    full = _curve()
    parts = dict(full, DGS20=_stopped_a_year_ago(full["DGS20"], tail_move=-2.0))
    payload = treasury_yields.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    # its own block keeps its last values, dated and flagged
    t20 = d["tenors"]["20y"]
    assert t20["stale"] is True and t20["last_observation"] == parts["DGS20"]["date"][-1].isoformat()
    assert d["tenors"]["20y"]["change_1m_bp"] <= -150
    assert not any(t["stale"] for k, t in d["tenors"].items() if k != "20y")
    # ... but today's averages and the biggest mover use the fresh tenors only
    fresh = [t for k, t in d["tenors"].items() if k != "20y"]
    for h in ("1d", "1w", "1m"):
        assert d[f"average_change_{h}_bp"] == pytest.approx(round(np.mean([t[f"change_{h}_bp"] for t in fresh]), 1))
    assert d["biggest_mover_1m"]["tenor"] != "20y"
    assert d["tenors_used_in_averages"] == 10 and d["tenors_available"] == 11
    assert "20y tenor" not in payload["summary"] and "Across the 10 tenors with current quotes" in payload["summary"]
    assert f"as stale: 20y (last {d['tenors']['20y']['last_observation']})" in payload["summary"]
    assert "stale inputs: DGS20" in payload["summary"]
    # the stale tenor still lowers confidence
    base = treasury_yields.compute(make_frames(full))
    conf = lambda p: next(s["confidence"] for s in p["signals"] if s["name"] == "rates_momentum")  # noqa: E731
    assert conf(payload) < conf(base)


def test_a_stale_lead_tenor_hands_the_headline_to_a_fresh_one():
    full = _curve()
    parts = dict(full, DGS10=_stopped_a_year_ago(full["DGS10"]))
    payload = treasury_yields.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    assert d["lead_tenor"] == "5y" and payload["summary"].startswith("The 5y Treasury yields")
    assert "as stale: 10y" in payload["summary"]


def test_every_tenor_stale_leaves_the_curve_wide_figures_unavailable():
    full = _curve()
    parts = {k: _stopped_a_year_ago(v) for k, v in full.items()}
    payload = treasury_yields.compute(make_frames(parts))
    check_payload(payload)
    d = payload["data"]
    assert all(t["stale"] for t in d["tenors"].values())
    for key in ("average_change_1d_bp", "average_change_1w_bp", "average_change_1m_bp", "biggest_mover_1m"):
        assert key not in d, key
    assert "stale" in d["unavailable"]["curve_wide_moves"]
    assert "on average" not in payload["summary"]
    # the headline is the lead tenor's last quote, dated, never presented as today's
    last = d["tenors"]["10y"]["last_observation"]
    assert payload["summary"].startswith(f"The 10y Treasury yielded {d['tenors']['10y']['yield_pct']}% on {last}")
