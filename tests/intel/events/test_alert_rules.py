"""Evaluating alerts (intel/events/alerts.py) on payloads the real modules computed: every operator, crossings
against the previous scan, AND/OR, cooldown on an advancing market clock, max_triggers and expiry, and the event
a trigger becomes. The last test replays the real VIX of February 2020 day by day."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from intel.events.alert_fields import current_values
from intel.events.alerts import evaluate
from intel.events.types import EVENT_FIELDS
from intel.providers.replay import ReplayProvider
from tests.history import history_dir
from tests.intel.events.alert_payloads import compute, sim_payloads

NOW = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)


def alert(*conditions, logic="AND", cooldown=3600, max_triggers=3, **extra) -> dict:
    return {"alert_id": "al_1", "agent_id": "ag_owner", "name": "test", "logic": logic, "cooldown": cooldown,
            "max_triggers": max_triggers, "trigger_count": 0, "last_triggered_at": None, "expires_at": None,
            "conditions": [{"field": f, "operator": o, "value": v} for f, o, v in conditions], **extra}


def fires(a: dict, previous: dict | None = None, now: datetime = NOW, payloads: dict | None = None) -> bool:
    events, _ = evaluate([a], payloads or sim_payloads(), previous or {}, now, data_source="sim", simulated=True)
    return len(events) == 1


@pytest.fixture(scope="module")
def vix():
    return current_values(sim_payloads())["vix"]


@pytest.mark.parametrize(("operator", "offset", "expected"), [
    (">", -1, True), (">", 0, False), (">=", 0, True), (">=", 1, False), ("<", 1, True), ("<", 0, False),
    ("<=", 0, True), ("<=", -1, False), ("==", 0, True), ("==", 1, False), ("!=", 1, True), ("!=", 0, False)])
def test_each_comparison_against_the_current_value(vix, operator, offset, expected):
    assert fires(alert(("vix", operator, vix + offset))) is expected


def test_crossings_compare_with_the_previous_scan(vix):
    up, down = alert(("vix", "crosses_above", vix - 0.5)), alert(("vix", "crosses_below", vix + 0.5))
    assert fires(up, {"vix": vix - 1}) and not fires(up, {"vix": vix})  # was already above: no crossing
    assert fires(down, {"vix": vix + 1}) and not fires(down, {"vix": vix})
    assert fires(alert(("vix", "crosses_above", vix - 1)), {"vix": vix - 1})  # from at the threshold to above
    assert not fires(up, {})  # no previous scan: nothing crossed yet


def test_a_state_field_compares_by_equality():
    state = current_values(sim_payloads())["regime_state"]
    assert fires(alert(("regime_state", "==", state)))
    assert not fires(alert(("regime_state", "!=", state)))


def test_and_needs_every_condition_or_needs_one(vix):
    true, false = ("vix", ">", vix - 1), ("vix", "<", vix - 1)
    assert fires(alert(true, true)) and not fires(alert(true, false))
    assert fires(alert(true, false, logic="OR")) and not fires(alert(false, false, logic="OR"))


def test_an_unpublished_field_never_holds(vix):
    payloads = {k: v for k, v in sim_payloads().items() if k != "vix"}
    assert not fires(alert(("vix", ">", 0)), payloads=payloads)
    assert not fires(alert(("vix", "!=", 0)), payloads=payloads)


def test_fires_once_per_cooldown_on_an_advancing_clock_and_stops_at_max_triggers(vix):
    a = alert(("vix", ">", vix - 1), cooldown=3600, max_triggers=3)
    fired_at = []
    for minute in range(0, 6 * 60, 10):  # a scan every 10 minutes for 6 hours of market time
        now = NOW + timedelta(minutes=minute)
        if fires(a, now=now):
            fired_at.append(minute)
            a = {**a, "trigger_count": a["trigger_count"] + 1, "last_triggered_at": now}
    assert fired_at == [0, 60, 120]  # one per hour, then spent at 3


def test_an_expired_alert_does_not_fire(vix):
    a = alert(("vix", ">", vix - 1), expires_at=NOW + timedelta(seconds=30))
    assert fires(a, now=NOW) and not fires(a, now=NOW + timedelta(seconds=30))


def test_a_trigger_is_an_event_for_its_owner_with_the_figures_it_read(vix):
    events, remembered = evaluate([alert(("vix", ">", vix - 1), ("hy_oas_pct", ">", 0))], sim_payloads(), {},
                                  NOW, data_source="sim", simulated=True)
    event = events[0]
    assert set(EVENT_FIELDS) - {"id"} <= set(event) and event["type"] == "alert.triggered"
    assert event["audience"] == "ag_owner" and event["alert_id"] == "al_1" and event["simulated"] is True
    assert event["figures"][0] == {"module": "vix", "field": "level", "value": vix}
    assert event["figures"][1]["module"] == "credit_spreads" and event["occurred_at"] == NOW.isoformat()
    assert "'test'" in event["summary"] and f"vix {vix:g} > " in event["summary"]
    assert remembered["vix"] == vix and event["data_as_of"] <= "2026-11-20"


def test_on_the_real_vix_of_february_2020_a_crossing_fires_on_the_first_day_above_30():
    """A scan each market morning from 2020-02-18 to 2020-03-13, the VIX module computed on the real history up
    to that day: `vix crosses_above 30` fires once, the morning after the first close above 30 (39.16 on
    2020-02-27), and not again while VIX stays above 30."""
    provider = ReplayProvider(history_dir())
    a, previous, fired = alert(("vix", "crosses_above", 30), cooldown=0, max_triggers=10), {}, []
    day = date(2020, 2, 18)
    while day <= date(2020, 3, 13):
        payloads = compute(provider, day, "replay", {"vix"})
        now = datetime(day.year, day.month, day.day, 14, tzinfo=UTC)
        events, previous = evaluate([a], payloads, previous, now, data_source="replay", simulated=False)
        fired += [(day, e["figures"][0]["value"], e["data_as_of"]) for e in events]
        day += timedelta(days=1)
    assert fired == [(date(2020, 2, 28), 39.16, "2020-02-27")]
