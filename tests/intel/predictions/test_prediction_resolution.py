"""Resolution edge cases on small hand-made series (made up for the test, not market data)."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import polars as pl
import pytest

from intel.frames import Frames
from intel.predictions.resolution import day_number, decide, iso, resolve

D0 = date(2024, 1, 1)  # a Monday


def arrays(values, start=D0, step=1):
    days = np.array([day_number(start) + i * step for i in range(len(values))], dtype=np.int64)
    return days, np.asarray(values, dtype=np.float64)


def test_higher_and_lower_compare_the_nth_observation_after_the_issue_day_with_the_last_one_on_or_before_it():
    days, values = arrays([10, 11, 9, 12, 10])
    assert decide("higher", None, 3, "trading_days", int(days[0]), days, values).outcome is True  # 12 > 10
    assert decide("lower", None, 1, "trading_days", int(days[1]), days, values).outcome is True  # 9 < 11
    tie = decide("higher", None, 4, "trading_days", int(days[0]), days, values)
    assert tie.outcome is False and tie.observed_value == 10.0 and iso(tie.observed_on) == "2024-01-05"
    assert decide("lower", None, 4, "trading_days", int(days[0]), days, values).outcome is False  # a tie is neither
    assert decide("higher", None, 5, "trading_days", int(days[0]), days, values) is None  # horizon not reached
    # issued on a day without an observation: the reference is the last one before it
    sparse_days, sparse = arrays([10, 12, 8], step=3)
    assert decide("higher", None, 1, "trading_days", int(sparse_days[0]) + 1, sparse_days, sparse).outcome is True
    assert decide("higher", None, 1, "trading_days", int(sparse_days[1]) + 2, sparse_days, sparse).outcome is False


def test_above_any_decides_on_the_first_hit_and_a_miss_only_at_the_end_of_the_horizon():
    days, values = arrays([25, 31, 20, 20, 20])
    hit = decide("above_any", 30.0, 3, "trading_days", int(days[0]), days, values)
    assert hit.outcome is True and hit.observed_value == 31.0 and hit.needs_through == 1
    assert decide("above_any", 30.0, 3, "trading_days", int(days[0]), days[:2], values[:2]).outcome is True
    assert decide("above_any", 30.0, 3, "trading_days", int(days[1]), days[:4], values[:4]) is None
    miss = decide("above_any", 30.0, 3, "trading_days", int(days[1]), days, values)
    assert miss.outcome is False and miss.needs_through == 4 and miss.observed_value == 20.0
    # the issue day's own close does not count: "within n days after"
    assert decide("above_any", 30.0, 1, "trading_days", int(days[1]), days, values).outcome is False


def test_wider_by_any_counts_a_move_of_exactly_the_threshold():
    days, values = arrays([3.10, 3.40, 3.60, 3.20])
    hit = decide("wider_by_any", 0.5, 3, "trading_days", int(days[0]), days, values)
    assert hit.outcome is True and iso(hit.observed_on) == "2024-01-03"
    assert decide("wider_by_any", 0.5, 1, "trading_days", int(days[0]), days, values).outcome is False


def test_calendar_days_wait_until_nothing_dated_up_to_the_target_can_still_come():
    days, values = arrays([100, 101, 102, 103, 104, 105])
    exact = decide("higher", None, 3, "calendar_days", int(days[0]), days, values)
    assert exact.outcome is True and iso(exact.observed_on) == "2024-01-04" and exact.needs_through == 3
    gap_days = np.array([day_number(D0), day_number(D0) + 1, day_number(D0) + 5], dtype=np.int64)
    gap = np.array([100.0, 99.0, 120.0])
    assert decide("higher", None, 3, "calendar_days", int(gap_days[0]), gap_days[:2], gap[:2]) is None
    late = decide("higher", None, 3, "calendar_days", int(gap_days[0]), gap_days, gap)
    assert late.outcome is False and late.observed_value == 99.0 and late.needs_through == 2


def monthly(flags, start=date(2019, 1, 1)):
    dates = [date(start.year + (start.month - 1 + i) // 12, (start.month - 1 + i) % 12 + 1, 1)
             for i in range(len(flags))]
    return pl.DataFrame({"series_id": "USREC", "date": dates, "value": [float(f) for f in flags]})


def test_a_recession_start_resolves_only_once_usrec_is_published_a_year_later():
    # 0 through February 2020, 1 from March 2020 (as NBER dated the 2020 recession)
    usrec = monthly([0] * 14 + [1, 1, 0, 0] + [0] * 12)
    prediction = {"id": "backtest:2019-06-03:recession_start_12m", "series": "USREC", "comparison": "event_within",
                  "threshold": None, "horizon": {"n": 12, "unit": "months"}, "issued_on": "2019-06-03",
                  "origin": "backtest"}
    frames = Frames.from_long(usrec, date(2022, 1, 1))
    assert resolve(prediction, frames, date(2021, 2, 26)) is None  # March 2020 not yet published (lag 365 days)
    resolution = resolve(prediction, frames, date(2021, 3, 1))
    assert resolution["outcome"] is True and resolution["observed_on"] == "2020-03-01"
    assert resolution["resolved_on"] == "2021-03-01" and resolution["prediction_hash"] is None
    # issued inside the recession: no new start in the 12 months after May 2020
    later = dict(prediction, id="backtest:2020-05-04:recession_start_12m", issued_on="2020-05-04")
    assert resolve(later, frames, date(2022, 1, 1)) is None  # May 2021 published only 2022-05-01
    frames = Frames.from_long(usrec, date(2023, 1, 1))
    assert resolve(later, frames, date(2022, 5, 1))["outcome"] is False


@pytest.mark.parametrize("lag_day_offset, decided", [(0, False), (1, True)])
def test_resolve_never_reads_an_observation_before_its_release_lag(lag_day_offset, decided):
    closes = pl.DataFrame({"series_id": "VIXCLS", "date": [D0 + timedelta(days=i) for i in range(4)],
                           "value": [20.0, 35.0, 20.0, 20.0]})
    prediction = {"id": "live:2024-01-01:vix_above_30_20d", "series": "VIXCLS", "comparison": "above_any",
                  "threshold": 30.0, "horizon": {"n": 20, "unit": "trading_days"}, "issued_on": "2024-01-01",
                  "origin": "live"}
    day = D0 + timedelta(days=1 + lag_day_offset)  # the 35 close of 2024-01-02 is published a day later
    result = resolve(prediction, Frames.from_long(closes, day + timedelta(days=10)), day)
    assert (result is not None) is decided
    if decided:
        assert result["outcome"] is True and result["observed_on"] == "2024-01-02"
