"""Alert package subscriptions in the ledger (SQLite and PostgreSQL): a period from subscribing, renewal adding a
period after the current end, cancelling, who receives a package event (type, urgency, running), and the history
read from the event log."""
from __future__ import annotations

from datetime import timedelta

import redis

from intel.events.packages import PACKAGES
from warehouse.events import EventLog
from warehouse.ledger.alert_packages import PackageSubscriptions

WEBHOOK = {"delivery_channels": ["webhook"], "callback_url": "https://example.org/hook", "chat_webhook_url": None,
           "min_urgency": "low"}


def test_a_subscription_runs_one_period_and_a_renewal_adds_one_after_its_end(engine, agent, clock):
    subs = PackageSubscriptions(engine, now=clock)
    package = PACKAGES["volatility_shock"]
    first = subs.subscribe(agent["id"], package, WEBHOOK, "req-1")
    assert first["ends_at"] == (clock() + timedelta(days=30)).isoformat() and first["active"]
    clock.advance(days=10)
    renewed = subs.subscribe(agent["id"], package, {**WEBHOOK, "min_urgency": "high"}, "req-2")
    assert renewed["ends_at"] == (clock() + timedelta(days=50)).isoformat() and renewed["periods_paid"] == 2
    assert renewed["min_urgency"] == "high" and renewed["started_at"] == first["started_at"]
    cancelled = subs.unsubscribe(agent["id"], package.package_id)
    assert cancelled is not None and not cancelled["active"]
    assert subs.unsubscribe(agent["id"], package.package_id) is None
    assert [s["active"] for s in subs.mine(agent["id"])] == [False]


def test_recipients_are_running_subscriptions_of_the_type_at_or_above_their_urgency(engine, agent, clock):
    subs = PackageSubscriptions(engine, now=clock)
    subs.subscribe(agent["id"], PACKAGES["volatility_shock"], {**WEBHOOK, "min_urgency": "critical"}, "r1")
    subs.subscribe(agent["id"], PACKAGES["credit_stress"],
                   {**WEBHOOK, "delivery_channels": ["webhook", "chat"], "chat_webhook_url": "https://chat/x"}, "r2")
    spike = {"type": "market.vix_spike", "urgency": "high", "audience": None}
    [(subscription, channels)] = subs.recipients(spike)
    assert subscription["package_id"] == "credit_stress" and channels == ["webhook", "chat"]
    assert len(subs.recipients({**spike, "urgency": "critical"})) == 2
    assert subs.recipients({"type": "market.regime_change", "urgency": "critical", "audience": None}) == []
    clock.advance(days=31)
    assert subs.recipients({**spike, "urgency": "critical"}) == []  # both ended


def test_history_is_the_package_types_in_the_event_log_newest_first(engine, settings):
    log = EventLog(engine, redis.Redis.from_url(settings.effective_redis_url))
    base = {"urgency": "high", "occurred_at": "2020-03-16T14:00:00+00:00", "data_as_of": "2020-03-13",
            "figures": [], "simulated": False, "data_source": "replay", "audience": None}
    log.append([{**base, "type": t, "summary": f"event {n}"} for n, t in enumerate(
        ["market.vix_spike", "market.regime_change", "market.credit_stress", "market.vix_spike"])])
    log.append([{**base, "type": "market.vix_spike", "summary": "mine", "audience": "ag_x"}])  # never a package's
    history = PackageSubscriptions(engine).history(PACKAGES["credit_stress"], 2)
    assert [(e["id"], e["summary"]) for e in history] == [("4-0", "event 3"), ("3-0", "event 2")]
