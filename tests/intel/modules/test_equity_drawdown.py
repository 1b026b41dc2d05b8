import numpy as np
import pandas as pd
import pytest
from builders import bdays, check_payload, make_frames, market, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import equity_drawdown


def _episodes(close):
    """Reference: walk the closes once; an episode runs from the first close below the running high to the
    first close back at or above it. Returns (start, first index at each depth seen, end, trough)."""
    out, high, current = [], close[0], None
    for i, c in enumerate(close):
        if c >= high:
            if current is not None:
                current["end"] = i
                out.append(current)
                current = None
            high = c
        else:
            if current is None:
                current = {"start": i, "peak": i - 1, "high": high, "trough": i}
            if c < close[current["trough"]]:
                current["trough"] = i
    return out, current


def _legs(*legs):
    """Piecewise-linear path in log space: (target level, trading days) per leg, starting at 100."""
    path = [100.0]
    for target, days in legs:
        path += list(np.exp(np.linspace(np.log(path[-1]), np.log(target), days + 1)[1:]))
    return np.array(path)


def test_worked_example_recovery_times():
    # three past drawdowns (-20%, -12%, -30%) each recovered, then today 15% below the last high
    close = _legs((80, 40), (100, 60), (110, 30), (96.8, 20), (110, 25), (120, 20), (84, 50), (120, 90),
                  (125, 10), (106.25, 30))
    dates = bdays(len(close))
    payload = equity_drawdown.compute(make_frames({"SP500": series(dates, close)}))
    d = payload["data"]["SP500"]
    assert d["drawdown_from_high_pct"] == pytest.approx(-15.0)
    assert d["high"] == 125.0 and d["high_date"] == dates[int(np.argmax(close))].isoformat()
    assert d["trading_days_since_high"] == 30
    assert d["days_since_high"] == (dates[-1] - dates[int(np.argmax(close))]).days
    past, ongoing = _episodes(close)
    assert ongoing is not None and d["episodes_in_history"] == len(past) == 3
    # episodes that reached -15%: the -20% and the -30% one; days from first close at -15% to the new high
    reach = d["recovery"]["reached_this_depth"]
    depth = -0.15 + 1e-12
    expected = []
    for e in past:
        dd = close[e["start"]:e["end"]] / e["high"] - 1
        if dd.min() <= depth:
            expected.append(e["end"] - (e["start"] + int(np.argmax(dd <= depth))))
    assert reach["episodes"] == 2 and len(expected) == 2
    assert reach["trading_days_to_recovery_median"] == pytest.approx(np.median(expected))
    assert reach["trading_days_to_recovery_max"] == max(expected)
    assert reach["trough_pct_median"] == pytest.approx(-25.0)  # median of -20 and -30
    # similar troughs (between -22.5% and -10%): the -20% and the -12% episodes
    sim = d["recovery"]["similar_trough_depth"]
    assert sim["trough_band_pct"] == [-22.5, -10.0] and sim["episodes"] == 2
    assert sim["trading_days_peak_to_trough_median"] == pytest.approx(np.median([40, 20]))
    assert sim["trading_days_trough_to_recovery_median"] == pytest.approx(np.median([60, 25]))
    assert sim["trading_days_peak_to_recovery_max"] == 100
    assert payload["signals"][0]["direction"] == "bearish"
    assert payload["signals"][0]["urgency"] == "medium"  # -15% lies in the -10% to -20% band
    check_payload(payload)


def test_random_path_matches_pandas_reference():
    close = random_walk(2000, 3000, 0.012, seed=21)
    dates = bdays(2000)
    d = equity_drawdown.compute(make_frames({"NASDAQCOM": series(dates, close)}))["data"]["NASDAQCOM"]
    s = pd.Series(close)
    dd = s / s.cummax() - 1
    assert d["drawdown_from_high_pct"] == pytest.approx(round(dd.iloc[-1] * 100, 2))
    assert d["max_drawdown_pct"] == pytest.approx(round(dd.min() * 100, 2))
    past, ongoing = _episodes(close)
    assert d["episodes_in_history"] == len(past)
    if ongoing is not None:
        current = dd.iloc[-1]
        reached = [e for e in past if close[e["start"]:e["end"]].min() / e["high"] - 1 <= current]
        assert d["recovery"]["reached_this_depth"]["episodes"] == len(reached)


def test_crash_is_bearish_and_urgent():
    payload = equity_drawdown.compute(make_frames(market("crisis")))
    sig = {s["name"]: s for s in payload["signals"]}
    assert payload["data"]["SP500"]["drawdown_from_high_pct"] <= -20
    assert sig["sp500_drawdown"]["direction"] == "bearish" and sig["sp500_drawdown"]["urgency"] in ("high", "critical")
    # nothing in the constructed history fell this far: no recovery time is invented
    reach = payload["data"]["SP500"]["recovery"]["reached_this_depth"]
    assert reach["episodes"] == 0 and reach["trading_days_to_recovery_median"] is None
    assert "None of the" in payload["summary"]
    check_payload(payload)


def test_at_a_high_and_missing_index_degrade_honestly():
    close = np.linspace(100, 200, 400)  # every close a new high
    dates = bdays(400)
    both = equity_drawdown.compute(make_frames({"SP500": series(dates, close), "NASDAQCOM": series(dates, close)}))
    one = equity_drawdown.compute(make_frames({"SP500": series(dates, close)}))
    assert one["data_sources"]["missing"] == ["NASDAQCOM"] and "NASDAQCOM" not in one["data"]
    assert one["signals"][0]["confidence"] < both["signals"][0]["confidence"]
    assert "missing inputs: NASDAQCOM" in one["summary"]
    d = one["data"]
    assert d["SP500"]["drawdown_from_high_pct"] == 0 and "recovery" not in d["SP500"]
    assert "SP500.recovery" in d["unavailable"]
    assert one["signals"][0]["direction"] == "bullish"
    check_payload(one)
    with pytest.raises(InsufficientData):
        equity_drawdown.compute(make_frames({}))
