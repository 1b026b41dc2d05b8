"""GET /api/v1/webhooks/deliveries after real deliveries: signed POSTs to a loopback receiver (the server allows
private addresses here, as MI_WEBHOOK_ALLOW_PRIVATE=true does), listed newest first with their outcome and kind;
an alert's trigger verified with the secret of the alert's create answer."""
from __future__ import annotations

import pytest

from jobs.webhooks import QUEUE_LEASE, WebhookSender
from tests.api.agent_helpers import auth, register
from tests.jobs.webhook_receiver import Receiver, sample_event
from warehouse.ledger.webhooks import Webhooks

DELIVERIES = "/api/v1/webhooks/deliveries"


def subscribe(client, key, url):
    return client.simulate_post("/api/v1/webhooks/subscribe", headers=auth(key),
                                json={"event_type": "market.vix_spike", "callback_url": url})

@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"webhook_allow_private": True})  # the receiver is on loopback


def test_a_signed_delivery_shows_in_the_listing_newest_first(client, services):
    key, agent = register(client)
    hooks = Webhooks(services.engine)
    with Receiver() as receiver:
        made = subscribe(client, key, url=receiver.url)
        assert made.status_code == 200, made.text
        sender = WebhookSender(hooks, timeout_s=2.0, allow_private=True)
        for seq in (1, 2, 3):
            [(delivery_id, attempt)] = hooks.create_deliveries([sample_event(seq)], QUEUE_LEASE)
            assert sender.deliver(delivery_id, attempt) == "delivered"
        assert [p["data"]["id"] for p in receiver.verified(made.json["secret"])] == ["1-0", "2-0", "3-0"]
    listed = client.simulate_get(DELIVERIES, headers=auth(key), params={"limit": 2})
    assert listed.status_code == 200 and listed.json["count"] == 2
    newest = listed.json["deliveries"][0]
    assert newest["event_id"] == "3-0" and newest["status"] == "delivered" and newest["attempts"] == 1
    assert newest["last_status_code"] == 200 and newest["latency_ms"] is not None and newest["next_retry_at"] is None
    assert listed.json["subscriptions"][0]["active"] is True and "secret" not in listed.json["subscriptions"][0]
    assert len(client.simulate_get(DELIVERIES, headers=auth(key)).json["deliveries"]) == 3
    for bad in ("0", "201"):
        assert client.simulate_get(DELIVERIES, headers=auth(key), params={"limit": bad}).status_code == 422


def test_an_alert_trigger_is_verified_with_the_secret_of_the_create_answer_and_listed_as_kind_alert(client, services):
    key, agent = register(client)
    hooks = Webhooks(services.engine)
    with Receiver() as receiver:
        made = client.simulate_post("/api/v1/alerts/subscribe", headers=auth(key), json={
            "name": "vix high", "conditions": [{"field": "vix", "operator": ">", "value": 30}],
            "callback_url": receiver.url})
        assert made.status_code == 200, made.text
        assert made.json["secret_shown_once"] is True
        assert "secret" not in client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"][0]
        event = sample_event(7, "alert.triggered", audience=agent["agent_id"]) | {"alert_id": made.json["alert_id"]}
        due = hooks.create_deliveries([event], QUEUE_LEASE)
        assert WebhookSender(hooks, timeout_s=2.0, allow_private=True).deliver_batch(due) == {due[0][0]: "delivered"}
        [payload] = receiver.verified(made.json["secret"])
    assert payload["data"]["alert_id"] == made.json["alert_id"]
    [listed] = client.simulate_get(DELIVERIES, headers=auth(key)).json["deliveries"]
    assert (listed["kind"], listed["target_id"], listed["subscription_id"], listed["status"]) == (
        "alert", made.json["alert_id"], None, "delivered")

