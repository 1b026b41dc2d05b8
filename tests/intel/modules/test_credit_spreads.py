from datetime import timedelta

import numpy as np
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.modules import credit_spreads


def test_percentile_zscore_and_changes_match_numpy():
    dates = bdays(800)
    hy = random_walk(800, 4.0, 0.02, seed=1)
    ig = random_walk(800, 1.2, 0.02, seed=2)
    payload = credit_spreads.compute(make_frames({"BAMLH0A0HYM2": series(dates, hy), "BAMLC0A0CM": series(dates, ig)}))
    d = payload["data"]["high_yield"]
    last = hy[-1]
    assert d["percentile_10y"] == pytest.approx(round((hy <= last).mean() * 100, 1))
    assert d["zscore_10y"] == pytest.approx(round((last - hy.mean()) / hy.std(ddof=1), 2))
    year = np.array([v for t, v in zip(dates, hy) if t > NOW - timedelta(days=365)])
    assert d["percentile_1y"] == pytest.approx(round((year <= last).mean() * 100, 1))
    base = [v for t, v in zip(dates, hy) if t <= NOW - timedelta(days=30)][-1]
    assert d["change_1m_bp"] == pytest.approx(round((last - base) * 100, 1))
    assert payload["data"]["hy_ig_gap_bp"] == round(hy[-1] * 100) - round(ig[-1] * 100)
    check_payload(payload)


def test_known_percentile_and_widening_signal():
    dates = bdays(300)
    values = [3.0] * 200 + [4.0] * 99 + [6.0]  # last 6% is the top of its history
    payload = credit_spreads.compute(make_frames({"BAMLH0A0HYM2": series(dates, values)}))
    d = payload["data"]["high_yield"]
    assert d["percentile_10y"] == 100.0 and d["change_1w_bp"] == 200.0
    sig = payload["signals"][0]
    assert sig["direction"] == "bearish" and sig["urgency"] == "high"
    assert payload["data_sources"]["missing"] == ["BAMLC0A0CM"] and "hy_ig_gap_bp" not in payload["data"]
    check_payload(payload)
