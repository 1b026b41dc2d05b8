"""The day-trade journal's rules, events and track record on closes built by hand (their figures checked by hand)."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest

from intel.daytrade.journal import INSTRUMENTS, closed_bars, next_events, open_ideas
from intel.daytrade.rules import breakout_20, decide, paper_pnl_pct, pullback_in_trend
from intel.daytrade.terms import CURRENT
from intel.daytrade.track_record import max_drawdown_pct, track_record

SPY = INSTRUMENTS["SPY"]
PROVENANCE = {"data_source": "test", "simulated": True}


def uptrend_then_drop() -> np.ndarray:
    rising = 100 * np.cumprod(np.r_[1.0, np.tile([1.004, 0.999], 12)])  # gentle uptrend, small daily moves
    return np.r_[rising, rising[-1] * 0.97]  # then a 3% fall


def test_pullback_in_an_uptrend_is_bought_and_its_reason_states_the_figures():
    closes = uptrend_then_drop()
    decision = pullback_in_trend("SPY", closes)
    assert decision is not None and decision.side == "long"
    average = np.mean(closes[-21:-1])
    assert f"{average:.2f}" in decision.reason and "-3.00%" in decision.reason
    assert pullback_in_trend("SPY", closes[:-1]) is None  # the day before: no pullback
    assert pullback_in_trend("SPY", 200 - closes).side == "short"  # the mirror: a rally in a downtrend


def test_breakout_rule_reads_only_the_previous_twenty_closes():
    closes = np.r_[np.full(20, 100.0), 101.0]
    assert breakout_20("X", closes).side == "long"
    assert breakout_20("X", np.r_[np.full(20, 100.0), 99.0]).side == "short"
    assert breakout_20("X", np.r_[np.full(20, 100.0), 100.0]) is None
    assert decide("other", "X", closes[-20:]) is None  # too short to decide


def test_paper_pnl_is_close_to_close_in_the_ideas_direction():
    assert paper_pnl_pct("long", 100, 102) == 2.0
    assert paper_pnl_pct("short", 100, 102) == -2.0


def bars_of(closes, first: date):
    days = [first + timedelta(days=i) for i in range(len(closes))]
    return days, list(closes)


def test_an_idea_opens_on_the_newest_closed_bar_and_closes_at_the_next_bar():
    closes = uptrend_then_drop()
    days, values = bars_of(np.r_[closes, closes[-1] * 1.01], date(2026, 3, 2))
    entry_day = days[-2]
    at_entry = SPY.closed_at(entry_day) + timedelta(hours=1)
    bars = closed_bars(SPY, days, values, at_entry)
    assert bars[-1].day == entry_day  # the next day's bar has not closed yet: never read
    entered = next_events(SPY, bars, [], at_entry, CURRENT, PROVENANCE)
    assert [(e["event"], e["track"], e["side"]) for e in entered] == [("ENTERED", "main", "long"),
                                                                      ("ENTERED", "other", "short")]
    assert entered[0]["reference_price"] == round(closes[-1], 6) and entered[0]["disclosure"] == CURRENT.disclosure()
    assert next_events(SPY, bars, entered, at_entry, CURRENT, PROVENANCE) == []  # a second run adds nothing
    later = SPY.closed_at(days[-1]) + timedelta(minutes=5)
    exited = next_events(SPY, closed_bars(SPY, days, values, later), entered, later, CURRENT, PROVENANCE)
    exits = [e for e in exited if e["event"] == "EXITED"]
    assert [(e["track"], e["paper_pnl_pct"]) for e in exits] == [("main", pytest.approx(1.0)),
                                                                 ("other", pytest.approx(-1.0))]
    assert not {"size", "quantity", "option_price", "delta"} & set(exits[0])
    assert open_ideas(entered + exits) == {}


def test_no_idea_opens_on_a_stale_bar():
    days, values = bars_of(uptrend_then_drop(), date(2026, 3, 2))
    week_later = SPY.closed_at(days[-1]) + timedelta(days=7)
    assert next_events(SPY, closed_bars(SPY, days, values, week_later), [], week_later, CURRENT, PROVENANCE) == []


def test_track_record_figures_by_hand():
    assert max_drawdown_pct([10, -50, 20]) == 50.0  # 1.1 -> 0.55 is a 50% fall; 0.66 stays below the peak
    now = datetime(2026, 3, 2, tzinfo=UTC).isoformat()
    events = []
    for n, pnl in enumerate([2.0, -1.0, 3.0]):
        idea = {"idea_id": f"main:SPY:{n}", "track": "main", "instrument": "SPY", "side": "long"}
        events += [{**idea, "id": f"{n}e", "event": "ENTERED"},
                   {**idea, "id": f"{n}x", "event": "EXITED", "paper_pnl_pct": pnl, "time": f"{now}{n}"}]
    record = track_record(events, {"seq": 6, "hash": "ab"})
    main = record["by_track"]["main"]
    assert record["hypothetical"] is True and "Hypothetical" in record["statement"]
    assert (main["ideas"], main["closed"], main["win_rate"]) == (3, 3, round(2 / 3, 4))
    assert main["mean_pnl_pct"] == pytest.approx(4 / 3, abs=1e-4) and main["median_pnl_pct"] == 2.0
    assert main["worst_loss_pct"] == -1.0 and main["max_drawdown_pct"] == 1.0
    assert record["by_track"]["other"]["ideas"] == 0 and record["journal"]["head_seq"] == 6
