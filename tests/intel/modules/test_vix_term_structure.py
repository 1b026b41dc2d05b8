from datetime import timedelta

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, market, random_walk, series

from intel.modules import vix_term_structure as vts


def test_backwardation_run_counts_and_signal():
    dates = bdays(300)
    vix = [16.0] * 290 + [22.0] * 10
    vix3m = [20.0] * 300  # ratio 0.8 then 1.1 for the last ten sessions
    payload = vts.compute(make_frames({"VIXCLS": series(dates, vix), "VXVCLS": series(dates, vix3m)}))
    ts = payload["data"]["term_structure"]
    assert ts["ratio"] == 1.1 and ts["spread_pts"] == -2.0 and ts["state"] == "backwardation"
    assert ts["days_in_current_state"] == 10 and ts["current_state_since"] == dates[-10].isoformat()
    assert ts["backwardation_days_1y"] == 10 and ts["last_backwardation_date"] == dates[-1].isoformat()
    assert ts["ratio_percentile_1y"] == 100.0
    year = [d for d in dates if d > NOW - timedelta(days=365)]
    assert ts["backwardation_share_1y_pct"] == pytest.approx(round(10 / len(year) * 100, 1))
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"  # deep (1.1) but VIX below 30
    check_payload(payload)


def test_ratio_statistics_match_pandas():
    dates = bdays(700)
    vix = random_walk(700, 18, 0.05, seed=3)
    vix3m = random_walk(700, 20, 0.03, seed=4)
    payload = vts.compute(make_frames({"VIXCLS": series(dates, vix), "VXVCLS": series(dates, vix3m)}))
    ts = payload["data"]["term_structure"]
    ratio = pd.Series(vix / vix3m, index=pd.DatetimeIndex(dates))
    last = ratio.iloc[-1]
    year = ratio[ratio.index > pd.Timestamp(NOW - timedelta(days=365))]
    assert ts["ratio"] == pytest.approx(round(last, 3))
    assert ts["ratio_percentile_1y"] == pytest.approx(round((year <= last).mean() * 100, 1))
    assert ts["ratio_percentile_10y"] == pytest.approx(round((ratio <= last).mean() * 100, 1))
    assert ts["ratio_zscore_1y"] == pytest.approx(round((last - year.mean()) / year.std(), 2))
    month_ago = ratio.asof(pd.Timestamp(NOW - timedelta(days=30)))
    assert ts["ratio_change_1m"] == pytest.approx(round(last - month_ago, 3))
    # the run of the current state, counted backwards by hand
    back = (ratio >= 1.0).to_numpy()
    run = 1
    while run < len(back) and back[-run - 1] == back[-1]:
        run += 1
    assert ts["days_in_current_state"] == run
    check_payload(payload)


def test_calm_contango_is_bullish():
    dates = bdays(300)
    payload = vts.compute(make_frames({"VIXCLS": series(dates, [12.0] * 300), "VXVCLS": series(dates, [15.0] * 300)}))
    ts = payload["data"]["term_structure"]
    assert ts["ratio"] == 0.8 and ts["state"] == "steep_contango" and ts["last_backwardation_date"] is None
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_missing_vix3m_says_so_and_infers_with_lower_confidence():
    parts = market("crisis")  # VIX ramps into the 40s: well above its 1-year mean
    full = vts.compute(make_frames({"VIXCLS": parts["VIXCLS"],
                                    "VXVCLS": series(parts["VIXCLS"]["date"], parts["VIXCLS"]["value"] * 0.9)}))
    alone = vts.compute(make_frames({"VIXCLS": parts["VIXCLS"]}))
    assert "term_structure" not in alone["data"] and "term_structure" in alone["data"]["unavailable"]
    assert alone["data"]["inferred_from_vix_only"]["likely_state"] == "backwardation_likely"
    assert alone["data_sources"]["missing"] == ["VXVCLS"]
    assert "VIX3M is missing" in alone["summary"] and "missing inputs: VXVCLS" in alone["summary"]
    sig, full_sig = alone["signals"][0], full["signals"][0]
    assert sig["direction"] == "bearish" and sig["confidence"] < full_sig["confidence"]
    assert full["data"]["term_structure"]["state"] == "backwardation"
    check_payload(alone)
    check_payload(full)


def test_stale_vix3m_uses_last_shared_date():
    dates = bdays(300)
    vix = list(np.linspace(14, 18, 300))
    fresh = vts.compute(make_frames({"VIXCLS": series(dates, vix), "VXVCLS": series(dates, [20.0] * 300)}))
    stale = vts.compute(make_frames({"VIXCLS": series(dates, vix), "VXVCLS": series(dates[:-20], [20.0] * 280)}))
    ts = stale["data"]["term_structure"]
    assert ts["date"] == dates[-21].isoformat() and ts["vix"] == pytest.approx(round(vix[-21], 2))
    assert "stale inputs: VXVCLS" in stale["summary"] and ts["date"] in stale["summary"]
    assert stale["signals"][0]["confidence"] < fresh["signals"][0]["confidence"]
    check_payload(stale)
