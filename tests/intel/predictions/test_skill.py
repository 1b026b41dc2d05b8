"""Per-kind skill against the base rate known on each issue day (`intel/predictions/skill.py`): the figures by hand,
an interval that widens when outcomes come in long runs, the bar in words, and a headline that weights kinds."""
from __future__ import annotations

import numpy as np
import pytest

from intel.predictions import skill


def cases(p, y, base, days=None):
    n = len(p)
    return skill.Cases.of(p, y, base, np.arange(n) if days is None else days)


def test_the_figures_of_a_kind_by_hand():
    rng = np.random.default_rng(1)
    y = (rng.random(2000) < 0.3).astype(float)
    p = np.clip(0.3 + 0.4 * (y - 0.3) + rng.normal(0, 0.05, 2000), 0.01, 0.99)
    base = np.full(2000, 0.3)
    row = skill.figures(cases(p, y, base), 21)
    brier, brier_base = np.mean((p - y) ** 2), np.mean((0.3 - y) ** 2)
    assert row["brier"] == pytest.approx(round(brier, 4))
    assert row["brier_base_rate"] == pytest.approx(round(brier_base, 4))
    assert row["skill"] == pytest.approx(round(1 - brier / brier_base, 4))
    lo, hi = row["skill_ci90"]
    assert lo < row["skill"] < hi and lo > 0 and row["block_days"] == 42
    assert sum(r["n"] for r in row["reliability"]) == 2000 and len(row["reliability"]) == 10
    assert skill.verdict(row)[0] is (row["ece"] < skill.BAR_ECE)


def test_overlapping_outcomes_widen_the_interval():
    """Outcomes in runs of 63 equal days (what 63-day horizons issued daily give): blocks twice the horizon keep a
    run together and give a wider interval than month-long blocks, which treat one run as three pieces of evidence."""
    rng = np.random.default_rng(2)
    runs = np.repeat(rng.random(80) < 0.5, 63).astype(float)
    p = np.repeat(rng.uniform(0.3, 0.7, 80), 63)  # one call per run, right or wrong for the whole run
    data = cases(p, runs, np.full(len(runs), 0.5))
    width = lambda r: r["skill_ci90"][1] - r["skill_ci90"][0]  # noqa: E731
    short, long = skill.figures(data, 1), skill.figures(data, 63)
    assert (short["block_days"], long["block_days"]) == (21, 126) and short["skill"] == long["skill"]
    assert width(long) > 1.3 * width(short)


def test_the_bar_names_what_is_missing():
    row = {"n": 5000, "skill": 0.02, "skill_ci90": [-0.01, 0.05], "ece": 0.01}
    assert skill.verdict(row) == (False, "skill 0.02 but its 90% interval reaches -0.01: not shown to beat the "
                                         "base rate")
    assert skill.verdict({**row, "skill_ci90": [0.005, 0.05], "ece": 0.06})[1].startswith("calibration error 0.06")
    assert skill.verdict({**row, "n": 100})[1].startswith("100 resolved cases, fewer than the 250")
    assert skill.verdict({**row, "skill": -0.01})[1].startswith("no skill")
    assert skill.verdict({**row, "skill_ci90": [0.005, 0.05]})[0] is True


def test_the_headline_is_the_case_weighted_mean_of_the_kinds():
    rng = np.random.default_rng(3)
    rare_y = (rng.random(3000) < 0.1).astype(float)
    rare = cases(np.where(rare_y == 1, 0.4, 0.05), rare_y, np.full(3000, 0.1))
    even_y = (rng.random(1000) < 0.5).astype(float)
    even = cases(np.full(1000, 0.5), even_y, np.full(1000, 0.5))
    one, two = skill.figures(rare, 21)["skill"], skill.figures(even, 21)["skill"]
    head = skill.headline({"rare": rare, "even": even}, {"rare": 21, "even": 21})
    assert head["n"] == 4000 and head["skill"] == pytest.approx((3000 * one + 1000 * two) / 4000, abs=1e-4)
    assert head["skill_ci90"][0] < head["skill"] < head["skill_ci90"][1]
