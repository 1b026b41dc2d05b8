"""The regime history: each day's label is `classify` on the inputs dated on or before that day (checked against
frames built from nothing later), transitions and durations count what they say, and the tilt rule maps
forward-return figures to overweight / neutral / underweight as documented."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import polars as pl
import pytest

from intel.frames import Frames
from intel.regime import REGIME_INPUTS, classify
from intel.regime_history import (
    MIN_N,
    TREASURY_DURATION,
    daily_regimes,
    expected_duration,
    forward_returns,
    regime_view,
    tilt_figures,
    tilts,
    trading_days,
    transition_matrix,
)
from tests.history import history_dir

REPLAY_DAYS = (date(2008, 10, 10), date(2020, 3, 16))


@pytest.fixture(scope="module")
def real_long() -> pl.DataFrame:
    """The real history of the regime inputs and the tilt series the folder holds (no gold: there is none)."""
    folder = history_dir()
    ids = [s for s in (*REGIME_INPUTS, "DCOILWTICO", "DGS3MO", "CBBTCUSD") if (folder / f"{s}.csv").exists()]
    return pl.concat([pl.read_csv(folder / f"{s}.csv", try_parse_dates=True, schema_overrides={"value": pl.Float64})
                      .with_columns(pl.lit(s).alias("series_id")) for s in ids], how="diagonal")


def test_each_label_is_classify_on_data_dated_on_or_before_it(real_long):
    """Labels cut from the whole history equal `classify` on frames built only from observations <= D."""
    full = Frames.from_long(real_long, date(2024, 12, 31), "replay")
    rng = np.random.default_rng(13)
    sample = sorted({*REPLAY_DAYS, *rng.choice(trading_days(full, after=date(1997, 1, 1)), 25, replace=False)})
    labels = daily_regimes(full, sample)
    assert labels["date"].to_list() == sample
    for row in labels.iter_rows(named=True):
        day = row["date"]
        alone = classify(Frames.from_long(real_long.filter(pl.col("date") <= day), day, "replay"))
        assert row["state"] == alone["state"], day
        assert [row[f"p_{s}"] for s in alone["probabilities"]] == list(alone["probabilities"].values()), day
        assert row["data_as_of"] <= day
    by_day = dict(zip(labels["date"], labels["state"]))
    assert all(by_day[d] in ("risk_off", "crisis") for d in REPLAY_DAYS), by_day


def test_probabilities_sum_to_one_within_rounding(real_long):
    full = Frames.from_long(real_long, date(2020, 3, 31), "replay")
    labels = daily_regimes(full, trading_days(full, after=date(2020, 1, 31)))
    assert labels.height > 30
    total = labels.select(pl.sum_horizontal("p_risk_on", "p_neutral", "p_risk_off", "p_crisis"))[:, 0]
    assert ((total - 1).abs() <= 0.002).all()


def test_transition_counts_on_a_hand_made_sequence():
    states = ["risk_on", "risk_on", "neutral", "neutral", "crisis", "risk_off", "risk_on"]
    one = transition_matrix(states, 1)
    assert one["counts"]["risk_on"] == {"risk_on": 1, "neutral": 1, "risk_off": 0, "crisis": 0}
    assert one["counts"]["neutral"] == {"risk_on": 0, "neutral": 1, "risk_off": 0, "crisis": 1}
    assert one["counts"]["crisis"]["risk_off"] == 1 and one["counts"]["risk_off"]["risk_on"] == 1
    assert one["n"] == {"risk_on": 2, "neutral": 2, "risk_off": 1, "crisis": 1} and one["n_total"] == 6
    assert one["probabilities"]["risk_on"] == {"risk_on": 0.5, "neutral": 0.5, "risk_off": 0.0, "crisis": 0.0}
    three = transition_matrix(states, 3)  # pairs (0,3) (1,4) (2,5) (3,6)
    assert three["step_trading_days"] == 3 and three["n_total"] == 4
    assert three["counts"]["risk_on"] == {"risk_on": 0, "neutral": 1, "risk_off": 0, "crisis": 1}
    assert three["counts"]["neutral"] == {"risk_on": 1, "neutral": 0, "risk_off": 1, "crisis": 0}
    assert transition_matrix(states, 7)["probabilities"]["crisis"] is None  # no pair that far apart


def test_expected_duration_counts_only_ended_runs():
    states = ["risk_on"] * 3 + ["neutral"] * 2 + ["risk_on"] * 2  # the last run is still going
    d = expected_duration(states, "risk_on")
    assert d["current_run_days"] == 2
    assert d["empirical_n_runs"] == 1 and d["empirical_n_days"] == 3
    assert d["empirical_mean_remaining"] == 1.0 and d["mean_run_length"] == 3.0  # further days 2, 1, 0
    assert d["persistence_1d"] == 0.75 and d["persistence_n"] == 4  # risk_on stayed 3 times out of 4
    assert d["geometric_remaining"] == 3.0
    assert expected_duration(states, "crisis")["empirical_n_days"] == 0


def test_tilt_rule_on_constructed_returns():
    rng = np.random.default_rng(3)  # constructed returns, not market data
    noise = rng.normal(0, 0.01, 2000)
    in_state = np.arange(2000) < 400
    up = np.where(in_state, 0.03, 0.0) + noise
    assert tilt_figures(up, in_state, 21)["tilt"] == "overweight"
    assert tilt_figures(-up, in_state, 21)["tilt"] == "underweight"
    flat = tilt_figures(noise, in_state, 21)
    assert flat["tilt"] == "neutral" and abs(flat["t_stat"]) < 2
    few = np.arange(2000) < MIN_N - 1
    scarce = tilt_figures(np.where(few, 0.05, 0.0) + noise, few, 21)
    assert scarce["tilt"] == "neutral" and scarce["n_days"] == MIN_N - 1
    figures = tilt_figures(up, in_state, 21)
    assert figures["n_days"] == 400 and figures["n_days_unconditional"] == 2000
    assert figures["mean_regime_pct"] == pytest.approx(up[:400].mean() * 100, abs=1e-3)
    assert figures["hit_rate_regime"] == round(float((up[:400] > 0).mean()), 3)


def test_forward_returns_price_and_treasury():
    days = [date(2020, 1, 1) + timedelta(days=i) for i in range(6)]
    frames = Frames.from_long(pl.DataFrame({
        "series_id": ["P"] * 6 + ["Y"] * 6, "date": days * 2,
        "value": [100.0, 110.0, 121.0, 100.0, 50.0, 60.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0]}), days[-1])
    grid = np.array([(d - date(1970, 1, 1)).days for d in days])
    price = forward_returns(frames, "P", "price", grid, 2)
    assert price[:4] == pytest.approx([0.21, 100 / 110 - 1, 50 / 121 - 1, -0.4]) and np.isnan(price[4:]).all()
    bond = forward_returns(frames, "Y", "treasury", grid, 2)
    assert bond[0] == pytest.approx(0.02 * 2 / 365 - TREASURY_DURATION * 0.01)


def test_gold_is_absent_with_its_reason_never_invented(real_long):
    full = Frames.from_long(real_long, date(2020, 3, 16), "replay")
    labels = daily_regimes(full, trading_days(full, after=date(2019, 12, 31)))
    gold = tilts(full, labels, "crisis")["gold"]
    assert gold["tilt"] is None and "no" in gold["reason"]


@pytest.mark.parametrize("today", REPLAY_DAYS)
def test_regime_view_at_the_replayed_crises(real_long, today):
    frames = Frames.from_long(real_long, today, "replay")
    labels = daily_regimes(frames, trading_days(frames, after=today - timedelta(days=730)))
    view = regime_view(frames, labels, today)
    assert view["as_of"] == today.isoformat() and view["current"]["state"] in ("risk_off", "crisis")
    assert date.fromisoformat(view["current"]["since"]) <= today
    assert all(date.fromisoformat(s["last_observation"]) <= today for s in view["data_sources"]["series"])
    assert "GOLDAMGBD228NLBM" in view["data_sources"]["missing"]
    assert view["transitions"]["n_total"] == labels.height - 21
    assert sum(view["history"]["days_per_state"].values()) == labels.height
    assert set(view["tilts"]) == {"equities", "treasuries", "credit", "commodities", "gold", "cash", "bitcoin"}
    for name, tilt in view["tilts"].items():
        assert tilt["tilt"] in ("overweight", "neutral", "underweight", None), name
        assert tilt["tilt"] is None or tilt["n_days"] >= 0
