from datetime import date

import numpy as np
import pandas as pd
import pytest
from builders import NOW, bdays, check_payload, make_frames, random_walk, series

from intel.envelope import InsufficientData
from intel.modules import seasonality

N = 2600  # about ten years of business days up to NOW (Friday 2024-06-28, the last business day of June)


def _spx(june_drift=0.0, seed=5):
    dates = bdays(N)
    prices = random_walk(N, 2000, 0.01, seed, drift=0.0003)
    if june_drift:
        bump = np.array([june_drift if d.month == 6 else 0.0 for d in dates])
        prices = prices * np.exp(np.cumsum(bump))
    return dates, prices


def test_calendar_statistics_match_pandas():
    dates, prices = _spx()
    payload = seasonality.compute(make_frames({"SP500": series(dates, prices)}))
    d = payload["data"]
    s = pd.Series(prices, index=pd.to_datetime(dates))
    monthly = s.resample("ME").last().pct_change().dropna() * 100
    monthly = monthly[monthly.index.to_period("M") < pd.Period(NOW, "M")]  # the current month is incomplete
    for m, name in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1):
        x = monthly[monthly.index.month == m]
        got = d["by_month"][name]
        assert got["n"] == len(x)
        assert got["mean_return_pct"] == pytest.approx(round(x.mean(), 2), abs=0.011)
        assert got["hit_rate_pct"] == pytest.approx(round((x > 0).mean() * 100, 1))
        assert got["t_stat"] == pytest.approx(round(x.mean() / (x.std(ddof=1) / np.sqrt(len(x))), 2), abs=0.011)
    assert d["months_sampled"] == len(monthly)
    daily = (s.pct_change() * 100).iloc[1:]
    first_month = s.index[0].to_period("M")
    daily = daily[daily.index.to_period("M") > first_month]
    for w, name in enumerate(["monday", "tuesday", "wednesday", "thursday", "friday"]):
        x = daily[daily.index.dayofweek == w]
        assert d["by_weekday"][name]["n"] == len(x)
        assert d["by_weekday"][name]["mean_return_pct"] == pytest.approx(round(x.mean(), 3), abs=0.0011)
    # turn of month: first three closes of each month, and the last close of every month but the current one
    frame = s.to_frame("close")
    frame["period"] = frame.index.to_period("M")
    rank = frame.groupby("period").cumcount()
    last = frame.groupby("period").cumcount(ascending=False) == 0
    tom = (rank < 3) | (last & (frame["period"] < frame["period"].iloc[-1]))
    tom = tom.reindex(daily.index)
    ref_tom, ref_other = daily[tom], daily[~tom]
    got = d["turn_of_month"]
    assert got["turn_of_month_days"]["n"] == len(ref_tom) and got["other_days"]["n"] == len(ref_other)
    assert got["turn_of_month_days"]["mean_return_pct"] == pytest.approx(round(ref_tom.mean(), 3), abs=0.0011)
    assert got["difference_bp_per_day"] == pytest.approx(round((ref_tom.mean() - ref_other.mean()) * 100, 1), abs=0.11)
    today = d["today"]
    assert today["month"] == "jun" and today["weekday"] == "friday"
    assert today["business_day_of_month"] == 20 and today["business_days_left_in_month"] == 0
    assert today["in_turn_of_month_window"] is True
    may_close = s[s.index < "2024-06-01"].iloc[-1]
    assert today["month_to_date_pct"] == pytest.approx(round((s.iloc[-1] / may_close - 1) * 100, 2))
    assert d["sample_start"] == daily.index[0].date().isoformat()
    check_payload(payload)


def test_strong_junes_give_a_bullish_month_signal():
    dates, prices = _spx(june_drift=0.004)
    payload = seasonality.compute(make_frames({"SP500": series(dates, prices)}))
    cm = payload["data"]["current_month"]
    assert cm["hit_rate_pct"] == 100.0 and cm["rank_by_mean"] == 1
    sig = {s["name"]: s for s in payload["signals"]}["month_seasonality"]
    assert sig["direction"] == "bullish" and sig["urgency"] == "low" and sig["confidence"] <= 0.55
    weak = seasonality.compute(make_frames({"SP500": series(*_spx(june_drift=-0.004))}))
    assert {s["name"]: s for s in weak["signals"]}["month_seasonality"]["direction"] == "bearish"
    # inside the turn-of-month window the turn-of-month signal is present and more pressing
    assert {s["name"]: s for s in payload["signals"]}["turn_of_month"]["urgency"] == "medium"
    check_payload(payload)
    check_payload(weak)


def test_weekend_now_looks_at_the_next_session():
    dates, prices = _spx()
    payload = seasonality.compute(make_frames({"SP500": series(dates, prices)}, now=date(2024, 6, 30)))
    today = payload["data"]["today"]
    assert today["session_date"] == "2024-07-01" and today["month"] == "jul" and today["weekday"] == "monday"
    assert today["business_day_of_month"] == 1 and today["in_turn_of_month_window"]
    assert today["month_to_date_pct"] is None  # no July close yet
    # June ends on this weekend, but the current month (by the clock) stays out of the sample
    assert payload["data"]["by_month"]["jun"]["n"] == 9
    check_payload(payload)


def test_stale_series_lowers_confidence_and_short_history_raises():
    dates, prices = _spx(june_drift=0.004)
    fresh = seasonality.compute(make_frames({"SP500": series(dates, prices)}))
    stale = seasonality.compute(make_frames({"SP500": series(dates[:-15], prices[:-15])}))
    assert "stale inputs: SP500" in stale["summary"]
    conf = lambda p: {s["name"]: s for s in p["signals"]}["month_seasonality"]["confidence"]  # noqa: E731
    assert conf(stale) < conf(fresh)
    check_payload(stale)
    with pytest.raises(InsufficientData):
        seasonality.compute(make_frames({"SP500": series(dates[-200:], prices[-200:])}))
    with pytest.raises(InsufficientData):
        seasonality.compute(make_frames({}))
