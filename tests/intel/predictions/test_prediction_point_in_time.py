"""Point in time on the real history: no feature, fit or resolution uses an observation that was not
published by the day it is dated."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest

from intel.predictions import backtest as bt
from intel.predictions.questions import QUESTIONS
from intel.predictions.resolution import day_number, iso, resolve
from tests.intel.predictions.history_long import history_long, published_by

# days spread over the history, including a holiday (2008-12-25) and days inside the 2008 and 2020 crises
DAYS = [date(2006, 3, 15), date(2008, 10, 10), date(2008, 12, 25), date(2011, 8, 8), date(2016, 11, 9),
        date(2020, 3, 16), date(2022, 6, 13), date(2024, 5, 1)]


@pytest.fixture(scope="module")
def tables():
    return bt.tables(bt.series_arrays(history_long()), date(2024, 12, 31))


@pytest.fixture(scope="module")
def replay():
    """A short back-test on the real history: 2015-2016 issued, yearly refits."""
    return bt.run_backtest(history_long(), date(2015, 1, 1), date(2016, 12, 31))


@pytest.mark.parametrize("day", DAYS, ids=str)
def test_vectorised_features_equal_the_features_of_the_history_truncated_at_the_day(tables, day):
    frames = published_by(history_long(), day)
    checked = 0
    for qid, table in tables.items():
        i = int(np.searchsorted(table.days, day_number(day)))
        if i >= len(table.days) or table.days[i] != day_number(day):
            continue  # a weekend: no market day
        for col, feature in enumerate(table.question.features):
            frame = frames.get(feature.series)
            truncated = np.nan if frame is None else feature.transform(frame["value"].to_numpy())[-1]
            if np.isfinite(table.x[i, col]):
                assert table.x[i, col] == pytest.approx(truncated, rel=1e-9, abs=1e-12), (qid, feature.name)
                checked += 1
    assert checked or day.weekday() >= 5


def test_backtest_predictions_equal_what_issue_says_on_frames_truncated_at_the_day(replay, tables):
    by_day: dict[str, list[dict]] = {}
    for prediction in replay.predictions:
        by_day.setdefault(prediction["issued_on"], []).append(prediction)
    for day_iso in ("2015-01-02", "2015-08-24", "2016-06-24", "2016-12-30"):
        day = date.fromisoformat(day_iso)
        fits = bt.fit_all(history_long(), day)
        live = {p["question"]: p for p in bt.issue(published_by(history_long(), day), day, "backtest", fits)}
        replayed = {p["question"]: p for p in by_day[day_iso]}
        assert replayed.keys() == live.keys() and len(live) >= 14
        for qid, prediction in replayed.items():
            assert prediction == live[qid], qid


def test_every_fit_rests_on_outcomes_published_before_its_cutoff_and_the_issue_day(replay, tables):
    for prediction in replay.predictions:
        first, last = prediction["model"]["fitted_on"]
        assert first <= last < prediction["issued_on"]
        assert all(as_of <= prediction["issued_on"] for as_of in prediction["inputs_as_of"].values())
    for table in tables.values():
        for cutoff in (date(2010, 1, 1), date(2015, 1, 1)):
            fit = table.fit(day_number(cutoff))
            if fit is None:
                continue
            used = (table.resolved_on < day_number(cutoff)) & np.all(np.isfinite(table.x), axis=1)
            assert fit.n_fit == int(used.sum())
            assert fit.fitted_on[1] == iso(table.days[used][-1]) < cutoff.isoformat()


def test_resolutions_come_on_the_first_market_day_the_deciding_observations_were_published(replay):
    by_id = {p["id"]: p for p in replay.predictions}
    sample = replay.resolutions[:: max(1, len(replay.resolutions) // 40)]
    long = history_long()
    assert len(sample) >= 40
    for resolution in sample:
        prediction = by_id[resolution["prediction_id"]]
        # a resolution reads its own series only: the frames hold just that one (the whole history cost 20 s)
        own = long.filter(long["series_id"] == prediction["series"])
        day = date.fromisoformat(resolution["resolved_on"])
        assert resolution["observed_on"] > prediction["issued_on"]
        assert resolve(prediction, published_by(own, day), day) == resolution
        earlier = day - timedelta(days=1)
        while earlier.weekday() >= 5:
            earlier -= timedelta(days=1)
        assert resolve(prediction, published_by(own, earlier), earlier) is None, resolution["id"]


def test_the_short_backtest_issues_and_resolves_every_category_it_has_data_for(replay):
    categories = {p["category"] for p in replay.predictions}
    assert {"equities", "volatility", "rates", "credit", "macro", "fx"} <= categories
    assert len(replay.resolutions) > 1000
    assert all(QUESTIONS[p["question"]].category == p["category"] for p in replay.predictions)
