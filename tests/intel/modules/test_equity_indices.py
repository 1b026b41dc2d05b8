import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, series

from intel.envelope import InsufficientData
from intel.modules import equity_indices


def _v_shape(n_leg=200):
    # up, down, up: the down leg forces a death cross, the last leg a golden cross
    steps = np.concatenate([np.full(n_leg, 0.002), np.full(n_leg, -0.003), np.full(n_leg, 0.004)])
    return 3000 * np.exp(np.cumsum(steps))


def test_distances_and_crosses_match_pandas():
    dates, close = bdays(600), _v_shape()
    nq = close * 3.1
    payload = equity_indices.compute(make_frames({"SP500": series(dates, close), "NASDAQCOM": series(dates, nq)}))
    d = payload["data"]["SP500"]
    s = pd.Series(close)
    sma50, sma200 = s.rolling(50).mean(), s.rolling(200).mean()
    assert d["distance_to_sma50_pct"] == pytest.approx(round((close[-1] / sma50.iloc[-1] - 1) * 100, 2))
    assert d["distance_to_sma200_pct"] == pytest.approx(round((close[-1] / sma200.iloc[-1] - 1) * 100, 2))
    above = (sma50 > sma200)
    flips = above.ne(above.shift()) & sma200.notna() & sma200.shift().notna()
    golden = [i for i in flips[flips].index if above[i]]
    death = [i for i in flips[flips].index if not above[i]]
    assert d["last_golden_cross"] == dates[golden[-1]].isoformat()
    assert d["last_death_cross"] == dates[death[-1]].isoformat()
    assert dates[death[-1]] < dates[golden[-1]]
    assert d["trend_state"] == "uptrend"
    assert d["change_1d_pct"] == pytest.approx(round((np.exp(0.004) - 1) * 100, 2))
    assert payload["signals"][0]["direction"] == "bullish"
    check_payload(payload)


def test_one_index_missing_degrades_and_none_raises():
    dates = bdays(600)
    full = equity_indices.compute(make_frames({"SP500": series(dates, _v_shape()),
                                               "NASDAQCOM": series(dates, _v_shape())}))
    part = equity_indices.compute(make_frames({"SP500": series(dates, _v_shape())}))
    assert part["data_sources"]["missing"] == ["NASDAQCOM"] and "NASDAQCOM" not in part["data"]
    assert part["signals"][0]["confidence"] < full["signals"][0]["confidence"]
    check_payload(part)
    with pytest.raises(InsufficientData):
        equity_indices.compute(make_frames({}))


def test_short_history_says_so():
    payload = equity_indices.compute(make_frames({"SP500": series(bdays(60), _v_shape()[:60])}))
    d = payload["data"]["SP500"]
    assert d["sma_200"] is None and d["trend_state"] == "insufficient_history" and d["change_1y_pct"] is None
    check_payload(payload)
