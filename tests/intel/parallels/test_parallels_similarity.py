"""Similarity properties: in [0, 1], 1 x sqrt(coverage) for an identical state, contributions that add up to
it, farther is lower, fewer compared features is lower, too few is none."""
from __future__ import annotations

import math

from intel.parallels.features import FEATURE_NAMES
from intel.parallels.similarity import MIN_COMPARED, compare, scales

EPISODES = [{name: float(i + k) for k, name in enumerate(FEATURE_NAMES)} for i in range(10)]
SCALES = scales(EPISODES)


def test_identical_states_agree_fully_and_contributions_add_up():
    state = EPISODES[3]
    out = compare(state, state, SCALES)
    assert out["coverage"] == 1.0 and out["raw_agreement"] == 1.0 and out["similarity"] == 1.0
    assert math.isclose(sum(d["contribution"] for d in out["drivers"]), out["similarity"], abs_tol=1e-3)
    assert out["left_out"] == {}


def test_farther_is_less_similar_and_always_in_unit_range():
    base = EPISODES[0]
    scores = [compare(base, e, SCALES)["similarity"] for e in EPISODES]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)


def test_missing_features_are_left_out_with_why_and_coverage_penalizes():
    today = dict(EPISODES[2])
    today["cape"] = None
    episode = dict(EPISODES[2])
    episode["hy_spread_pct"] = None
    out = compare(today, episode, SCALES)
    assert out["left_out"] == {"cape": "absent today", "hy_spread_pct": "absent in the episode"}
    n = len(FEATURE_NAMES)
    assert out["coverage"] == round((n - 2) / n, 3)
    assert out["raw_agreement"] == 1.0 and math.isclose(out["similarity"], math.sqrt((n - 2) / n), abs_tol=1e-4)


def test_too_few_features_claim_no_similarity():
    keep = FEATURE_NAMES[: MIN_COMPARED - 1]
    sparse = {name: (EPISODES[1][name] if name in keep else None) for name in FEATURE_NAMES}
    out = compare(sparse, EPISODES[1], SCALES)
    assert out["similarity"] == 0.0 and out["drivers"] == [] and "fewer than" in out["note"]


def test_drivers_name_the_closest_features_first():
    today = dict(EPISODES[4])
    today["volatility"] += 3 * SCALES["volatility"][1]  # three deviations off on one feature
    out = compare(today, EPISODES[4], SCALES)
    assert out["drivers"][-1]["feature"] == "volatility" and out["drivers"][-1]["gap_sd"] == 3.0
    assert out["drivers"][0]["agreement"] == 1.0 and out["similarity"] < 1.0
