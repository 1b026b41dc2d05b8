"""The parallels view on real history at replayed dates: point in time (no episode whose window or end lies
after the clock, no observation after it), detected tags, bitcoin measured or inferred, and `select`."""
from __future__ import annotations

from datetime import date

import pytest

from intel.parallels import MAX_TOP_N, load_episodes, parallels_view, select
from tests.intel.parallels.replay_frames import replay_frames

COVID = date(2020, 3, 20)
LATE = date(2025, 12, 1)


@pytest.fixture(scope="module")
def covid_view() -> dict:
    return parallels_view(replay_frames(COVID), load_episodes(), COVID)


@pytest.fixture(scope="module")
def late_view() -> dict:
    return parallels_view(replay_frames(LATE), load_episodes(), LATE)


def test_nothing_after_the_clock_is_offered_or_read(covid_view):
    ids = {r["id"] for r in covid_view["results"]}
    assert "covid_2020" not in ids and "trade_war_2019" not in ids  # windows end in 2020 and 2021
    assert "q4_2018" in ids and covid_view["episodes_offered"] == len(ids) == 24
    for r in covid_view["results"]:
        assert date.fromisoformat(r["window_end"]) <= COVID and date.fromisoformat(r["end"]) <= COVID, r["id"]
    for figure in covid_view["current_state"].values():
        assert figure["value"] is None or date.fromisoformat(figure["observed"]) <= COVID
    assert covid_view["as_of"] == "2020-03-20" and covid_view["data_as_of"] <= "2020-03-20"


def test_the_covid_crash_is_detected_from_the_data(covid_view):
    assert {"equity_correction", "bear_market", "high_volatility", "credit_stress"} <= set(covid_view["detected_tags"])
    state = covid_view["current_state"]
    assert state["cape"]["value"] is None and "warehouse" in state["cape"]["reason"]
    assert state["volatility"]["series"] == "VIXCLS" and state["volatility"]["value"] > 60
    top = covid_view["results"][0]
    assert top["similarity"] > covid_view["results"][-1]["similarity"] and top["matched_tags"]
    assert 0 < top["coverage"] < 1 and top["drivers"]


def test_all_thirty_by_late_2025_with_bitcoin_measured_or_inferred(late_view):
    assert late_view["episodes_offered"] == 30
    by_id = {r["id"]: r for r in late_view["results"]}
    assert by_id["covid_2020"]["bitcoin"]["kind"] == "measured"
    inferred = by_id["lehman_2008"]["bitcoin"]
    assert inferred["kind"] == "inference" and "not a measurement" in inferred["note"]
    assert inferred["beta"]["months"] >= 24 and inferred["beta"]["to"] <= "2024-01"  # CBBTCUSD ends 2024-02


def test_before_enough_bitcoin_history_there_is_no_inference(covid_view):
    # CBBTCUSD starts 2019-02 in the history: by March 2020 there are 12 complete months, not 24
    assert {r["bitcoin"]["kind"] for r in covid_view["results"]} == {"none"}


def test_implications_follow_the_figures(late_view):
    by_id = {r["id"]: r for r in late_view["results"]}
    equities = {i["asset_class"]: i for i in by_id["lehman_2008"]["implications"]}["equities"]
    assert equities["stance"] == "unfavourable" and equities["drawdown_risk"] == "high"
    bonds = {i["asset_class"]: i for i in by_id["bear_2022"]["implications"]}["treasuries"]
    assert bonds["stance"] == "unfavourable" and bonds["basis"]["dgs10_change_12m_pp"] > 2


def test_select_filters_by_conditions_and_cuts_to_top_n(late_view):
    auto = select(late_view, [], 5)
    assert auto["conditions_source"] == "auto_detected" and len(auto["results"]) == 5
    assert [r["id"] for r in auto["results"]] == [r["id"] for r in late_view["results"][:5]]
    banking = select(late_view, ["banking_crisis", "credit_stress"], MAX_TOP_N)
    assert banking["results"] and all(r["matched_tags"] for r in banking["results"])
    assert {"lehman_2008", "banks_2023", "crash_1929"} <= {r["id"] for r in banking["results"]}
    counts = [len(r["matched_tags"]) for r in banking["results"]]
    assert counts == sorted(counts, reverse=True)
    assert banking["across_results"]["episodes"] == len(banking["results"])
    with pytest.raises(ValueError):
        select(late_view, ["not_a_tag"], 5)
    with pytest.raises(ValueError):
        select(late_view, [], MAX_TOP_N + 1)
