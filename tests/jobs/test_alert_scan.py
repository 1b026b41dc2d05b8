"""The scanner's alert step (jobs/alerts.py) on a real migrated ledger and the event log: on an advancing market
clock an alert fires once per cooldown and stops at max_triggers, each trigger an event for its owner alone; a
crossing compares with the previous scan's value kept in SQL (here the real VIX of February 2020)."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import redis

from intel.clock import MarketClock
from intel.providers.replay import ReplayProvider
from jobs.alerts import evaluate_alerts
from tests.history import history_dir
from tests.intel.events.alert_payloads import compute, sim_payloads
from warehouse.events import EventLog
from warehouse.ledger import Agents, make_engine
from warehouse.ledger.alerts import Alerts


def alert(conditions, cooldown=3600, max_triggers=3) -> dict:
    return {"name": "watch", "conditions": conditions, "logic": "AND", "cooldown": cooldown,
            "max_triggers": max_triggers, "expires_in_seconds": 0, "callback_url": None}


def test_an_alert_fires_once_per_cooldown_on_an_advancing_clock_and_stops_at_max_triggers(settings):
    engine = make_engine(settings.sqlalchemy_url)
    log = EventLog(engine, redis.Redis.from_url(settings.effective_redis_url))
    owner, _ = Agents(engine).register("owner")
    payloads = sim_payloads()  # simulated data (seed 7): the events say so
    vix = payloads["vix"]["data"]["level"]
    clock = MarketClock(datetime(2026, 11, 20, 14, tzinfo=UTC), speed=0)
    made = Alerts(engine).create(owner["id"], "free", alert([{"field": "vix", "operator": ">", "value": vix - 1}]),
                                 clock.now())
    fired = []
    for _ in range(24):  # a scan every 15 minutes for 6 hours of market time
        events = evaluate_alerts(engine, payloads, clock.now(), "sim", True)
        fired += [(clock.now(), e) for e in log.append(events)]
        clock.advance(timedelta(minutes=15))
    start = datetime(2026, 11, 20, 14, tzinfo=UTC)
    assert [when - start for when, _ in fired] == [timedelta(hours=h) for h in (0, 1, 2)]
    event = fired[0][1]
    assert event["audience"] == owner["agent_id"] and event["alert_id"] == made["alert_id"]
    assert event["simulated"] is True and event["data_source"] == "sim" and event["id"] == "1-0"
    [row] = Alerts(engine).mine(owner["id"], clock.now())
    assert row["trigger_count"] == 3 and row["status"] == "exhausted"
    assert [e["summary"] for e in log.since(None)] == [e["summary"] for _, e in fired]
    engine.dispose()


def test_a_crossing_compares_with_the_previous_scan_kept_in_the_ledger(settings):
    engine = make_engine(settings.sqlalchemy_url)
    owner, _ = Agents(engine).register("owner")
    Alerts(engine).create(owner["id"], "free", alert([{"field": "vix", "operator": "crosses_above", "value": 30}],
                                                     cooldown=0), datetime(2020, 2, 1, tzinfo=UTC))
    provider, fired = ReplayProvider(history_dir()), []
    for day in (date(2020, 2, 26), date(2020, 2, 27), date(2020, 2, 28), date(2020, 3, 2)):
        scan_engine = make_engine(settings.sqlalchemy_url)  # each scan a fresh process: the values are in SQL
        now = datetime(day.year, day.month, day.day, 14, tzinfo=UTC)
        events = evaluate_alerts(scan_engine, compute(provider, day, "replay", {"vix"}), now, "replay", False)
        fired += [(day, e["figures"][0]["value"]) for e in events]
        scan_engine.dispose()
    assert fired == [(date(2020, 2, 28), 39.16)]  # 27.56 on the 26th's close, 39.16 on the 27th's
    engine.dispose()
