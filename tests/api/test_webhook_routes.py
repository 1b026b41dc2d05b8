"""The webhook routes as an agent meets them: subscribe (tier gate, URL refusals, limits) and unsubscribe by
`subscription_id`. Deliveries to a loopback receiver, as listed: test_webhook_deliveries_route.py."""
from __future__ import annotations

import pytest

from tests.api.agent_helpers import auth, register, set_tier
from warehouse.ledger.webhooks import MAX_SUBSCRIPTIONS

SUBSCRIBE, UNSUBSCRIBE, DELIVERIES = ("/api/v1/webhooks/subscribe", "/api/v1/webhooks/unsubscribe",
                                      "/api/v1/webhooks/deliveries")
PUBLIC = "https://93.184.215.14/hook"  # a public address literal: no DNS needed, never contacted here


def subscribe(client, key, event_type="market.vix_spike", url=PUBLIC):
    return client.simulate_post(SUBSCRIBE, headers=auth(key), json={"event_type": event_type, "callback_url": url})


def test_subscribe_needs_a_key_a_known_type_and_the_tier(client, services):
    assert client.simulate_post(SUBSCRIBE, json={"event_type": "market.vix_spike", "callback_url": PUBLIC}
                                ).status_code == 401
    key, agent = register(client)
    unknown = subscribe(client, key, "market.moon_landing")
    assert unknown.status_code == 422 and unknown.json["detail"][0]["loc"] == ["body", "event_type"]
    gated = subscribe(client, key, "market.tail_risk_rise")
    assert gated.status_code == 403 and gated.json["error"]["required_tier"] == "premium"
    set_tier(services, agent["agent_id"], "premium")
    made = subscribe(client, key, "market.tail_risk_rise")
    assert made.status_code == 200 and made.json["secret"].startswith("whsec_")
    assert made.json["event_type"] == "market.tail_risk_rise" and made.json["subscription_id"].startswith("whs_")
    assert subscribe(client, key, "market.tail_risk_rise").json["error"]["code"] == "already_subscribed"


@pytest.mark.parametrize(("url", "reason"), [
    ("http://93.184.215.14/hook", "must use https"),
    ("https://127.0.0.1/hook", "loopback"),
    ("https://localhost/hook", "loopback"),
    ("https://10.1.2.3/hook", "private"),
    ("https://169.254.169.254/latest/meta-data/", "metadata"),
    ("https://[fd00:ec2::254]/", "metadata"),
])
def test_refused_urls_are_422_with_the_reason(client, url, reason):
    key, _ = register(client)
    resp = subscribe(client, key, url=url)
    assert resp.status_code == 422 and resp.json["detail"][0]["loc"] == ["body", "callback_url"]
    assert reason in resp.json["detail"][0]["msg"]


def test_a_tier_holds_a_documented_number_of_subscriptions(client):
    key, _ = register(client)
    for i in range(MAX_SUBSCRIPTIONS["free"]):
        assert subscribe(client, key, url=f"{PUBLIC}/{i}").status_code == 200
    full = subscribe(client, key, url=f"{PUBLIC}/more")
    assert full.status_code == 403 and full.json["error"]["code"] == "subscription_limit"
    assert full.json["error"]["max_subscriptions"] == MAX_SUBSCRIPTIONS["free"]


def test_unsubscribe_by_subscription_id(client):
    key, _ = register(client)
    other, _ = register(client, "agent-2")
    sub_id = subscribe(client, key).json["subscription_id"]
    assert client.simulate_delete(UNSUBSCRIBE, headers=auth(key)).status_code == 422
    stranger = client.simulate_delete(UNSUBSCRIBE, headers=auth(other), params={"subscription_id": sub_id})
    assert stranger.status_code == 404 and stranger.json["error"]["code"] == "unknown_subscription"
    gone = client.simulate_delete(UNSUBSCRIBE, headers=auth(key), params={"subscription_id": sub_id})
    assert gone.status_code == 200 and gone.json == {"unsubscribed": True, "subscription_id": sub_id}
    assert client.simulate_delete(UNSUBSCRIBE, headers=auth(key), params={"subscription_id": sub_id}
                                  ).status_code == 404
