"""Scoring on hand-computed examples."""
from __future__ import annotations

import math

import numpy as np
import pytest

from intel.predictions.scoring import (
    calibration_table,
    expected_calibration_error,
    pooled_reliability,
    prior_rates,
    score,
    summary,
)


def pair(question, category, origin, issued, resolved, p, outcome):
    return ({"question": question, "category": category, "origin": origin, "issued_on": issued, "probability": p},
            {"resolved_on": resolved, "outcome": outcome})


def test_summary_by_hand():
    p = np.array([0.9, 0.8, 0.3, 0.2])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    prior = np.array([0.5, 0.5, 0.5, 0.5])
    row = summary(p, y, prior)
    brier = (0.01 + 0.64 + 0.09 + 0.64) / 4  # 0.345
    assert row["n"] == 4 and row["hits"] == 2 and row["hit_rate"] == 0.5
    assert row["base_rate"] == 0.5 and row["brier"] == pytest.approx(brier)
    assert row["brier_base_rate"] == 0.25 and row["bss"] == pytest.approx(1 - brier / 0.25, abs=1e-4)
    assert row["brier_prior_base_rate"] == 0.25
    log_loss = -(math.log(0.9) + math.log(0.2) + math.log(0.7) + math.log(0.2)) / 4
    assert row["log_loss"] == pytest.approx(log_loss, abs=1e-4)
    # buckets 0.2-0.3, 0.3-0.4, 0.8-0.9, 0.9-1.0, one case each: |0.2-1| + |0.3-0| + |0.8-0| + |0.9-1| over 4
    assert row["ece"] == pytest.approx((0.8 + 0.3 + 0.8 + 0.1) / 4)
    table = {b["bucket"]: b for b in row["calibration"]}
    assert len(table) == 10 and table["0.9-1.0"] == {"bucket": "0.9-1.0", "n": 1, "mean_predicted": 0.9,
                                                     "observed_frequency": 1.0}
    assert table["0.5-0.6"]["n"] == 0 and table["0.5-0.6"]["mean_predicted"] is None


def test_perfectly_calibrated_buckets_have_zero_ece():
    p = np.array([0.25] * 4 + [0.75] * 4)
    y = np.array([1, 0, 0, 0, 1, 1, 1, 0], dtype=float)
    assert expected_calibration_error(p, y) == pytest.approx(0.0)


def test_prior_base_rate_uses_only_resolutions_recorded_before_the_issue_day():
    pairs = [pair("q", "rates", "backtest", "2020-01-01", "2020-02-01", 0.5, True),
             pair("q", "rates", "backtest", "2020-02-01", "2020-03-01", 0.5, False),  # sees none (not before)
             pair("q", "rates", "backtest", "2020-02-02", "2020-03-02", 0.5, False),  # sees the first: 1/1
             pair("q", "rates", "backtest", "2020-04-01", "2020-05-01", 0.5, True)]  # sees three: 1/3
    history = [("q", "2019-12-01", False)]
    assert list(prior_rates(pairs)) == pytest.approx([0.5, 0.5, 1.0, 1 / 3])
    assert list(prior_rates(pairs, history)) == pytest.approx([0.0, 0.0, 0.5, 0.25])


def test_score_groups_by_category_and_origin():
    pairs = [pair("a", "rates", "backtest", "2020-01-01", "2020-02-01", 0.7, True),
             pair("b", "credit", "live", "2020-01-01", "2020-02-01", 0.2, False),
             pair("b", "credit", "backtest", "2020-01-02", "2020-02-02", 0.4, True)]
    report = score(pairs)
    assert report["overall"]["n"] == 3
    assert report["by_category"]["credit"]["n"] == 2 and report["by_category"]["rates"]["n"] == 1
    assert report["by_origin"]["backtest"]["n"] == 2 and report["by_origin"]["live"]["brier"] == pytest.approx(0.04)
    assert report["by_category"]["rates"]["bss"] is None  # one case: its base rate is certain, no skill to measure
    assert "climatology" in report["base_rate_used"]


def test_pooled_reliability_tables_are_the_table_of_all_their_cases():
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, 400)
    y = (rng.uniform(0, 1, 400) < p).astype(float)
    parts = [calibration_table(p[:150], y[:150]), calibration_table(p[150:], y[150:])]
    pooled, whole = pooled_reliability(parts), calibration_table(p, y)
    assert [row["n"] for row in pooled] == [row["n"] for row in whole] and sum(r["n"] for r in pooled) == 400
    for got, want in zip(pooled, whole):
        assert got["bucket"] == want["bucket"]
        assert abs(got["mean_predicted"] - want["mean_predicted"]) < 1e-3
        assert abs(got["observed_frequency"] - want["observed_frequency"]) < 1e-3
    assert pooled_reliability([]) == []
