"""The scanner's rules on constructed payloads (the shapes the real modules return; the numbers are made up for the
test and carry `simulated` through): each fires at its threshold, respects its cooldown on an advancing market
clock, and the first scan emits only level rules."""
from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest

from intel.events.scanner import RULES, cooldowns, scan
from intel.events.types import EVENT_FIELDS, EVENT_TYPES, OWNER_ONLY, URGENCIES

T0 = datetime(2026, 3, 9, 14, 0, tzinfo=UTC)
DAY = "2026-03-06"


def payload(module: str, data: dict, day: str = DAY) -> dict:
    return {"module": module, "as_of": day, "data_as_of": day, "data": data}


def calm() -> dict[str, dict]:
    """A quiet market: no rule fires on it, at the first scan or later."""
    return {
        "market_regime": payload("market_regime", {"state": "neutral", "probabilities": {"neutral": 0.6}}),
        "vix": payload("vix", {"level": 16.0, "change_1d_pct": 2.0}),
        "tail_risk": payload("tail_risk", {"stress_composite": {"score": 40.0}}),
        "correlation_breaks": payload("correlation_breaks", {"pairs_broken": 0, "breaks": []}),
        "equity_indices": payload("equity_indices", {"SP500": {"level": 5000.0, "date": DAY, "change_1d_pct": -0.4}}),
        "credit_spreads": payload("credit_spreads", {"high_yield": {"oas_pct": 3.5, "change_1w_bp": 5.0}}),
        "curve_dynamics": payload("curve_dynamics", {"segments": {"2s10s": {"slope_bp": 20.0}}}),
        "signal_composite": payload("signal_composite", {"composite": 0.1, "composite_call": "neutral"}),
        "economic_calendar": payload("economic_calendar", {"recent": [], "upcoming": []}),
    }


def with_data(payloads: dict, module: str, path: str, value, day: str = DAY) -> dict:
    out = copy.deepcopy(payloads)
    node = out[module]["data"]
    *parents, leaf = path.split(".")
    for part in parents:
        node = node[part]
    node[leaf] = value
    out[module]["data_as_of"] = out[module]["as_of"] = day
    return out


def run(payloads, state, now, **kw):
    return scan(payloads, state, now, "sim", True, **kw)


def types(events) -> list[str]:
    return [e["type"] for e in events]


def test_every_broadcast_type_has_a_rule_and_every_rule_a_type():
    assert set(RULES) == set(EVENT_TYPES) - OWNER_ONLY


def test_a_calm_market_emits_nothing_and_the_state_counts_the_scans():
    events, state, detected = run(calm(), {}, T0)
    assert events == [] and state["scans"] == 1 and state["last_scan_at"] == T0.isoformat()
    events, state, detected = run(calm(), state, T0 + timedelta(hours=1))
    assert events == [] and state["scans"] == 2
    assert detected["regime"]["state"] == "neutral" and detected["vix"]["level"] == 16.0
    assert detected["curve"]["slope_2s10s_bp"] == 20.0 and detected["credit"]["high_yield_oas_pct"] == 3.5


def test_the_first_scan_emits_only_level_rules():
    stressed = calm()
    for module, path, value in [("market_regime", "state", "crisis"), ("vix", "level", 45.0),
                                ("tail_risk", "stress_composite.score", 95.0),
                                ("credit_spreads", "high_yield.oas_pct", 8.0),
                                ("curve_dynamics", "segments.2s10s.slope_bp", -30.0),
                                ("signal_composite", "composite", -0.9)]:
        stressed = with_data(stressed, module, path, value)
    events, state, _ = run(stressed, {}, T0)
    # VIX and credit are levels; regime, tail risk, curve and composite are changes it has nothing to compare with
    assert sorted(types(events)) == ["market.credit_stress", "market.vix_spike"]
    assert state["previous"]["market.regime_change"]["state"] == "crisis"


def test_every_event_carries_the_contract_fields():
    events, _, _ = run(with_data(calm(), "vix", "level", 41.5), {}, T0)
    (event,) = events
    assert set(event) == set(EVENT_FIELDS) - {"id"}  # the log assigns the id
    assert event["urgency"] == "critical" and event["occurred_at"] == T0.isoformat()
    assert event["data_as_of"] == DAY and event["simulated"] is True and event["data_source"] == "sim"
    assert event["figures"] == [{"module": "vix", "field": "level", "value": 41.5}]
    assert "41.5" in event["summary"] and event["audience"] is None


