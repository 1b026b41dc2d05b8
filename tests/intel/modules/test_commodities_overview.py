import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, month_starts, random_walk, series, to_pandas, weekly

from intel.modules import commodities_overview as mod


def parts(trend: float = 0.0, seed: int = 1, drop=()):
    """Daily WTI, monthly copper and index, weekly gasoline; `trend` is a per-month drift."""
    n_days, n_months, n_weeks = 600, 40, 120
    out = {"DCOILWTICO": series(bdays(n_days), random_walk(n_days, 70, 0.01, seed, drift=trend / 21)),
           "PCOPPUSDM": series(month_starts(n_months), random_walk(n_months, 8000, 0.03, seed + 1, drift=trend)),
           "PALLFNFINDEXM": series(month_starts(n_months), random_walk(n_months, 150, 0.02, seed + 2, drift=trend)),
           "GASREGW": series(weekly(n_weeks, date(2024, 6, 24)),
                             random_walk(n_weeks, 3.4, 0.01, seed + 3, drift=trend / 4.3))}
    return {k: v for k, v in out.items() if k not in drop}


def test_cadence_horizons_against_hand_and_pandas():
    p = parts()
    payload = mod.compute(make_frames(p))
    check_payload(payload)
    d = payload["data"]
    copper = p["PCOPPUSDM"]["value"].to_numpy()
    # monthly series: horizons in matched calendar months
    assert d["copper"]["cadence"] == "monthly" and d["copper"]["period"] == "2024-05"
    assert d["copper"]["change_1m_pct"] == pytest.approx(round((copper[-1] / copper[-2] - 1) * 100, 2))
    assert d["copper"]["change_3m_pct"] == pytest.approx(round((copper[-1] / copper[-4] - 1) * 100, 2))
    assert d["copper"]["change_12m_pct"] == pytest.approx(round((copper[-1] / copper[-13] - 1) * 100, 2))
    rets = pd.Series(copper).pct_change().dropna()
    assert d["copper"]["realized_vol_1y_pct"] == pytest.approx(round(rets.iloc[-12:].std() * math.sqrt(12) * 100, 2))
    # weekly gasoline: calendar lookback, weekly volatility annualized with 52
    gas = to_pandas(p["GASREGW"])
    base = gas[gas.index <= pd.Timestamp(date(2024, 6, 24) - timedelta(days=91))].iloc[-1]
    assert d["us_gasoline"]["change_3m_pct"] == pytest.approx(round((gas.iloc[-1] / base - 1) * 100, 2))
    assert d["us_gasoline"]["realized_vol_1y_pct"] == pytest.approx(
        round(gas.pct_change().dropna().iloc[-52:].std() * math.sqrt(52) * 100, 2))
    assert "change_1w_pct" in d["wti_oil"] and "change_1w_pct" not in d["us_gasoline"]
    # breadth and average across the four
    m3 = [d[k]["momentum_3m_pct"] for k in ("wti_oil", "copper", "all_commodities_index", "us_gasoline")]
    assert d["breadth_3m_pct"] == round(sum(v > 0 for v in m3) / 4 * 100, 1)
    assert d["average_momentum_3m_pct"] == pytest.approx(round(float(np.mean(m3)), 2), abs=0.011)
    assert d[d["leader_3m"]]["momentum_3m_pct"] == max(m3)


def test_month_gap_gives_none_not_a_shifted_month():
    dates = month_starts(20)
    del dates[-4]  # the month three back is missing
    values = np.linspace(100, 120, len(dates))
    d = mod.compute(make_frames({"PCOPPUSDM": series(dates, values)}))["data"]["copper"]
    assert d["change_3m_pct"] is None and d["change_1m_pct"] is not None


def test_broad_rally_is_bullish_and_broad_fall_bearish():
    up = mod.compute(make_frames(parts(trend=0.06)))
    check_payload(up)
    sig = up["signals"][0]
    assert up["data"]["breadth_3m_pct"] == 100.0
    assert sig["direction"] == "bullish" and sig["urgency"] in ("medium", "high")
    down = mod.compute(make_frames(parts(trend=-0.06)))
    assert down["data"]["breadth_3m_pct"] == 0.0 and down["signals"][0]["direction"] == "bearish"


def test_missing_copper_is_said_and_lowers_confidence():
    full = mod.compute(make_frames(parts(trend=0.06)))
    partial = mod.compute(make_frames(parts(trend=0.06, drop=("PCOPPUSDM",))))
    check_payload(partial)
    assert "copper" in partial["data"]["unavailable"] and partial["data"]["series_with_3m_momentum"] == 3
    assert "Not covered (no data): copper" in partial["summary"] and "missing inputs: PCOPPUSDM" in partial["summary"]
    assert partial["signals"][0]["confidence"] < full["signals"][0]["confidence"]


def test_short_history_gives_no_momentum_signal():
    payload = mod.compute(make_frames({"DCOILWTICO": series(bdays(30), random_walk(30, 70, 0.01, 3))}))
    check_payload(payload)
    assert payload["signals"] == [] and "breadth_3m_pct" in payload["data"]["unavailable"]
    assert payload["data"]["wti_oil"]["change_1m_pct"] is not None


def test_all_missing_raises():
    from intel.envelope import InsufficientData

    with pytest.raises(InsufficientData):
        mod.compute(make_frames({}, NOW))


def test_gold_is_shown_beside_the_others_and_left_out_of_the_breadth():
    """PAX Gold every calendar day: its own profile, named as the token it is; breadth and averages unchanged."""
    p = parts()
    without = mod.compute(make_frames(p))
    days = [NOW - timedelta(days=i) for i in range(500)][::-1]
    p["CBPAXGUSD"] = series(days, random_walk(500, 2000, 0.01, 4))
    payload = mod.compute(make_frames(p))
    check_payload(payload)
    d = payload["data"]
    gold = to_pandas(p["CBPAXGUSD"])
    assert d["gold"]["cadence"] == "daily" and d["gold"]["unit"] == "usd_per_troy_ounce"
    assert "PAX Gold" in d["gold"]["instrument"] and "not a gold fix" in d["gold"]["instrument"]
    base = gold[gold.index <= gold.index[-1] - pd.Timedelta(days=365)].iloc[-1]
    assert d["gold"]["change_1y_pct"] == pytest.approx(round((gold.iloc[-1] / base - 1) * 100, 2))
    for key in ("breadth_3m_pct", "average_momentum_3m_pct", "series_with_3m_momentum"):
        assert d[key] == without["data"][key]
    assert "gold" in without["data"]["unavailable"] and "Gold (PAX Gold token)" in payload["summary"]
