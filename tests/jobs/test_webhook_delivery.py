"""Webhook deliveries to a real receiver on loopback, verified with the standardwebhooks verifier: success, retries
(503, 429 with Retry-After, timeouts), no retry on a 400 or a redirect, SSRF refusals at delivery, and a subscription
disabled after failing for the documented period."""
from __future__ import annotations

from datetime import timedelta

import pytest

from jobs.webhooks import BACKOFF_FIRST, QUEUE_LEASE, WebhookSender
from tests.jobs.webhook_receiver import Answer, Receiver, sample_event
from warehouse.ledger import Agents
from warehouse.ledger.webhooks import DISABLE_AFTER


def sender(hooks, allow_private=True, timeout_s=2.0) -> WebhookSender:
    return WebhookSender(hooks, timeout_s=timeout_s, allow_private=allow_private)  # jobs run inline: no queue


def subscribed(hooks, url: str) -> tuple[dict, dict]:
    agent, _ = Agents(hooks.engine).register("hooked")
    return agent, hooks.subscribe(agent["id"], "free", "market.vix_spike", url)


def queue_one(hooks, seq: int = 1) -> str:
    [(delivery_id, _)] = hooks.create_deliveries([sample_event(seq)], QUEUE_LEASE)
    return delivery_id


def test_a_delivery_is_signed_per_standard_webhooks(hooks):
    with Receiver() as receiver:
        agent, sub = subscribed(hooks, receiver.url)
        delivery_id = queue_one(hooks)
        assert sender(hooks).deliver(delivery_id, 0) == "delivered"
        [payload] = receiver.verified(sub["secret"])
    assert payload["type"] == "market.vix_spike" and payload["data"]["id"] == "1-0"
    assert payload["data"]["simulated"] is True
    assert receiver.received[0].headers["webhook-id"] == delivery_id
    [row] = hooks.deliveries(agent["id"])
    assert row["status"] == "delivered" and row["attempts"] == 1 and row["last_status_code"] == 200
    assert row["latency_ms"] >= 0


def test_a_503_is_retried_after_the_backoff_then_delivered_with_the_same_webhook_id(hooks, clock):
    with Receiver([Answer(503), Answer(200)]) as receiver:
        agent, sub = subscribed(hooks, receiver.url)
        delivery_id = queue_one(hooks)
        send = sender(hooks)
        assert send.deliver(delivery_id, 0) == "pending"
        [row] = hooks.deliveries(agent["id"])
        assert row["last_status_code"] == 503 and row["next_retry_at"] == (clock.at + BACKOFF_FIRST).isoformat()
        assert hooks.take_due(QUEUE_LEASE) == []
        clock.advance(BACKOFF_FIRST)
        [(due_id, attempt)] = hooks.take_due(QUEUE_LEASE)
        assert send.deliver(due_id, attempt) == "delivered"
        assert len(receiver.verified(sub["secret"])) == 2 and receiver.unique_ids() == {delivery_id}
    assert hooks.subscriptions(agent["id"])[0]["failing_since"] is None


def test_retry_after_is_honoured(hooks, clock):
    with Receiver([Answer(429, {"Retry-After": "120"})]) as receiver:
        agent, _ = subscribed(hooks, receiver.url)
        assert sender(hooks).deliver(queue_one(hooks), 0) == "pending"
    assert hooks.deliveries(agent["id"])[0]["next_retry_at"] == (clock.at + timedelta(seconds=120)).isoformat()


@pytest.mark.parametrize("answer, error", [
    (Answer(400), "HTTP 400: not retried"),
    (Answer(302, {"Location": "http://127.0.0.1:9/elsewhere"}), "HTTP 302: redirects are not followed")])
def test_no_retry_on_other_4xx_and_redirects_are_not_followed(hooks, answer, error):
    with Receiver([answer]) as receiver:
        agent, _ = subscribed(hooks, receiver.url)
        assert sender(hooks).deliver(queue_one(hooks), 0) == "failed"
        assert [r.path for r in receiver.received] == ["/hook"]
    [row] = hooks.deliveries(agent["id"])
    assert (row["status"], row["last_error"], row["next_retry_at"]) == ("failed", error, None)


def test_a_timeout_is_retried(hooks):
    with Receiver([Answer(200, delay_s=1.5)]) as receiver:
        agent, _ = subscribed(hooks, receiver.url)
        assert sender(hooks, timeout_s=0.3).deliver(queue_one(hooks), 0) == "pending"
    [row] = hooks.deliveries(agent["id"])
    assert row["last_error"] == "timeout after 0.3 s" and row["next_retry_at"] is not None


def test_loopback_is_refused_at_delivery_without_the_setting(hooks):
    with Receiver() as receiver:
        agent, _ = subscribed(hooks, receiver.url.replace("http://", "https://"))
        assert sender(hooks, allow_private=False).deliver(queue_one(hooks), 0) == "failed"
        assert receiver.received == []
    assert hooks.deliveries(agent["id"])[0]["last_error"] == "refused: 127.0.0.1 is a loopback address"


def test_a_subscription_failing_for_the_period_is_disabled_and_says_so(hooks, clock):
    with Receiver([Answer(500)]) as receiver:
        agent, _ = subscribed(hooks, receiver.url)
        send = sender(hooks)
        first = queue_one(hooks, 1)
        assert send.deliver(first, 0) == "pending"
        clock.advance(DISABLE_AFTER)
        queue_one(hooks, 2)
        assert send.deliver(first, 1) == "failed"
    [sub] = hooks.subscriptions(agent["id"])
    assert sub["active"] is False and "the last one got HTTP 500" in sub["disabled_reason"]
    assert {d["status"] for d in hooks.deliveries(agent["id"])} == {"failed", "abandoned"}