CHANGES = [  # (type, module, field path, value before, value after, urgency)
    ("market.regime_change", "market_regime", "state", "neutral", "risk_off", "high"),
    ("market.regime_change", "market_regime", "state", "risk_off", "crisis", "critical"),
    ("market.tail_risk_rise", "tail_risk", "stress_composite.score", 40.0, 55.0, "medium"),
    ("market.tail_risk_rise", "tail_risk", "stress_composite.score", 65.0, 72.0, "medium"),
    ("market.tail_risk_rise", "tail_risk", "stress_composite.score", 50.0, 80.0, "high"),
    ("market.curve_inversion", "curve_dynamics", "segments.2s10s.slope_bp", 3.0, -2.0, "medium"),
    ("market.curve_uninversion", "curve_dynamics", "segments.2s10s.slope_bp", -5.0, 0.0, "medium"),
    ("market.composite_shift", "signal_composite", "composite", 0.1, -0.25, "medium"),
    ("market.composite_shift", "signal_composite", "composite", 0.5, -0.2, "high"),
]
NEAR_MISSES = [
    ("market.tail_risk_rise", "tail_risk", "stress_composite.score", 40.0, 54.9),
    ("market.tail_risk_rise", "tail_risk", "stress_composite.score", 72.0, 80.0),  # already above 70
    ("market.curve_inversion", "curve_dynamics", "segments.2s10s.slope_bp", -1.0, -8.0),  # was inverted already
    ("market.composite_shift", "signal_composite", "composite", 0.1, -0.19),
]


@pytest.mark.parametrize("kind, module, path, before, after, urgency", CHANGES)
def test_change_rules_fire_on_the_change_between_scans(kind, module, path, before, after, urgency):
    _, state, _ = run(with_data(calm(), module, path, before, "2026-03-05"), {}, T0)
    events, _, _ = run(with_data(calm(), module, path, after), state, T0 + timedelta(hours=1))
    assert types(events) == [kind] and events[0]["urgency"] == urgency
    assert {"module": module, "field": path, "value": after} in events[0]["figures"]


@pytest.mark.parametrize("kind, module, path, before, after", NEAR_MISSES)
def test_change_rules_hold_below_their_thresholds(kind, module, path, before, after):
    _, state, _ = run(with_data(calm(), module, path, before, "2026-03-05"), {}, T0)
    events, _, _ = run(with_data(calm(), module, path, after), state, T0 + timedelta(hours=1))
    assert kind not in types(events)


LEVELS = [  # (type, module, field path, value, urgency, just below, urgency just below (None: no event))
    ("market.vix_spike", "vix", "level", 30.0, "high", 29.99, None),
    ("market.vix_spike", "vix", "level", 40.0, "critical", 39.99, "high"),
    ("market.vix_spike", "vix", "change_1d_pct", 25.0, "high", 24.99, None),
    ("market.credit_stress", "credit_spreads", "high_yield.change_1w_bp", 50.0, "high", 49.0, None),
    ("market.credit_stress", "credit_spreads", "high_yield.oas_pct", 7.01, "high", 7.0, None),  # "above 7%"
    ("market.flash_crash", "equity_indices", "SP500.change_1d_pct", -5.0, "critical", -4.99, None),
    ("market.flash_crash", "equity_indices", "SP500.change_1d_pct", 9.3, "critical", 4.99, None),
]


@pytest.mark.parametrize("kind, module, path, value, urgency, below, below_urgency", LEVELS)
def test_level_rules_fire_at_their_threshold_and_not_below(kind, module, path, value, urgency, below,
                                                           below_urgency):
    events, _, _ = run(with_data(calm(), module, path, value), {}, T0)
    assert types(events) == [kind] and events[0]["urgency"] == urgency
    events, _, _ = run(with_data(calm(), module, path, below), {}, T0)
    assert [e["urgency"] for e in events] == ([below_urgency] if below_urgency else [])


def test_bitcoin_hourly_move_is_a_flash_crash():
    payloads = calm()
    payloads["bitcoin"] = payload("bitcoin", {"intraday": {"change_24h_pct": -8.4,
                                                            "last_close_ts": "2026-03-09T13:00:00+00:00"}})
    events, _, _ = run(payloads, {}, T0)
    assert types(events) == ["market.flash_crash"] and events[0]["data_as_of"] == "2026-03-09"
    assert events[0]["figures"] == [{"module": "bitcoin", "field": "intraday.change_24h_pct", "value": -8.4}]


