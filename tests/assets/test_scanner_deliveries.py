"""The scanner's delivery catch-up (assets/scanner.py queue_deliveries) on a real ledger and Redis: events
committed by a scan that stopped before queueing their webhooks are queued by the next one, and queueing again
adds nothing."""
from __future__ import annotations

import redis

from assets.scanner import queue_deliveries
from warehouse.events import EventLog
from warehouse.ledger import Agents, make_engine
from warehouse.ledger.webhooks import Webhooks


def spike(n: int) -> dict:
    return {"type": "market.vix_spike", "urgency": "high", "occurred_at": "2020-03-16T21:00:00+00:00",
            "data_as_of": "2020-03-13", "summary": f"VIX spike {n}", "figures": [], "simulated": False,
            "data_source": "replay", "audience": None}


def test_events_left_unqueued_by_a_stopped_scan_are_queued_by_the_next(settings, monkeypatch):
    monkeypatch.setenv("MI_WEBHOOK_ALLOW_PRIVATE", "true")
    engine = make_engine(settings.sqlalchemy_url)
    log = EventLog(engine, redis.Redis.from_url(settings.effective_redis_url))
    owner, _ = Agents(engine).register("listener")
    Webhooks(engine).subscribe(owner["id"], "free", "market.vix_spike", "http://127.0.0.1:9/hook")
    state = {"delivered_through": log.newest_seq()}
    log.append([spike(1), spike(2)])  # committed; the scan stopped before queueing them
    assert queue_deliveries(log, state) == 2 and state["delivered_through"] == 2
    log.append([spike(3)])
    assert queue_deliveries(log, state) == 1 and state["delivered_through"] == 3
    state["delivered_through"] = 0  # a state saved before its deliveries were recorded: queued again, harmlessly
    assert queue_deliveries(log, state) == 0 and state["delivered_through"] == 3
    assert len(Webhooks(engine).deliveries(owner["id"], 50)) == 3
    engine.dispose()
