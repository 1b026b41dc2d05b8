"""The regime classifier's scorecard: what followed each label counted as the rules' own bands say, the reaction
lag counted from each shock's first session, and on the real history the documented shocks labelled stressed by
the close of their first session (the shock rules), the 5 February 2018 VIX jump among them."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import polars as pl
import pytest

from intel.frames import Frames
from intel.regime import REGIME_INPUTS, classify
from intel.regime_history import DailyCutter, daily_regimes, trading_days
from intel.regime_score import EPISODES, forward_worst, label_figures, reaction, realised_states, report
from tests.history import history_dir


def labels_of(states: list[str], start: date = date(2018, 1, 1)) -> pl.DataFrame:
    return pl.DataFrame({"date": [start + timedelta(days=i) for i in range(len(states))], "state": states})


def test_forward_worst_reads_only_the_days_after_and_needs_a_whole_window():
    x = np.array([50.0, 1, 2, 9, 3, np.nan, 4])
    out = forward_worst(x, 2)
    assert out[0] == 2 and out[1] == 9 and out[2] == 9  # today's own 50 is not "what followed"
    assert np.isnan(out[3]) and np.isnan(out[4])  # a missing day in the window: not scored
    assert np.isnan(out[-2:]).all()  # the window runs past the end


def test_realised_state_is_the_most_stressed_band_any_measure_reaches():
    worst = {"vix": np.array([14.0, 16, 25, 41, np.nan, np.nan]),
             "hy_oas_pct": np.array([3.0, 3.0, 3.0, 3.0, 7.5, np.nan]),
             "sp500_drawdown_1y_pct": np.array([2.0, 12, np.nan, 0, np.nan, np.nan])}
    assert realised_states(worst).tolist() == ["risk_on", "risk_off", "risk_off", "crisis", "crisis", ""]


def test_label_figures_count_what_followed_and_the_event_rates():
    realised = np.array(["risk_off", "crisis", "neutral", "", "risk_on"], dtype=object)
    rows = np.array([True, True, True, True, False])
    events = {"vix_30_or_more": np.array([1.0, 1.0, 0.0, np.nan, 0.0])}
    out = label_figures(rows, realised, events, "risk_off", horizon=3)
    assert out["n_days"] == 4 and out["n_scored"] == 3 and out["n_independent"] == 1.0
    assert out["followed_by"] == {"risk_on": 0.0, "neutral": 0.333, "risk_off": 0.333, "crisis": 0.333}
    assert out["held"] == 0.333 and out["held_or_worse"] == 0.667
    assert out["events"]["vix_30_or_more"] == {"share": 0.667, "n": 3}


def test_reaction_lag_already_stressed_missed_and_uncovered():
    episodes = ((date(2018, 1, 4), "lag two", ""), (date(2018, 1, 8), "already", ""),
                (date(2018, 1, 12), "missed", ""), (date(2030, 1, 1), "not covered", ""))
    states = ["risk_on", "risk_on", "risk_on", "neutral", "risk_on", "risk_off", "risk_off", "risk_off", "crisis",
              "neutral", "neutral", "risk_on", "risk_on", "risk_on", "risk_on"]
    out = reaction(labels_of(states), episodes, cap=2)
    rows = {r["episode"]: r for r in out["episodes"]}
    assert set(rows) == {"lag two", "already", "missed"}
    assert rows["lag two"]["lag_to_stressed_days"] == 2 and rows["lag two"]["lag_to_crisis_days"] is None
    assert rows["already"]["already_stressed"] and rows["already"]["lag_to_crisis_days"] == 1
    assert rows["missed"]["lag_to_stressed_days"] is None
    assert (out["n_already_stressed"], out["n_missed"], out["median_lag_days"]) == (1, 1, 2.0)


def test_simulated_data_names_no_episode():
    frames = Frames(now=date(2018, 1, 20), series={}, data_source="sim")
    out = report(frames, labels_of(["risk_on"] * 20))
    assert out["reaction"]["episodes"] == [] and "simulated" in out["reaction"]["note"]
    assert out["by_label"]["risk_on"]["n_days"] == 20 and out["by_label"]["risk_on"]["n_scored"] == 0


@pytest.fixture(scope="module")
def real_frames() -> Frames:
    folder = history_dir()
    long = pl.concat([pl.read_csv(folder / f"{s}.csv", try_parse_dates=True, schema_overrides={"value": pl.Float64})
                      .with_columns(pl.lit(s).alias("series_id")) for s in REGIME_INPUTS], how="diagonal")
    return Frames.from_long(long.drop_nulls(), date(2026, 1, 1), "replay")


def test_documented_shocks_are_labelled_stressed_by_the_close_of_their_first_session(real_frames):
    days = [d for d in trading_days(real_frames)
            if any(timedelta(days=-3) <= d - shock <= timedelta(days=3) for shock, _, _ in EPISODES)]
    out = reaction(daily_regimes(real_frames, days), cap=0)
    # the 2007 Shanghai jump stopped at a VIX of 18, below the level the bands call stressed
    assert out["n_episodes"] == len(EPISODES) == 15 and out["n_missed"] == 1
    missed = [r for r in out["episodes"] if r["lag_to_stressed_days"] is None]
    assert [r["episode"] for r in missed] == ["Shanghai sell-off"]
    # the record one-day VIX jump: the trend inputs (S&P 500 above its average, tight spreads) no longer outvote it
    volatility = classify(DailyCutter(real_frames).at(date(2018, 2, 5)))
    assert volatility["state"] == "risk_off"
    assert any("a shock" in r for r in volatility["rationale"])
    assert any("half weight in a shock" in r for r in volatility["rationale"])