def test_a_level_respects_its_cooldown_and_its_observation_on_the_market_clock():
    stressed = with_data(calm(), "vix", "level", 35.0)
    events, state, _ = run(stressed, {}, T0)
    assert types(events) == ["market.vix_spike"]
    # the same close, a day later: never twice on one observation
    events, state, _ = run(stressed, state, T0 + timedelta(days=1, hours=1))
    assert events == []
    # a new close within the day's cooldown: held back, and the route shows the seconds left
    newer = with_data(stressed, "vix", "level", 38.0, "2026-03-09")
    events, state_in_cooldown, _ = run(newer, state, T0 + timedelta(hours=20))
    assert events == [] and cooldowns(state_in_cooldown, T0 + timedelta(hours=20))["market.vix_spike"] == 4 * 3600
    # once the cooldown ends, the newer close fires
    events, state, _ = run(newer, state_in_cooldown, T0 + timedelta(hours=24))
    assert types(events) == ["market.vix_spike"] and state["events_emitted"]["market.vix_spike"] == 2
    assert cooldowns(state, T0 + timedelta(hours=24))["market.vix_spike"] == 86400


def test_a_change_within_the_cooldown_is_not_announced_and_the_reading_moves_on():
    _, state, _ = run(calm(), {}, T0)
    events, state, _ = run(with_data(calm(), "market_regime", "state", "risk_off"), state, T0 + timedelta(hours=1))
    assert types(events) == ["market.regime_change"]
    events, state, _ = run(with_data(calm(), "market_regime", "state", "crisis"), state, T0 + timedelta(hours=2))
    assert events == [] and state["previous"]["market.regime_change"]["state"] == "crisis"
    events, state, _ = run(with_data(calm(), "market_regime", "state", "risk_off"), state, T0 + timedelta(days=2))
    assert types(events) == ["market.regime_change"] and "from crisis to risk_off" in events[0]["summary"]


def test_a_correlation_break_fires_for_newly_broken_pairs_only():
    broken = {"pair": "SP500/DGS10", "assets": "equities vs 10y Treasury yield", "zscore": -2.6}
    payloads = with_data(calm(), "correlation_breaks", "breaks", [broken])
    payloads["correlation_breaks"]["data"]["pairs_broken"] = 1
    events, state, _ = run(payloads, {}, T0)
    assert types(events) == ["market.correlation_break"] and "-2.6" in events[0]["summary"]
    events, state, _ = run(with_data(payloads, "correlation_breaks", "pairs_broken", 1, "2026-03-10"), state,
                           T0 + timedelta(days=2))
    assert events == []  # still broken, not news


def test_releases_whose_time_passed_since_the_previous_scan():
    release = {"event": "Advance retail sales", "date": "2026-03-09", "time_et": "08:30", "importance": "high",
               "printed": {"RSXFS": {"value": 664627.0}}}
    payloads = with_data(calm(), "economic_calendar", "upcoming", [release])
    early = datetime(2026, 3, 9, 12, 0, tzinfo=UTC)  # 08:00 in New York (EDT since March 8)
    events, state, _ = run(payloads, {}, early)
    assert events == []  # the first scan: nothing to compare with, and not yet out anyway
    events, state, _ = run(payloads, state, early + timedelta(minutes=29))
    assert events == []  # 08:29 ET
    events, state, _ = run(payloads, state, early + timedelta(minutes=31))
    assert types(events) == ["economic.release"] and events[0]["urgency"] == "medium"
    assert "664627.0" in events[0]["summary"]
    events, state, _ = run(payloads, state, early + timedelta(hours=3))
    assert events == []


def test_resolutions_since_the_previous_scan_each_emit_one_event():
    resolved = [{"seq": 41, "body": {"prediction_id": "live:2026-02-06:vix_above_30_21d", "outcome": True,
                                     "observed_value": 31.2, "observed_on": "2026-03-06",
                                     "resolved_on": "2026-03-09"}}]
    events, state, _ = run(calm(), {}, T0, resolutions=resolved, prediction_seq=41)
    assert events == [] and state["prediction_seq"] == 41  # history at the first scan
    second = [{**resolved[0], "seq": 44}, {**resolved[0], "seq": 45}]
    events, state, _ = run(calm(), state, T0 + timedelta(hours=1), resolutions=second, prediction_seq=45)
    assert types(events) == ["prediction.resolved"] * 2 and state["prediction_seq"] == 45
    assert events[0]["data_as_of"] == "2026-03-06" and "came true" in events[0]["summary"]


def test_every_urgency_is_one_of_the_four():
    stressed = calm()
    for module, path, value in LEVELS_AT_ONCE:
        stressed = with_data(stressed, module, path, value)
    events, _, _ = run(stressed, {}, T0)
    assert {e["urgency"] for e in events} <= set(URGENCIES) and len(events) == 3


LEVELS_AT_ONCE = [("vix", "level", 50.0), ("credit_spreads", "high_yield.oas_pct", 9.0),
                  ("credit_spreads", "high_yield.change_1w_bp", 120.0), ("equity_indices", "SP500.change_1d_pct", -7.0)]
