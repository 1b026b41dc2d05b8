"""The walk-forward forecaster (`intel/predictions/forecaster.py`): the calibration map never turns a score around
and falls back to the base rate without evidence, and each period's gate judges only statements of earlier periods
resolved before its cutoff."""
from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from intel.predictions import forecaster
from intel.predictions.backtest import overlap_days, series_arrays, tables, yearly_refit
from intel.predictions.questions import QUESTIONS
from intel.predictions.resolution import day_number
from tests.intel.predictions.history_long import history_long


def test_an_informative_score_is_mapped_and_a_contrary_one_becomes_the_base_rate():
    rng = np.random.default_rng(5)
    y = (rng.random(4000) < 0.3).astype(float)
    informative = np.clip(0.3 + 0.3 * (y - 0.3) + rng.normal(0, 0.15, 4000), 0.02, 0.98)
    good = forecaster.fit_platt(informative, y, 21, 0.3)
    assert good.slope > 0 and good.n == 4000
    mapped = good.apply(informative)
    assert mapped[y == 1].mean() > mapped[y == 0].mean() and abs(mapped.mean() - y.mean()) < 0.02
    # the contrary score carries no evidence: the base rate known at the cutoff (the whole record's), not the window's
    contrary = forecaster.fit_platt(1 - informative, y, 21, 0.4)
    assert contrary.slope == 0.0 and np.allclose(contrary.apply(informative), 0.4, atol=1e-6)
    assert forecaster.fit_platt(informative[:100], y[:100], 21, 0.3) is None  # too few cases to calibrate


def test_thin_evidence_keeps_the_base_rate_and_the_intercept_leans_toward_it():
    """A year of 21-day statements is about 12 independent outcomes: the map says the base rate known at the
    cutoff, however well the score did. With enough outcomes, a window whose rate strays from the known base rate
    (a bear year: 30% up against 60% over the record) is pulled part of the way back toward it."""
    rng = np.random.default_rng(7)
    y = (rng.random(6000) < 0.3).astype(float)
    score = np.clip(0.3 + 0.3 * (y - 0.3) + rng.normal(0, 0.15, 6000), 0.02, 0.98)
    year = forecaster.fit_platt(score[:252], y[:252], 21, 0.6)
    assert 252 / 21 < forecaster.MIN_INDEPENDENT and year.slope == 0.0
    assert np.allclose(year.apply(score[:252]), 0.6, atol=1e-6)
    long = forecaster.fit_platt(score, y, 21, 0.6)
    free = forecaster.fit_platt(score, y, 21, float(y.mean()))  # the same window with its own rate as the prior
    assert long.slope > 0 and long.apply(score).mean() > free.apply(score).mean()
    assert abs(free.apply(score).mean() - y.mean()) < 0.02


@pytest.fixture(scope="module")
def walk():
    question = QUESTIONS["vix_above_30_20d"]
    table = tables(series_arrays(history_long()), date(2024, 12, 31), [question])[question.id]
    return forecaster.WalkForward(table, yearly_refit, overlap_days(question))


def test_each_gate_judges_only_earlier_statements_resolved_before_its_cutoff(walk):
    cutoff = day_number(date(2020, 1, 1))
    forecast = walk.through(cutoff)
    table = walk.table
    judged = (table.days < cutoff) & (table.resolved_on < cutoff) & np.isfinite(walk.calibrated)
    assert forecast.record["n"] == int(judged.sum()) > 250
    # the map is fitted on every earlier out-of-sample statement, calibrated or not yet
    assert forecast.fit.cutoff == "2020-01-01" and forecast.platt.n >= forecast.record["n"]
    # the period's own statements are made by this period's model and map, from its own cutoff
    period = (walk.cutoffs == cutoff) & np.isfinite(walk.calibrated)
    i = int(np.flatnonzero(period)[0])
    assert walk.calibrated[i] == pytest.approx(forecast.probability(table.x[i]))
    assert forecast.published is forecaster.skill.verdict(forecast.record)[0]


def test_a_walk_done_on_the_same_data_is_remembered_and_a_revision_is_not_missed():
    """Two days of 2020 on the same history: the second walk is taken from memory and equals a fresh one. A value
    revised before the cutoff changes the digest, so the walk is done again on the revised data."""
    question = QUESTIONS["vix_higher_21d"]
    overlap = overlap_days(question)
    long = history_long().filter(history_long()["date"] <= date(2020, 6, 30))
    cutoff = day_number(date(2020, 1, 1))

    def walk_of(frame):
        table = tables(series_arrays(frame), date(2020, 6, 30), [question])[question.id]
        walk = forecaster.WalkForward(table, yearly_refit, overlap)
        return walk, walk.through(cutoff)

    forecaster._DONE.clear()
    _, fresh = walk_of(long)
    assert len(forecaster._DONE) == 1
    remembered_walk, remembered = walk_of(long)
    assert len(forecaster._DONE) == 1 and remembered is fresh  # the same object: taken from memory
    forecaster._DONE.clear()
    recomputed_walk, recomputed = walk_of(long)
    assert recomputed.record == fresh.record and recomputed.platt == fresh.platt
    assert np.array_equal(recomputed_walk.calibrated, remembered_walk.calibrated, equal_nan=True)
    import polars as pl

    revised = long.with_columns(pl.when((pl.col("series_id") == "VIXCLS") & (pl.col("date") == date(2019, 3, 1)))
                                .then(pl.col("value") * 3).otherwise(pl.col("value")).alias("value"))
    _, after = walk_of(revised)
    assert len(forecaster._DONE) == 2 and after is not recomputed
