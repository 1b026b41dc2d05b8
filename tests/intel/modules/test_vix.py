import numpy as np
import pytest
from builders import bdays, check_payload, make_frames, series

from intel.modules import vix


def test_one_day_spike_flags_and_percentile():
    dates = bdays(300)
    values = [15.0] * 299 + [19.0]  # +26.7% in a day, still below 20
    payload = vix.compute(make_frames({"VIXCLS": series(dates, values)}))
    d = payload["data"]
    assert d["change_1d_pct"] == pytest.approx(round(4 / 15 * 100, 2)) and d["change_1d_pts"] == 4.0
    assert d["spike_flags"]["jump_1d_20pct"] and not d["spike_flags"]["above_30"]
    assert d["spike_flags"]["above_upper_band"]
    assert d["regime"] == "normal" and d["percentile_1y"] == 100.0
    mid = np.mean(values[-20:])
    assert d["bands_20d"]["middle"] == pytest.approx(round(mid, 2))
    assert d["bands_20d"]["upper"] == pytest.approx(round(mid + 2 * np.std(values[-20:]), 2))
    assert payload["signals"][0]["direction"] == "bearish" and payload["signals"][0]["urgency"] == "high"
    check_payload(payload)


def test_weekly_spike_to_crisis_level():
    dates = bdays(300)
    values = [14.0] * 294 + [16, 18, 22, 30, 35, 42.0]
    d = vix.compute(make_frames({"VIXCLS": series(dates, values)}))
    data, sig = d["data"], d["signals"][0]
    assert data["spike_flags"]["jump_1w_50pct"] and data["spike_flags"]["above_40"]
    assert data["regime"] == "crisis" and sig["urgency"] == "critical"
    check_payload(d)


def test_calm_vix_is_bullish():
    dates = bdays(300)
    values = list(np.linspace(22, 12, 300))
    payload = vix.compute(make_frames({"VIXCLS": series(dates, values)}))
    assert payload["data"]["regime"] == "low" and payload["signals"][0]["direction"] == "bullish"
    assert not any(payload["data"]["spike_flags"].values())
    check_payload(payload)
