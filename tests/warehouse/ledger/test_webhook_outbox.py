"""Webhook subscriptions and the outbox on a real ledger (SQLite and PostgreSQL): who receives an event, attempt
claims, leases, retries, and a subscription disabled after failing for DISABLE_AFTER."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks import Webhook

from warehouse.ledger import Agents
from warehouse.ledger.webhooks import (
    DISABLE_AFTER,
    MAX_SUBSCRIPTIONS,
    AttemptResult,
    DuplicateSubscription,
    SubscriptionLimit,
    Webhooks,
)

URL = "https://hooks.example.com/in"
LEASE = timedelta(minutes=5)


class WallClock:
    """The ledger's wall clock, moved by the test."""

    def __init__(self):
        self.at = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, delta: timedelta) -> None:
        self.at += delta


@pytest.fixture
def clock():
    return WallClock()


@pytest.fixture
def hooks(engine, clock):
    return Webhooks(engine, now=clock)


def agent(engine, tier: str = "free") -> dict:
    row, _ = Agents(engine).register(f"agent-{tier}")
    if tier != "free":
        Agents(engine).set_tier(row["agent_id"], tier)
    return row


def event(type_: str, seq: int, audience: str | None = None) -> dict:
    return {"id": f"{seq}-0", "type": type_, "urgency": "high", "occurred_at": "2026-11-25T12:00:00+00:00",
            "data_as_of": "2026-11-24", "summary": "simulated test event", "figures": [], "simulated": True,
            "data_source": "sim", "audience": audience}


def test_subscribe_shows_a_usable_secret_once_and_limits_per_tier(engine, hooks):
    a = agent(engine)
    sub = hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    assert sub["secret"].startswith("whsec_") and sub["active"] is True
    Webhook(sub["secret"]).sign("msg_1", datetime.now(UTC), "{}")  # the library accepts it as a secret
    assert "secret" not in hooks.subscriptions(a["id"])[0]
    with pytest.raises(DuplicateSubscription) as dup:
        hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    assert dup.value.subscription_id == sub["subscription_id"]
    for i in range(1, MAX_SUBSCRIPTIONS["free"]):
        hooks.subscribe(a["id"], "free", "market.vix_spike", f"{URL}/{i}")
    with pytest.raises(SubscriptionLimit):
        hooks.subscribe(a["id"], "free", "market.regime_change", URL)


def test_unsubscribe_only_the_agents_own_and_forget_removes_everything(engine, hooks):
    a, b = agent(engine), agent(engine)
    sub = hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    hooks.create_deliveries([event("market.vix_spike", 1)], LEASE)
    assert hooks.unsubscribe(b["id"], sub["subscription_id"]) is False
    assert hooks.unsubscribe(a["id"], sub["subscription_id"]) is True
    assert hooks.subscriptions(a["id"]) == [] and hooks.deliveries(a["id"]) == []
    hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    hooks.create_deliveries([event("market.vix_spike", 2)], LEASE)
    assert hooks.forget_agent(a["id"]) == 1
    assert hooks.subscriptions(a["id"]) == [] and hooks.count_pending() == 0


def test_an_event_reaches_the_tiers_that_may_receive_it_and_alerts_only_their_owner(engine, hooks):
    free, premium = agent(engine), agent(engine, "premium")
    for who, tier in ((free, "free"), (premium, "premium")):
        for type_ in ("market.vix_spike", "market.credit_stress", "alert.triggered"):
            hooks.subscribe(who["id"], tier, type_, URL)
    hooks.subscribe(free["id"], "free", "market.vix_spike", URL + "/2")  # a second subscription, same type
    events = [event("market.vix_spike", 1), event("market.credit_stress", 2),
              event("alert.triggered", 3, audience=premium["agent_id"])]
    made = hooks.create_deliveries(events, LEASE)
    assert len(made) == 5  # vix: 3 subscriptions; credit_stress (premium): 1; the alert: its owner's 1
    assert {(d["event_type"], d["event_id"]) for d in hooks.deliveries(premium["id"])} == {
        ("market.vix_spike", "1-0"), ("market.credit_stress", "2-0"), ("alert.triggered", "3-0")}
    assert {d["event_id"] for d in hooks.deliveries(free["id"])} == {"1-0"}
    assert hooks.create_deliveries(events, LEASE) == []  # the same events again: nothing queued twice


