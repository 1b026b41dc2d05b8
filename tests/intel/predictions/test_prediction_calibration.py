"""The ridge-logit calibration on simulated data (drawn here with a fixed seed, not market data)."""
from __future__ import annotations

import numpy as np

from intel.predictions.calibration import MIN_FIT_CASES, P_MAX, P_MIN, fit_question, predict


def simulated(n, seed=7):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2)) * [2.0, 1.0] + [5.0, 0.0]
    logit = -1.0 + 0.8 * (x[:, 0] - 5.0) / 2.0  # only the first feature carries information
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    return x, y


def issued(n):
    return [f"{2000 + i // 336}-{i // 28 % 12 + 1:02d}-{i % 28 + 1:02d}" for i in range(n)]


def test_the_fit_learns_the_sign_and_calibrates_out_of_sample():
    x, y = simulated(20000)
    fit = fit_question("q", ("a", "b"), x[:10000], y[:10000], issued(10000), 1, "2001-01-01")
    assert fit.coef[0] > 0.6 and abs(fit.coef[1]) < 0.1
    p = predict(fit, x[10000:])
    assert abs(p.mean() - y[10000:].mean()) < 0.02
    high = p > 0.5
    assert abs(p[high].mean() - y[10000:][high].mean()) < 0.03


def test_a_negative_relation_is_learned_as_negative():
    x, y = simulated(5000)
    fit = fit_question("q", ("a", "b"), -x, y, issued(5000), 1, "2001-01-01")
    assert fit.coef[0] < -0.5


def test_the_penalty_shrinks_towards_the_base_rate_with_overlapping_outcomes():
    x, y = simulated(2000)
    loose = fit_question("q", ("a", "b"), x, y, issued(2000), 1, "2001-01-01")
    tight = fit_question("q", ("a", "b"), x, y, issued(2000), 252, "2001-01-01")
    assert abs(tight.coef[0]) < abs(loose.coef[0])


def test_too_few_cases_or_one_sided_outcomes_give_no_fit():
    x, y = simulated(MIN_FIT_CASES - 1)
    assert fit_question("q", ("a", "b"), x, y, issued(len(y)), 1, "2001-01-01") is None
    x, _ = simulated(1000)
    assert fit_question("q", ("a", "b"), x, np.zeros(1000), issued(1000), 1, "2001-01-01") is None


def test_probabilities_are_clipped():
    x, y = simulated(5000)
    fit = fit_question("q", ("a", "b"), x, y, issued(5000), 1, "2001-01-01")
    p = predict(fit, np.array([[1e6, 0.0], [-1e6, 0.0]]))
    assert p.max() == P_MAX and p.min() == P_MIN
    assert fit.model_record() == {"name": fit.name, "fitted_on": ["2000-01-01", "2014-11-16"], "n_fit": 5000}
