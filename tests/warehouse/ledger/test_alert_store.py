"""Alerts in the ledger (SQLite and PostgreSQL): per-tier limits on live alerts, the owner's own deletes, the guarded
trigger count, the previous scan's field values, and everything still there for a new process."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from warehouse.ledger import Agents, make_engine
from warehouse.ledger.alerts import ALERT_LIMITS, AlertLimitReached, Alerts

NOW = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)


def spec(name="vix high", expires_in_seconds=0, max_triggers=2) -> dict:
    return {"name": name, "conditions": [{"field": "vix", "operator": ">", "value": 30}], "logic": "AND",
            "cooldown": 3600, "max_triggers": max_triggers, "expires_in_seconds": expires_in_seconds,
            "callback_url": "https://example.org/hook"}


def test_the_free_tier_keeps_five_live_alerts_and_spent_or_expired_ones_do_not_count(engine, agent):
    store = Alerts(engine)
    assert ALERT_LIMITS == {"free": 5, "premium": 50, "institutional": 500}
    made = [store.create(agent["id"], "free", spec(f"a{n}"), NOW) for n in range(5)]
    with pytest.raises(AlertLimitReached):
        store.create(agent["id"], "free", spec("sixth"), NOW)
    rich, _ = Agents(engine).register("premium agent")
    assert len([store.create(rich["id"], "premium", spec(f"p{n}"), NOW) for n in range(6)]) == 6  # premium: 50
    spent = made[0]["alert_id"]
    assert store.record_scan({spent: 0}, {}, NOW) == {spent}
    assert store.record_scan({spent: 1}, {}, NOW + timedelta(hours=2)) == {spent}  # at max_triggers 2: spent
    short = store.create(agent["id"], "free", spec("short", expires_in_seconds=60), NOW + timedelta(hours=2))
    assert short["expires_at"] == (NOW + timedelta(hours=2, seconds=60)).isoformat()
    with pytest.raises(AlertLimitReached):
        store.create(agent["id"], "free", spec("one more"), NOW + timedelta(hours=2))
    store.create(agent["id"], "free", spec("after expiry"), NOW + timedelta(hours=3))  # `short` expired
    statuses = {a["name"]: a["status"] for a in store.mine(agent["id"], NOW + timedelta(hours=3))}
    assert statuses["a0"] == "exhausted" and statuses["short"] == "expired" and statuses["a1"] == "active"


def test_only_the_owner_deletes_an_alert(engine, agent):
    other, _ = Agents(engine).register("other")
    store = Alerts(engine)
    mine = store.create(agent["id"], "free", spec(), NOW)["alert_id"]
    assert not store.delete(other["id"], mine)
    assert store.delete(agent["id"], mine) and not store.delete(agent["id"], mine)
    assert store.mine(agent["id"], NOW) == []


def test_a_trigger_is_recorded_once_for_the_count_a_scan_saw(engine, agent):
    store = Alerts(engine)
    alert_id = store.create(agent["id"], "free", spec(max_triggers=1), NOW)["alert_id"]
    assert store.record_scan({alert_id: 0}, {"vix": 31.5}, NOW) == {alert_id}
    assert store.record_scan({alert_id: 0}, {"vix": 32.0}, NOW) == set()  # an overlapping scan: not twice
    [row] = store.mine(agent["id"], NOW)
    assert row["trigger_count"] == 1 and row["last_triggered_at"] == NOW.isoformat()
    assert store.live(NOW) == []  # spent at max_triggers 1
    assert store.previous_values() == {"vix": 32.0}


def test_alerts_and_values_are_there_for_a_new_process(engine, ledger_url, agent):
    store = Alerts(engine)
    made = store.create(agent["id"], "free", spec(), NOW)
    store.record_scan({}, {"vix": 18.25, "regime_state": "risk_on"}, NOW)
    fresh = make_engine(ledger_url)
    try:
        again = Alerts(fresh)
        secret = made.pop("secret")  # shown at create only
        assert again.mine(agent["id"], NOW) == [made]
        assert again.previous_values() == {"vix": 18.25, "regime_state": "risk_on"}
        assert again.callback_for(made["alert_id"]) == "https://example.org/hook"
        assert again.callback_targets([made["alert_id"]])[made["alert_id"]] == {
            "url": "https://example.org/hook", "secret": secret, "agent_pk": agent["id"], "owner": agent["agent_id"]}
        [live] = again.live(NOW)
        assert live["agent_id"] == agent["agent_id"] and live["conditions"] == made["conditions"]
    finally:
        fresh.dispose()


def test_a_paused_alert_is_not_evaluated_keeps_its_place_and_only_its_owner_pauses_it(engine, agent):
    store, now = Alerts(engine), NOW
    made = store.create(agent["id"], "free", spec("paused one"), now)
    other, _ = Agents(engine).register("other")
    assert not store.set_paused(other["id"], made["alert_id"], True, now)  # another agent's: not found
    assert store.set_paused(agent["id"], made["alert_id"], True, now)
    assert store.live(now) == [] and [a["status"] for a in store.mine(agent["id"], now)] == ["paused"]
    for n in range(ALERT_LIMITS["free"] - 1):  # a paused alert still takes its place among the live ones
        store.create(agent["id"], "free", spec(f"more {n}"), now)
    with pytest.raises(AlertLimitReached):
        store.create(agent["id"], "free", spec("one too many"), now)
    assert store.set_paused(agent["id"], made["alert_id"], False, now)
    assert made["alert_id"] in {a["alert_id"] for a in store.live(now)}