def test_one_job_per_attempt_sends_and_a_dead_workers_claim_comes_due_again(engine, hooks, clock):
    a = agent(engine)
    hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    [(delivery_id, attempt)] = hooks.create_deliveries([event("market.vix_spike", 1)], LEASE)
    assert hooks.take_due(LEASE) == []  # its job has QUEUE_LEASE to start
    claimed = hooks.claim(delivery_id, attempt, timedelta(seconds=32))
    assert claimed["attempts"] == 1 and claimed["callback_url"] == URL
    assert hooks.claim(delivery_id, attempt, timedelta(seconds=32)) is None  # a duplicate job of that attempt
    clock.advance(timedelta(seconds=33))  # the worker died mid-send: no outcome was written
    assert hooks.take_due(LEASE) == [(delivery_id, 1)]
    assert hooks.take_due(LEASE) == []  # taken once, leased again
    assert hooks.claim(delivery_id, 1, timedelta(seconds=32)) is not None
    assert hooks.record(delivery_id, AttemptResult(delivered=True, status_code=204, latency_ms=12)) == "delivered"
    [row] = hooks.deliveries(a["id"])
    assert (row["status"], row["final"], row["attempts"], row["last_status_code"], row["latency_ms"],
            row["next_retry_at"]) == ("delivered", True, 2, 204, 12, None)


def test_a_retry_waits_its_time_and_a_subscription_failing_for_the_period_is_disabled(engine, hooks, clock):
    a = agent(engine)
    sub = hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    first = hooks.create_deliveries([event("market.vix_spike", 1)], LEASE)[0][0]
    hooks.claim(first, 0, LEASE)
    retry = AttemptResult(delivered=False, retry_in=timedelta(minutes=10), status_code=503, error="HTTP 503")
    assert hooks.record(first, retry) == "pending"
    [row] = hooks.deliveries(a["id"])
    assert row["next_retry_at"] == (clock.at + timedelta(minutes=10)).isoformat()
    assert hooks.subscriptions(a["id"])[0]["failing_since"] == clock.at.isoformat()
    clock.advance(DISABLE_AFTER - timedelta(minutes=1))  # a day of failures, the last one not yet recorded
    second = hooks.create_deliveries([event("market.vix_spike", 2)], LEASE)[0][0]
    assert hooks.take_due(LEASE) == [(first, 1)]  # its retry came due (long ago) and is queued again
    hooks.claim(first, 1, LEASE)
    assert hooks.record(first, retry) == "failed"  # its own retries would end past a day: given up
    clock.advance(timedelta(minutes=2))
    hooks.claim(second, 0, LEASE)
    assert hooks.record(second, retry) == "failed"
    listed = hooks.subscriptions(a["id"])[0]
    assert listed["active"] is False and "24 h without a success" in listed["disabled_reason"]
    assert "HTTP 503" in listed["disabled_reason"]
    assert hooks.create_deliveries([event("market.vix_spike", 3)], LEASE) == []  # a disabled one gets nothing
    assert hooks.subscription(sub["subscription_id"])["disabled_at"] == clock.at


def test_a_success_clears_the_failing_period(engine, hooks, clock):
    a = agent(engine)
    hooks.subscribe(a["id"], "free", "market.vix_spike", URL)
    one, two = (hooks.create_deliveries([event("market.vix_spike", n)], LEASE)[0][0] for n in (1, 2))
    hooks.claim(one, 0, LEASE)
    hooks.record(one, AttemptResult(delivered=False, status_code=400, error="HTTP 400: not retried"))
    assert hooks.delivery(one)["status"] == "failed"  # no retry on a 400
    hooks.claim(two, 0, LEASE)
    hooks.record(two, AttemptResult(delivered=True, status_code=200))
    assert hooks.subscriptions(a["id"])[0]["failing_since"] is None
